"""The player's own words in an email reply: quoted text and signatures removed.

`extract_reply_text(text)` keeps what the player wrote above (or between) the quoted turn
email: it drops lines quoted with ``>``, the "On ... wrote:" line that introduces them, and
everything after a reply separator (``-----Original Message-----``, Outlook's
``________________________________`` and ``From: ... Sent: ...`` header blocks, an
unquoted "On ... wrote:"), a signature (a ``-- `` line) or a mobile footer ("Sent from my
iPhone"). `html_to_text(html)` turns an HTML-only mail into such text (blockquotes become
``>`` lines). Pure standard library; never raises.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_MAX_INPUT = 1_000_000  # characters; a longer mail is cut (the reply is at its top)

# A line after which nothing is the player's own reply.
_CUT = re.compile(
    r"""^(?:
        -{2,}\s*(?:original\s+message|forwarded\s+message|reply\s+message|
            ursprüngliche\s+nachricht|message\s+d'origine|mensaje\s+original|
            messaggio\s+originale|oorspronkelijk\s+bericht)\s*-{2,}
      | _{10,}
      | \s*(?:begin\s+forwarded\s+message|anfang\s+der\s+weitergeleiteten\s+nachricht)\s*:
    )\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
# Mobile and webmail footers ("Sent from my iPhone"); the rest of the mail goes with them.
_FOOTER = re.compile(
    r"""^(?:
        sent\s+(?:from|with|via)\s+\S.*
      | get\s+outlook\s+for\s+\S.*
      | envoyé\s+de\s+mon\s+\S.*
      | von\s+meinem\s+\S.*\s+gesendet.*
      | enviado\s+desde\s+\S.*
      | inviato\s+da\s+\S.*
      | verzonden\s+(?:vanaf|met)\s+\S.*
    )$""",
    re.IGNORECASE | re.VERBOSE,
)
_SIGNATURE = re.compile(r"^--\s*$")
_HEADER_FROM = re.compile(r"^\*?\s*(?:from|von|de|da|van|od|från|fra)\s*:\*?\s*\S", re.I)
_HEADER_NEXT = re.compile(
    r"^\*?\s*(?:sent|date|to|cc|subject|envoyé|date|à|objet|gesendet|datum|an|betreff|"
    r"enviado|fecha|para|asunto|inviato|data|oggetto|verzonden|aan|onderwerp)\s*:",
    re.I,
)
_ON_START = re.compile(r"^(?:on|le|am|el|il|op|em|den|w\s+dniu|dne)\s", re.I)
_WROTE_END = re.compile(
    r"(?:wrote|a\s+écrit|schrieb|escribió|ha\s+scritto|schreef|escreveu|skrev|napisał|"
    r"napsal|kirjoitti)\s*:\s*$",
    re.I,
)


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _wrote_header(lines: list[str], i: int) -> int:
    """If lines[i] starts an attribution ("On <date>, <who> wrote:"), how many lines it spans."""
    line = lines[i].strip()
    if _WROTE_END.search(line) and (_ON_START.match(line) or len(line) < 200):
        return 1
    if not _ON_START.match(line):
        return 0
    joined = line
    for extra in range(1, 3):  # clients wrap a long attribution over up to three lines
        if i + extra >= len(lines) or not lines[i + extra].strip():
            return 0
        joined += " " + lines[i + extra].strip()
        if _WROTE_END.search(joined):
            return extra + 1
    return 0


def _next_content(lines: list[str], i: int) -> str | None:
    for line in lines[i:]:
        if line.strip():
            return line
    return None


def extract_reply_text(text: str) -> str:
    """The player's own words of a plain-text reply, trimmed (see the module docstring)."""
    if not isinstance(text, str):
        return ""
    lines = text[:_MAX_INPUT].replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if _is_quoted(line):
            i += 1
            continue
        if _SIGNATURE.match(line) or _CUT.match(stripped) or _FOOTER.match(stripped):
            break
        if _HEADER_FROM.match(stripped) and any(
            _HEADER_NEXT.match(following.strip()) for following in lines[i + 1 : i + 6]
        ):
            break
        span = _wrote_header(lines, i) if stripped else 0
        if span:
            following = _next_content(lines, i + span)
            if following is not None and _is_quoted(following):
                i += span  # bottom-posting or interleaved: keep what follows the quote
                continue
            if _ON_START.match(stripped) or following is None:
                break
        kept.append(line.rstrip())
        i += 1
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return "\n".join(kept)


# --- HTML -----------------------------------------------------------------------------

_SKIP = frozenset({"script", "style", "head", "title", "template", "noscript", "svg"})
_BLOCK = frozenset(
    {
        "p",
        "div",
        "li",
        "tr",
        "table",
        "ul",
        "ol",
        "pre",
        "section",
        "article",
        "header",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "dd",
        "dt",
        "dl",
        "address",
        "center",
        "form",
        "blockquote",
    }
)
_SIGNATURE_MARKS = frozenset({"gmail_signature", "signature", "moz-signature"})


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[list[object]] = [[0, ""]]  # [quote depth, text]
        self.depth = 0
        self.skip = 0
        self.pre = 0
        self.stopped = False

    def _newline(self) -> None:
        if self.lines[-1][1]:
            self.lines.append([self.depth, ""])
        else:
            self.lines[-1][0] = self.depth

    def _write(self, text: str) -> None:
        line = self.lines[-1]
        if not line[1]:
            line[0] = self.depth
            text = text.lstrip() if not self.pre else text
        line[1] = str(line[1]) + text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skip += 1
            return
        marks = " ".join(v or "" for k, v in attrs if k in ("class", "id")).lower()
        if tag == "blockquote":
            self._newline()
            self.depth += 1
            self._newline()
        elif tag in _BLOCK:
            self._newline()
        elif tag == "br":
            self.lines.append([self.depth, ""])
        elif tag == "hr":
            self._newline()
            self._write("_" * 32)
            self._newline()
        elif tag in ("td", "th"):
            self._write(" ")
        if tag == "pre":
            self.pre += 1
        if set(marks.split()) & _SIGNATURE_MARKS:
            self._newline()
            self._write("-- ")
            self._newline()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in ("br", "hr"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if tag == "blockquote":
            self.depth = max(0, self.depth - 1)
            self._newline()
        elif tag in _BLOCK:
            self._newline()
        if tag == "pre":
            self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        data = data.replace("\xa0", " ")
        if self.pre:
            parts = data.split("\n")
            for n, part in enumerate(parts):
                if n:
                    self.lines.append([self.depth, ""])
                self._write(part)
            return
        data = re.sub(r"\s+", " ", data)
        if data.strip() or self.lines[-1][1]:
            self._write(data)

    def text(self) -> str:
        out: list[str] = []
        for depth, text in self.lines:
            body = str(text).rstrip()
            prefix = "> " * int(depth)  # type: ignore[call-overload]
            out.append((prefix + body).rstrip() if body else prefix.rstrip())
        joined = "\n".join(out)
        joined = re.sub(r"\n{3,}", "\n\n", joined)
        return joined.strip("\n")


def html_to_text(html: str) -> str:
    """Readable text of an HTML mail: blocks become lines, blockquotes ``>`` lines."""
    if not isinstance(html, str):
        return ""
    parser = _TextParser()
    try:
        parser.feed(html[:_MAX_INPUT])
        parser.close()
    except Exception:  # HTMLParser is lenient; this is a last resort for broken markup
        return re.sub(r"<[^>]*>", " ", html[:_MAX_INPUT]).strip()
    return parser.text()
