"""The table as text for the turn email: what it shows, and what it never shows."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from games.engine import Table, legal_actions, player_view
from games.mail.commands import parse_commands
from games.mail.text import card_label, render_table_html, render_table_text
from tests.engine.helpers import visible_cards
from tests.mail.positions import positions

SYMBOL_CARD = re.compile(r"(10|[2-9AKQJ])([♠♥♦♣])|\bJK\b")
TILE = re.compile(r"\b(1[0-3]|[1-9]) (red|yellow|black|blue)\b")
CODE = re.compile(r"\b(10|[2-9AKQJakqj])([shdc])\b")
SUITS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
COLOURS = {"red": "H", "yellow": "D", "black": "S", "blue": "C"}
NUMBERS = {"1": "A", "10": "T", "11": "J", "12": "Q", "13": "K"}
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]


def cards_shown(text: str, tiles: bool) -> Counter[str]:
    found: Counter[str] = Counter()
    if tiles:
        for number, colour in TILE.findall(text):
            found[NUMBERS.get(number, number) + COLOURS[colour]] += 1
        found["JK"] += len(re.findall(r"\bjoker\b", text))
        return +found
    for m in SYMBOL_CARD.finditer(text):
        found[
            "JK"
            if m.group(0) == "JK"
            else ("T" if m.group(1) == "10" else m.group(1)) + SUITS[m.group(2)]
        ] += 1
    return found


def section(text: str, title: str) -> str:
    start = text.find(title)
    if start < 0:
        return ""
    end = text.find("\n\n", start)
    return text[start : end if end >= 0 else len(text)]


POSITIONS = positions()[::3]


@pytest.mark.parametrize(("label", "table"), POSITIONS, ids=[p[0] for p in POSITIONS])
def test_text_shows_the_hand_and_nothing_hidden(label: str, table: Table) -> None:
    tiles = table.rules.name == "tiles"
    for seat in (table.turn, (table.turn + 1) % table.players):
        view = player_view(table, seat)
        legal = legal_actions(table, seat).to_json()
        text = render_table_text(
            view,
            legal=legal,
            players=NAMES[: table.players],
            deadline="Fri 3 May 18:00 UTC",
            include_help=False,
        )
        body = "\n".join(line for line in text.splitlines() if not line.startswith("  Suits:"))
        visible = set(visible_cards(table, seat))
        shown = cards_shown(body, tiles)
        assert set(shown) <= visible, f"hidden cards shown: {set(shown) - visible}"
        # The hand, sorted and grouped, shows exactly the hand.
        hand_block = section(body, "YOUR HAND")
        assert cards_shown(hand_block, tiles) == Counter(table.hands[seat])
        # Commands in "what you can do" name only cards of the hand.
        todo = section(text, "WHAT YOU CAN DO NOW")
        for rank, suit in CODE.findall(todo):
            code = ("T" if rank == "10" else rank.upper()) + suit.upper()
            assert code in table.hands[seat] or code[0] in table.melds[table.side_of(seat)]
        if seat != table.turn:
            assert "nothing" in todo
        assert "Deadline: Fri 3 May 18:00 UTC" in text
        for s in range(table.players):
            assert NAMES[s] in text
        html = render_table_html(view, legal=legal, players=NAMES[: table.players], deadline=None)
        assert html.startswith("<div")
        html_body = re.sub(r"<[^>]+>", "", html.split("<pre>")[0]).replace("10s, JK", "")
        assert set(cards_shown(html_body, tiles)) <= visible


@pytest.mark.parametrize(("label", "table"), POSITIONS[:12], ids=[p[0] for p in POSITIONS[:12]])
def test_listed_commands_parse_back(label: str, table: Table) -> None:
    view = player_view(table, table.turn)
    legal = legal_actions(table).to_json()
    todo = section(render_table_text(view, legal=legal, include_help=False), "WHAT YOU CAN DO NOW")
    for line in todo.splitlines()[1:]:
        command = line.strip().split("   (")[0]
        if command.startswith("go out now:"):
            command = command.removeprefix("go out now:")
        if command.startswith("discard <card>, one of:"):
            first = (
                command.split(":")[1].strip().split(", " if view["variant"] == "tiles" else " ")[0]
            )
            command = f"discard {first}"
        if command.startswith("..."):
            continue
        assert parse_commands(command, view).actions, command


def _view(**extra: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "seat": 0,
        "hand": ["AS", "AH", "KD", "9C", "9C", "7H", "2C", "JK", "3S"],
        "variant": "classic",
        "players": 4,
        "dealer": 3,
        "turn": 0,
        "phase": "draw",
        "scores": [1230, 870],
        "discard": ["5C", "2D", "TS"],
        "melds": [
            {"K": ["KS", "KH", "KD", "2C"], "9": ["9S", "9S", "9H", "9D", "9D", "9H", "9C", "9S"]},
            {"Q": ["QS", "QH", "QD", "JK", "2H", "QC", "QC"]},
        ],
        "red_threes": [["3H"], []],
        "hand_sizes": [9, 11, 7, 11],
        "stock_size": 62,
        "melded": [True, True, False, False],
        "frozen": True,
        "minimum": 0,
    }
    view.update(extra)
    return view


def test_layout_of_a_classic_table() -> None:
    text = render_table_text(_view(), legal=None, players=NAMES[:4], deadline=None)
    assert "A♠ A♥ | K♦ | 9♣ 9♣ | 7♥ | 3♠ | 2♣ JK" in text
    assert "YOUR HAND (9 cards)" in text
    assert "K: K♠ K♥ K♦ 2♣ — 4 cards" in text
    assert "9: 9♠ 9♠ 9♠ 9♥ 9♥ 9♦ 9♦ 9♣ — CANASTA (natural), 8 cards" in text
    assert "Q: Q♠ Q♥ Q♦ Q♣ Q♣ 2♥ JK — CANASTA (mixed), 7 cards" in text
    assert "3 cards, top: 10♠ — FROZEN for your side" in text
    assert "Red threes: 3♥" in text
    assert "Stock: 62 cards" in text
    assert "score 1,230" in text and "score 870" in text
    assert "Your side (you & Carol)" in text and "Bob & Dave" in text
    assert "It is your turn: draw from the stock or take the discard pile." in text
    assert "Alice (you)" in text and "<- to play" in text
    assert "HOW TO REPLY" in text
    assert "WHAT YOU CAN DO NOW" not in text  # no legal actions given


def test_initial_meld_and_turn_lines() -> None:
    view = _view(melds=[{}, {}], minimum=50, turn=1, frozen=False)
    text = render_table_text(view, legal={"draw": False}, players=None, deadline=None)
    assert "first meld must be worth at least 50 points" in text
    assert "Your side's initial meld: at least 50 points." in text
    assert "It is Seat 2's turn." in text
    assert "— not frozen" in text
    assert "nothing: it is not your turn" in text


def test_answer_and_partner_answer_lines() -> None:
    asked = _view(phase="answer", turn=2, asked_by=0, seat=2, hand=["4C", "4D"])
    text = render_table_text(
        asked,
        legal={"answers": [{"type": "answer", "yes": True}, {"type": "answer", "yes": False}]},
        players=NAMES[:4],
        deadline=None,
    )
    assert 'Alice asks you: "may I go out?" Answer yes or no.' in text
    assert "  yes\n  no" in text
    must = _view(phase="play", go_out=True)
    assert "you must go out this turn" in render_table_text(must, include_help=False)
    over = _view(phase="over", ended={"reason": "went_out", "went_out": 1, "concealed": False})
    assert "The hand is over: Bob went out." in render_table_text(
        over, players=NAMES, include_help=False
    )


def test_legal_section() -> None:
    legal = {
        "draw": True,
        "pickups": [{"type": "pickup", "cards": ["9C", "9C"]}],
        "melds": [],
        "adds": [],
        "going_out": [],
        "discards": [],
        "ask_partner": False,
        "answers": [],
    }
    text = render_table_text(_view(), legal=legal, include_help=False)
    assert "WHAT YOU CAN DO NOW\n  draw\n  take with 9c 9c" in text
    play = {
        "draw": False,
        "melds": [{"type": "meld", "melds": [["AS", "AH", "2C"]]}],
        "adds": [{"type": "meld", "add": {"K": ["KD"]}}],
        "going_out": [
            {"type": "meld", "melds": [["AS", "AH", "2C"]]},
            {"type": "discard", "card": "7H"},
        ],
        "discards": ["7H", "AS", "9C"],
    }
    text = render_table_text(_view(phase="play"), legal=play, include_help=False)
    assert "go out now:  meld As Ah 2c; discard 7h" in text
    assert "  add Kd to kings" in text
    assert "  discard <card>, one of: As 9c 7h" in text


def test_tiles_show_tiles() -> None:
    view = _view(
        variant="tiles",
        hand=["AC", "KC", "7H", "2S", "JK"],
        discard=["5C"],
        melds=[{"2": ["2S", "2H", "2D", "2C", "2S", "2H", "2D"]}, {}],
        red_threes=[["3H"], ["3D"]],
        display={
            "AC": "1 blue",
            "KC": "13 blue",
            "7H": "7 red",
            "2S": "2 black",
            "JK": "joker",
            "5C": "5 blue",
            "3H": "3 red",
            "3D": "3 yellow",
            "2H": "2 red",
            "2D": "2 yellow",
            "2C": "2 blue",
        },
    )
    text = render_table_text(view, legal={"discards": ["AC", "KC"]}, include_help=True)
    assert "1 blue | 13 blue | 7 red | 2 black, joker" in text
    assert "YOUR HAND (5 tiles)" in text
    assert (
        "Twos: 2 black, 2 black, 2 red, 2 red, 2 yellow, 2 yellow, 2 blue — CANASTA (twos, clean), 7 tiles"
        in text
    )
    assert "top: 5 blue (taking it needs a natural pair)" in text
    assert "♠" not in text.split("HOW TO REPLY")[0]
    assert "discard <card>, one of: 1 blue, 13 blue" in text
    assert "7 red" in text.split("HOW TO REPLY")[1]  # tiles help


def test_card_labels() -> None:
    assert card_label("TS", "classic") == "10♠"
    assert card_label("JK", "classic") == "JK"
    assert card_label("AC", "tiles") == "1 blue"
    assert card_label("AC", "tiles", {"AC": "1 blue (ace)"}) == "1 blue (ace)"


def test_spectator_and_odd_views_render() -> None:
    spectator = {k: v for k, v in _view().items() if k not in ("seat", "hand")}
    text = render_table_text(spectator, include_help=False)
    assert "YOUR HAND" not in text and "you" not in text.split("MELDS")[1]
    # {"hand": 2}: a hand number where the cards should be (engine player_view, hand >= 2).
    for view in ({}, {"variant": "nope", "melds": "x", "players": 2}, _view(hand=2)):
        render_table_text(view)
        render_table_html(view)


def test_html_is_escaped() -> None:
    names = ["<script>alert(1)</script>", "Bob & Co", "Carol", "Dave"]
    html = render_table_html(_view(), legal=None, players=names, deadline="<b>soon</b>")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;b&gt;soon&lt;/b&gt;" in html
    assert "Bob &amp; Co" in html
    assert "A♠" in html and "K♦" in html
