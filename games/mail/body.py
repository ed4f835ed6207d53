"""The player's own words in an email reply: quoted text and signatures removed.

`extract_reply_text(text)` keeps what the player wrote above (or between) the quoted turn
email: it drops lines quoted with ``>``, the "On ... wrote:" line that introduces them, and
everything after a reply separator (``-----Original Message-----``, Outlook's
``________________________________`` and ``From: ... Sent: ...`` header blocks, an
unquoted "On ... wrote:"), a signature (a ``-- `` line) or a mobile footer ("Sent from my
iPhone"). Mail clients in German, Icelandic and the other European languages are known by
their attributions ("Am ... schrieb ...:", "... hat ... geschrieben:", "Þann ... skrifaði
...:", "Le ... a écrit :"), header blocks ("Von: / Gesendet: / An: / Betreff:") and phone
footers ("Von meinem iPhone gesendet", "Outlook für Android herunterladen"); beyond those
lists, a generic rule: unquoted lines ending in ":" right before quoted lines are an
attribution. A closing signature without ``-- `` after the commands ("Viele Grüße\nJörg",
"Best regards,\nAlice", "Kveðja,\nJón") is dropped (`drop_signature`), but never a line
that looks like a command. `html_to_text(html)` turns an HTML-only mail into such text
(blockquotes become ``>`` lines). Never raises.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from games import display

from .parsing import is_command_line
from .vocabulary import fold, words_for

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
# Mobile and webmail footers ("Sent from my iPhone", "Von meinem iPhone gesendet", "Sendt fra
# min iPhone", "Sent frá iPhone"); the rest of the mail goes with them.
_FOOTER = re.compile(
    r"""^(?:
        sent\s+(?:from|with|via|frá|úr)\s+\S.*
      | get\s+outlook\s+for\s+\S.*
      | envoyé\s+(?:de|depuis)\s+(?:mon\s+)?\S.*
      | von\s+meinem\s+\S.*\s+gesendet.*
      | gesendet\s+(?:von|mit|aus|vom)\s+\S.*
      | diese\s+nachricht\s+wurde\s+.*\s+gesendet.*
      | enviado\s+(?:desde|do|de)\s+\S.*
      | inviato\s+da\s+\S.*
      | verzonden\s+(?:vanaf|met|van)\s+\S.*
      | verstuurd\s+(?:vanaf|met|van)\s+\S.*
      | sendt\s+(?:fra|från)\s+\S.*
      | skickat\s+från\s+\S.*
      | wysłane\s+z\s+\S.*
      | lähetetty\s+\S.*
      | (?=.{0,80}$).*\boutlook\b.*\b(?:ios|android)\b.*
    )$""",
    re.IGNORECASE | re.VERBOSE,
)
_SIGNATURE = re.compile(r"^--\s*$")
# Outlook's header block above the original ("From: ... Sent: ..."), in the languages of
# Europe: English, German, French, Spanish, Italian, Portuguese, Dutch, the Nordic languages
# (Icelandic "Frá: / Sent: / Til: / Efni:"), Polish, Czech, Finnish.
_HEADER_FROM = re.compile(
    r"^\*?\s*(?:from|von|de|da|van|od|från|fra|frá|lähettäjä|kimden)\s*:\*?\s*\S", re.I
)
_HEADER_NEXT = re.compile(
    r"^\*?\s*(?:sent|date|to|cc|subject|envoyé|à|objet|gesendet|datum|an|betreff|"
    r"enviado|fecha|para|asunto|assunto|inviato|data|a|oggetto|verzonden|aan|onderwerp|"
    r"sendt|til|emne|skickat|till|ämne|efni|dagsetning|wysłane|do|temat|odesláno|komu|"
    r"předmět|lähetetty|vastaanottaja|aihe|kopie|kopia)\s*:",
    re.I,
)
# A header block that starts with its date (GMX, WEB.DE, T-Online: "Gesendet: ...").
_HEADER_DATE_FIRST = re.compile(
    r"^\*?\s*(?:gesendet|sent|date|datum|envoyé|enviado|verzonden|sendt|skickat|dagsetning)"
    r"\s*:\*?\s*\S",
    re.I,
)
_ON_START = re.compile(
    r"^(?:on|le|am|el|il|op|em|den|þann|thann|w\s+dniu|dne|kello|il\s+giorno)\s", re.I
)
# The verb of an attribution ("On <date>, <who> wrote:", "Am <date> schrieb <who>:",
# "<who> hat am <date> geschrieben:", "Þann <date> skrifaði <who>:"): it may come before or
# after the name, so anything may follow it up to the closing colon.
_WROTE_END = re.compile(
    r"\b(?:wrote|a\s+écrit|schrieb|geschrieben|escribió|ha\s+scritto|schreef|escreveu|skrev|"
    r"skrifaði|napisał|napsal|kirjoitti|írta)(?:\(a\))?(?!\w)[^\n]{0,250}:\s*$",
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


def _generic_attribution(lines: list[str], i: int) -> int:
    """1-3 unquoted lines, the last ending in ":", right before quoted lines: an attribution in
    any language or client ("Op 1 dec. 2026 schreef ...:"). A command is never one."""
    if looks_like_command(lines[i]):
        return 0
    for extra in range(3):
        j = i + extra
        if j >= len(lines) or not lines[j].strip() or _is_quoted(lines[j]):
            return 0
        if lines[j].rstrip().endswith(":"):
            following = _next_content(lines, j + 1)
            return extra + 1 if following is not None and _is_quoted(following) else 0
    return 0


def _is_header_block(lines: list[str], i: int) -> bool:
    """Outlook's "Von: / Gesendet: / An:" block, or GMX's and WEB.DE's, which begins with the
    date ("Gesendet: Dienstag, 01. Dezember 2026 um 14:52 Uhr" then "Von: ...")."""
    line = lines[i].strip()
    following = [f.strip() for f in lines[i + 1 : i + 6]]
    if _HEADER_FROM.match(line):
        return any(_HEADER_NEXT.match(f) for f in following)
    if _HEADER_DATE_FIRST.match(line):
        return any(_HEADER_FROM.match(f) for f in following[:3])
    return False


def _own_lines(lines: list[str]) -> list[str]:
    """The lines above (or between) the quoted original; see the module docstring."""
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
        if _is_header_block(lines, i):
            break
        span = _wrote_header(lines, i) if stripped else 0
        if span:
            following = _next_content(lines, i + span)
            if following is not None and _is_quoted(following):
                i += span  # bottom-posting or interleaved: keep what follows the quote
                continue
            if _ON_START.match(stripped) or following is None:
                break
        elif stripped and (span := _generic_attribution(lines, i)):
            i += span
            continue
        kept.append(line.rstrip())
        i += 1
    return kept


def extract_reply_text(text: str) -> str:
    """The player's own words of a plain-text reply, trimmed (see the module docstring)."""
    if not isinstance(text, str):
        return ""
    lines = text[:_MAX_INPUT].replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept = drop_signature(_own_lines(lines))
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return "\n".join(kept)


# --- closing signatures without "-- " ---------------------------------------------------

# The first line of a closing ("Viele Grüße", "Best regards,", "Kveðja,", "LG", "MfG").
_CLOSING = re.compile(
    r"""^(?:
        (?:viele|liebe|beste|herzliche|freundliche|schöne)\s+grü(?:ß|ss)e
      | mit\s+freundlichen\s+grü(?:ß|ss)en | grü(?:ß|ss)e | gru(?:ß|ss) | lg | vg | mfg | bg
      | danke(?:\s+schön)? | (?:vielen|herzlichen|besten)\s+dank | ciao | tschüss
      | best(?:\s+regards|\s+wishes)? | (?:kind\s+|warm\s+)?regards | cheers | thanks
      | thank\s+you | thx | ta
      | kveðja | kær\s+kveðja | bestu\s+kveðjur | með\s+kveðju | takk(?:\s+fyrir)?
      | hilsen | (?:med\s+)?venlig\s+hilsen | mvh | vh | (?:vänliga\s+)?hälsningar | mvh
      | (?:met\s+vriendelijke\s+)?groet(?:en)? | mvg
      | cordialement | bien\s+à\s+vous | amitiés | bises
      | (?:un\s+)?saludos? | (?:cordiali\s+)?saluti | pozdrawiam | pozdrowienia
      | abraços | cumprimentos | (?:ystävällisin\s+)?terveisin
    )\b[\s,.!]*(?:\S.*)?$""",
    re.IGNORECASE | re.VERBOSE,
)
# A card with a number ("9c", "10 ♥", "7h"): a line holding one is never a signature.
_CARD_LIKE = re.compile(r"(?<![\w+])(?:10|[2-9])\s?(?:[a-z]{1,2}\b|[♠♥♦♣♤♡♢♧❤])|[♠♥♦♣🃏]", re.I)


def _osa_distance(a: str, b: str) -> int:
    """Edit distance counting a swap of two neighbours as one edit ("drwa" -> "draw")."""
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, start=1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def looks_like_command(line: str) -> bool:
    """A command, or a line a player meant as one (a mistyped verb, a card with a number):
    such a line is never dropped as a signature, so its mistake is answered."""
    if any(is_command_line(line, lang=lang) for lang in display.LANGUAGES):
        return True
    if _CARD_LIKE.search(line):
        return True
    if _CLOSING.match(line.strip()):
        return False  # "Takk", "Hilsen": a closing, however close to a verb ("taka", "hilfe")
    first = fold(line.strip().lstrip("-*•").strip().split(" ", 1)[0].rstrip(".:!,;"))
    if len(first) < 4:
        return False
    limit = 1 if len(first) <= 5 else 2
    return any(
        abs(len(first) - len(verb)) <= limit and _osa_distance(first, verb) <= limit
        for verb in _command_words()
    )


def _command_words() -> frozenset[str]:
    out: set[str] = set()
    for lang in display.LANGUAGES:
        words = words_for(lang)
        out |= {w for w in words.verbs if len(w) >= 4}
        out |= {p[0] for p in words.phrases if len(p[0]) >= 4}
    return frozenset(out)


# What a vacation reply says, in English, German and Icelandic.
_OUT_OF_OFFICE = re.compile(
    r"""\b(?:
        out\s+of\s+(?:the\s+)?office | automatic\s+reply | auto[\s-]?reply
      | i(?:\s+am|'m)\s+(?:away|on\s+(?:vacation|holiday|leave)|out\s+of\s+office)
      | abwesenheitsnotiz | automatische\s+antwort | abwesend | nicht\s+im\s+büro
      | außer\s+haus | im\s+urlaub | nicht\s+erreichbar
      | sjálfvirkt\s+svar | fjarverandi | í\s+(?:sumar)?fríi | ekki\s+við\s+(?:á|til)
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)


def is_out_of_office(text: str) -> bool:
    """A vacation reply by its words ("Ich bin bis 12.12. nicht im Büro", "Ég er í fríi",
    "I am out of the office"), for auto-replies that carry no auto-reply header: no line of
    it looks like a command, and one says the writer is away."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or any(looks_like_command(line) for line in lines):
        return False
    return any(_OUT_OF_OFFICE.search(line) for line in lines)


def drop_signature(lines: list[str]) -> list[str]:
    """Without the closing lines after the last command ("Viele Grüße\nJörg", "Best regards,
    / Alice", "Kveðja, / Jón", "Thanks partner!\nBob" after a blank line), however long: a
    company signature with its disclaimer (Outlook adds no "-- ") goes too.

    Only after at least one command, only what starts with a closing or after a blank line,
    and never a line that looks like a command (`looks_like_command`: a verb first, a German
    verb last, a card): the block holds none by construction, since it starts after the last
    such line. A mistake among the commands is refused, never dropped.
    """
    commands = [i for i, line in enumerate(lines) if line.strip() and looks_like_command(line)]
    if not commands:
        return lines
    tail = lines[commands[-1] + 1 :]
    shown = [line for line in tail if line.strip()]
    if not shown:
        return lines
    after_blank = not tail[0].strip()
    if after_blank or _CLOSING.match(shown[0].strip()):
        return lines[: commands[-1] + 1]
    return lines


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
