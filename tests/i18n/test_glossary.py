"""One word per thing (docs/glossary.md): no German or Icelandic catalogue, and no card table
of games/display.py, uses a variant the glossary forbids."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games import display
from tests.i18n.catalogues import ROOT, catalogues, po_entries

GLOSSARY = ROOT / "docs" / "glossary.md"
COLUMNS = {"de": 4, "is": 5}  # the table's "forbidden in ..." columns


def forbidden(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    """(thing, pattern) for each forbidden variant of the glossary table, whole words only."""
    out = []
    for line in GLOSSARY.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or cells[0] in ("thing (English)", "---"):
            continue
        for variant in re.findall(r"`([^`]+)`", cells[COLUMNS[lang]]):
            out.append((cells[0], re.compile(rf"(?<![\w-])(?:{variant})(?![\w-])")))
    return out


def offences(text: str, lang: str) -> list[str]:
    return [f"{thing}: {p.pattern}" for thing, p in forbidden(lang) if p.search(text)]


def test_the_glossary_has_forbidden_variants_in_both_languages() -> None:
    assert len(forbidden("de")) >= 20 and len(forbidden("is")) >= 8


def test_the_check_catches_the_words_players_complained_about() -> None:
    assert offences("Vor dem Ausmachen den Partner fragen", "de")
    assert offences("Spiel %(number)s gewertet", "de")
    assert offences("Der Talon ist leer", "de") and offences("Herz As", "de")
    assert offences("Rote Dreien", "de") and offences("Das Match ist vorbei", "de")
    assert offences("Hreinn kanasti", "is") and offences("Þú drógst", "is")
    assert offences("Hönd %(number)s", "is")
    # Compounds and other words are not the forbidden word.
    assert not offences("Spieler, Spielart, Spiel-E-Mails, Assistent, Stockwerk", "de")
    assert not offences("Höndin þín, Blönduð canasta", "is")


def _catalogue_texts(lang: str) -> list[tuple[Path, str]]:
    return [
        (path, text)
        for path in catalogues()
        if f"/{lang}/" in str(path)
        for entry in po_entries(path)
        if entry.msgid
        for text in entry.msgstr.values()
    ]


@pytest.mark.parametrize("lang", ["de", "is"])
def test_the_catalogues_use_only_the_glossarys_words(lang: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}: {text!r} ({', '.join(offences(text, lang))})"
        for path, text in _catalogue_texts(lang)
        if offences(text, lang)
    ]
    assert not found, "\n".join(found[:30])


@pytest.mark.parametrize("lang", ["de", "is"])
def test_the_card_words_use_only_the_glossarys_words(lang: str) -> None:
    tables = (
        display.RANK_NAMES,
        display.RANK_PLURALS,
        display.SPECIAL_KEYS,
        display.SUIT_NAMES,
        display.TILE_COLOURS,
    )
    words = [word for table in tables for word in table[lang].values()]
    words += [display.card_name(card, "classic", lang) for card in ("AH", "QS", "TC")]
    assert not [w for w in words if offences(w, lang)]
