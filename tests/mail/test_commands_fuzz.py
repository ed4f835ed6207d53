"""Fuzzing the command parser: whatever arrives, the only failure is a clean CommandError."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import parse_action, player_view
from games.mail import parsing as commands
from games.mail.commands import MAX_COMMANDS, MAX_LINE_LENGTH, CommandError, parse_commands
from tests.mail.positions import positions


@pytest.fixture(autouse=True, scope="module")
def strict() -> Iterator[None]:
    # Internal errors surface as themselves instead of the catch-all refusal.
    commands._STRICT = True
    yield
    commands._STRICT = False


def _views() -> list[dict[str, Any] | None]:
    seen: dict[str, dict[str, Any]] = {}
    for label, table in positions():
        seen.setdefault(label.split("-")[0] + table.phase, player_view(table, table.turn))
    return [*seen.values(), None, {}, {"variant": "tiles"}]


VIEWS = _views()
WORDS = [
    # verbs and keywords
    "draw", "take", "pick", "up", "pickup", "meld", "add", "discard", "yes", "no", "y", "n",
    "ask", "may", "i", "go", "out", "resign", "status", "help", "with", "to", "onto", "the",
    "pile", "a", "card", "from", "stock", "and", "then", "of", "meld", "fives", "kings",
    "jokers", "wild", "twos",
    # cards in every spelling
    "7h", "7d", "7s", "7c", "10s", "ts", "Kh", "kd", "as", "2c", "jk", "joker", "JK", "7♥",
    "7♥️", "10♠", "A♤", "Q♧", "K♢", "🃏", "7", "10", "13", "1", "11", "h", "red", "blue",
    "yellow", "black", "hearts", "7h7d7s", "3s", "3h", "x", "9x", "7hh",
    # separators and noise
    ",", ";", "|", "+", "&", "/", ".", "!", "?", ":", "-", "*", "1.", "\n", "'s", "é", "\u200b",
    "\ufe0f", "\u00a0", "ﬀ", "İ", "ǅ",
]  # fmt: skip


def _check(text: str, view: dict[str, Any] | None) -> None:
    try:
        parsed = parse_commands(text, view)
    except CommandError as error:
        assert error.code == "invalid_action"
        assert isinstance(error.message, str) and error.message
        assert isinstance(error.line_number, int)
        str(error)
        return
    assert len(parsed) <= MAX_COMMANDS
    for command in parsed:
        assert (command.action is None) != (command.service is None)
        if command.action is not None:
            parse_action(command.action)  # well-formed for the engine (it may still refuse)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=300), view=st.sampled_from(VIEWS))
def test_random_text(text: str, view: dict[str, Any] | None) -> None:
    _check(text, view)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    words=st.lists(st.sampled_from(WORDS), max_size=25),
    spaces=st.lists(st.sampled_from(["", " ", "  ", "\t", ", "]), min_size=25, max_size=25),
    view=st.sampled_from(VIEWS),
)
def test_command_like_text(words: list[str], spaces: list[str], view: dict[str, Any] | None):
    _check("".join(w + s for w, s in zip(words, spaces, strict=False)), view)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(
        st.one_of(
            st.sampled_from(
                ["draw", "take", "add 5c", "meld 7h 7d 7s", "status", "", "discard 9c"]
            ),
            st.text(alphabet=st.sampled_from("7hdsck10 ,;♥"), max_size=40),
        ),
        max_size=80,
    ),
    view=st.sampled_from(VIEWS),
)
def test_many_lines(lines: list[str], view: dict[str, Any] | None) -> None:
    _check("\n".join(lines), view)


@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(
    length=st.integers(MAX_LINE_LENGTH - 5, MAX_LINE_LENGTH * 3),
    char=st.sampled_from(["7h ", "x", "♥", "jk", ", ", "\u00a0", "﷽"]),
)
def test_long_lines(length: int, char: str) -> None:
    line = "meld " + char * (length // len(char))
    try:
        parse_commands(line, VIEWS[0])
    except CommandError as error:
        if len(line) > MAX_LINE_LENGTH:
            assert "too long" in error.message


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(
    view=st.dictionaries(
        st.sampled_from(["variant", "hand", "melds", "seat", "turn", "discard", "frozen"]),
        st.one_of(
            st.none(),
            st.integers(-3, 10),
            st.text(max_size=5),
            st.lists(
                st.one_of(
                    st.text(max_size=3),
                    st.dictionaries(st.text(max_size=2), st.lists(st.text(max_size=3))),
                ),
                max_size=4,
            ),
            st.sampled_from(["classic", "tiles", "party", "family"]),
        ),
    ),
    text=st.sampled_from(["take", "add 2c", "add 5c", "meld jk jk 2c; add 2c", "take with 7h 7d"]),
)
def test_malformed_views(view: dict[str, Any], text: str) -> None:
    _check(text, view)


@pytest.mark.parametrize("key", ["", " ", "k", "KK", "10", "X"])
def test_a_view_with_a_malformed_meld_key_gives_no_malformed_action(key: str) -> None:
    # Found by test_malformed_views: a side's meld key '' became `add 2c to ''`.
    _check("add 2c", {"melds": [{key: []}], "seat": 0})


# German and Icelandic words, cards and accents (games/mail/vocabulary.py).
WORDS_DE_IS = [
    "ziehen", "nehmen", "nehme", "auf", "mit", "auslegen", "melden", "anlegen", "an", "zu",
    "abwerfen", "ablegen", "ja", "nein", "fragen", "darf", "ich", "ausmachen", "aufgeben",
    "hilfe", "stand", "und", "dann", "den", "Stapel", "Fünfen", "Könige", "Jokern", "As",
    "Dame", "Bube", "König", "Herz", "Pik", "Karo", "Kreuz", "Dp", "Bkr", "Kka", "10ka", "rot",
    "draga", "taka", "með", "leggja", "út", "niður", "bæta", "við", "kasta", "já", "nei",
    "spyrja", "má", "ég", "fara", "gefast", "upp", "hjálp", "staða", "og", "svo", "síðan",
    "fimmurnar", "kóngana", "ás", "Á♥", "drottning", "gosi", "spaði", "hjarta", "tígull",
    "lauf", "Ds", "Gl", "At", "Tt", "10t", "rauður", "blár", "jóker", "þristana", "ð", "þ",
]  # fmt: skip


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    words=st.lists(st.sampled_from(WORDS + WORDS_DE_IS), max_size=25),
    spaces=st.lists(st.sampled_from(["", " ", "  ", ", ", "-"]), min_size=25, max_size=25),
    view=st.sampled_from(VIEWS),
    lang=st.sampled_from(["de", "is"]),
)
def test_command_like_text_in_german_and_icelandic(
    words: list[str], spaces: list[str], view: dict[str, Any] | None, lang: str
) -> None:
    text = "".join(w + s for w, s in zip(words, spaces, strict=False))
    try:
        parsed = parse_commands(text, view, lang=lang)
    except CommandError as error:
        assert error.code == "invalid_action" and error.message
        return
    for command in parsed:
        if command.action is not None:
            parse_action(command.action)
