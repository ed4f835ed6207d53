"""Reading gettext catalogues and templates for the translation checks (test_catalogues.py).

A small .po reader of our own: the checks must run where no gettext tools are installed
(production images, a developer's laptop), and they compare the compiled .mo files with the
standard library's `gettext` reader, so they need neither msgfmt nor a third-party package.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from django.template.base import Lexer, TokenType

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("de", "is")
# Not this project's code: the virtualenv, and other checkouts below the root.
SKIPPED_DIRS = {".venv", "node_modules", ".git", "var"}


@dataclass
class Entry:
    msgid: str
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)  # index 0 for a singular entry
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False
    line: int = 0

    @property
    def key(self) -> str:
        """The key of the entry in a compiled catalogue (gettext's context separator)."""
        return self.msgid if self.msgctxt is None else f"{self.msgctxt}\x04{self.msgid}"

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr.values())


_FIELD = re.compile(r"^(msgctxt|msgid_plural|msgid|msgstr)(?:\[(\d+)\])?\s+(\".*\")\s*$")


def po_entries(path: Path) -> list[Entry]:
    """Every entry of a .po file, header (msgid "") included."""
    entries: list[Entry] = []
    current: Entry | None = None
    target: tuple[str, int] | None = None
    flags: set[str] = set()
    obsolete = False

    def finish() -> None:
        nonlocal current, flags, obsolete
        if current is not None:
            current.flags, current.obsolete = flags, obsolete
            entries.append(current)
        current, flags, obsolete = None, set(), False

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#~"):
            obsolete = True
            line = line[2:].strip()
            if not line:
                continue
        elif not line:
            finish()
            continue
        elif line.startswith("#,"):
            if current is not None and current.msgstr:
                finish()
            flags |= {flag.strip() for flag in line[2:].split(",")}
            continue
        elif line.startswith("#"):
            continue
        match = _FIELD.match(line)
        if match is None:
            if line.startswith('"') and current is not None and target is not None:
                _append(current, target, ast.literal_eval(line))
                continue
            raise ValueError(f"{path}:{number}: cannot read {raw!r}")
        name, index, text = match.group(1), match.group(2), ast.literal_eval(match.group(3))
        if name in ("msgctxt", "msgid") and current is not None and current.msgstr:
            finish()
        if current is None:
            current = Entry(msgid="", line=number)
        target = (name, int(index or 0))
        _set(current, target, text)
    finish()
    return entries


def _set(entry: Entry, target: tuple[str, int], text: str) -> None:
    name, index = target
    if name == "msgstr":
        entry.msgstr[index] = text
    else:
        setattr(entry, name, text)


def _append(entry: Entry, target: tuple[str, int], text: str) -> None:
    name, index = target
    if name == "msgstr":
        entry.msgstr[index] += text
    else:
        setattr(entry, name, (getattr(entry, name) or "") + text)


def catalogues() -> list[Path]:
    """Every django.po of German and Icelandic in the project (other helpers' pending-*.po
    drafts are not catalogues yet: the merger folds them in)."""
    found = []
    for path in sorted(ROOT.glob("*/locale/*/LC_MESSAGES/django.po")):
        if path.parts[len(ROOT.parts)] in SKIPPED_DIRS:
            continue
        if path.parent.parent.name in LANGUAGES:
            found.append(path)
    return found


def templates() -> list[Path]:
    found = []
    for path in sorted(ROOT.glob("*/templates/**/*.html")):
        if path.parts[len(ROOT.parts)] not in SKIPPED_DIRS:
            found.append(path)
    return found


# --- templates: text a person reads that is not marked for translation ---------------------

# Words that are the same in every language: the product's and the programs' names.
ALLOWED_WORDS = {"Canasta", "API"}
# Attributes a person reads (or hears, with a screen reader).
READ_ATTRIBUTES = {"title", "alt", "placeholder", "aria-label", "aria-description"}
_HOLE = "\x00"  # where a template variable or tag was: not text of the template's own
_TRANSLATED = {"translate", "trans", "blocktranslate", "blocktrans"}


# Template blocks that base.html fills in inside an attribute (a CSS class), not text.
ATTRIBUTE_BLOCKS = frozenset({"body_class"})


def template_skeleton(source: str) -> str:
    """The template with every variable, tag and translated text replaced by a hole: what is
    left is the template's own text."""
    out: list[str] = []
    depth_block = 0  # inside {% blocktranslate %}...{% endblocktranslate %}
    depth_comment = 0
    blocks: list[str] = []  # the {% block %} names we are inside
    for token in Lexer(source).tokenize():
        if token.token_type is TokenType.BLOCK:
            words = token.contents.split()
            name = words[0] if words else ""
            if name == "block":
                blocks.append(words[1] if len(words) > 1 else "")
            elif name == "endblock" and blocks:
                blocks.pop()
            if name in ("blocktranslate", "blocktrans"):
                depth_block += 1
            elif name in ("endblocktranslate", "endblocktrans"):
                depth_block -= 1
            elif name == "comment":
                depth_comment += 1
            elif name == "endcomment":
                depth_comment -= 1
            out.append(_HOLE)
        elif (
            token.token_type is TokenType.TEXT
            and not depth_block
            and not depth_comment
            and not ATTRIBUTE_BLOCKS.intersection(blocks)
        ):
            out.append(token.contents)
        else:
            out.append(_HOLE)
    return "".join(out)


class _TextFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        values = dict(attrs)
        for name, value in attrs:
            if value and name in READ_ATTRIBUTES:
                self.found.append(value)
        if tag == "input" and values.get("type") in ("submit", "button", "reset"):
            self.found.append(values.get("value") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.found.append(data)


def unmarked_texts(source: str) -> list[str]:
    """The pieces of text with letters that a person would read untranslated."""
    finder = _TextFinder()
    finder.feed(template_skeleton(source))
    finder.close()
    texts = []
    for text in finder.found:
        for piece in text.split(_HOLE):
            words = [w for w in re.findall(r"[^\W\d_]+", piece) if w not in ALLOWED_WORDS]
            if words:
                texts.append(" ".join(piece.split()))
    return texts
