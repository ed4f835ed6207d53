"""The command language of replies: every verb and its forgiving forms, and clean refusals."""

from __future__ import annotations

from typing import Any

import pytest

from games.mail.commands import (
    MAX_COMMANDS,
    MAX_LINE_LENGTH,
    CommandError,
    format_action,
    help_text,
    parse_commands,
)

# Seat 0 of a classic 4-player table: the side (seats 0 and 2) has melded kings and fives.
CLASSIC: dict[str, Any] = {
    "seat": 0,
    "variant": "classic",
    "players": 4,
    "turn": 0,
    "phase": "play",
    "hand": ["7H", "7D", "7S", "QH", "QD", "2C", "5C", "9C", "JK", "JS", "TH", "TD"],
    "melds": [{"K": ["KS", "KC", "KH"], "5": ["5S", "5H", "5D"]}, {}],
    "discard": ["4C", "7C"],
    "frozen": False,
    "minimum": 0,
}
# The same side with one meld only, in the draw phase, top card a 7.
ONE_MELD = {**CLASSIC, "phase": "draw", "melds": [{"K": ["KS", "KC", "KH"]}, {}]}
TILES: dict[str, Any] = {
    "seat": 1,
    "variant": "tiles",
    "players": 4,
    "turn": 1,
    "phase": "play",
    "hand": ["7H", "7D", "7S", "KC", "KH", "2S", "AC", "JK"],
    "melds": [{}, {"9": ["9S", "9H", "9D"]}],
    "discard": ["5C"],
    "frozen": True,
    "minimum": 0,
}
PARTY: dict[str, Any] = {
    **CLASSIC,
    "variant": "party",
    "players": 3,
    "melds": [{"W": ["JK", "JK", "2C"]}, {}, {}],
}


def one(text: str, view: dict[str, Any] = CLASSIC) -> dict[str, Any] | str:
    parsed = parse_commands(text, view)
    assert len(parsed) == 1
    command = parsed[0]
    return command.action if command.action is not None else command.service  # type: ignore[return-value]


def refused(text: str, view: dict[str, Any] = CLASSIC) -> CommandError:
    with pytest.raises(CommandError) as info:
        parse_commands(text, view)
    assert info.value.code == "invalid_action"
    return info.value


# --- draw -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["draw", "DRAW", "  Draw  ", "draw.", "Draw!", "draw a card", "draw from the stock", "- draw"],
)
def test_draw(text: str) -> None:
    assert one(text) == {"type": "draw"}


def test_draw_with_cards_is_refused() -> None:
    error = refused("draw 7h")
    assert "7h" in error.message


# --- take -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "take with 7h 7d",
        "pick up with 7h 7d",
        "pickup 7h 7d",
        "Take the pile with 7H, 7D",
        "take with 7♥ 7♦",
        "take with 7♥️ 7♦️",
        "take with 7♡ 7♢",
        "take with 7h7d",
        "take with 7 h 7 d",
        "take with 7 of hearts and 7 of diamonds",
        "take: 7h 7d",
    ],
)
def test_take_with_cards(text: str) -> None:
    assert one(text) == {"type": "pickup", "cards": ["7H", "7D"]}


def test_take_with_further_melds() -> None:
    action = one("take with 7h 7d and meld Qh Qd 2c, 10h 10d JK")
    assert action == {
        "type": "pickup",
        "cards": ["7H", "7D"],
        "melds": [["QH", "QD", "2C"], ["TH", "TD", "JK"]],
    }
    assert one("pick up with 7h 7d meld qh qd 2c") == {
        "type": "pickup",
        "cards": ["7H", "7D"],
        "melds": [["QH", "QD", "2C"]],
    }


def test_take_alone_joins_the_side_meld_of_the_top_rank() -> None:
    view = {**CLASSIC, "discard": ["4C", "KD"]}
    assert one("take", view) == {"type": "pickup"}
    assert one("take the pile", view) == {"type": "pickup"}


def test_take_alone_uses_the_natural_pair_otherwise() -> None:
    # No 7 meld: the top 7C is taken with two natural sevens of the hand.
    action = one("take", ONE_MELD)
    assert action["type"] == "pickup"
    assert sorted(action["cards"]) == ["7H", "7S"]  # two of 7H 7D 7S, always the same two
    # A frozen pile needs the pair even onto a meld.
    frozen = {**CLASSIC, "discard": ["4C", "KD"], "frozen": True, "hand": ["KH", "KD", "4S"]}
    assert one("take", frozen) == {"type": "pickup", "cards": ["KH", "KD"]}
    # family and tiles never take the top card alone.
    family = {**CLASSIC, "variant": "family", "discard": ["KD"], "hand": ["KH", "KS", "4S"]}
    assert one("take", family) == {"type": "pickup", "cards": ["KS", "KH"]}


def test_take_alone_with_one_natural_and_a_wild_asks_which() -> None:
    view = {**ONE_MELD, "hand": ["7H", "2C", "9S"]}
    error = refused("take", view)
    assert "take with 7h" in error.message


def test_take_alone_when_nothing_fits_is_left_to_the_engine() -> None:
    for pile in ([], ["4C", "2D"], ["JK"], ["3S"], ["4C", "AD"]):
        assert one("take", {**ONE_MELD, "discard": pile}) == {"type": "pickup"}


def test_take_cannot_add() -> None:
    error = refused("take with 7h 7d and add 5c")
    assert "add" in error.message


def test_take_with_nothing_is_refused() -> None:
    refused("take with")
    refused("take with and meld 7h 7d 7s")


# --- meld -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "meld 7h 7d 7s",
        "MELD 7H 7D 7S",
        "meld   7h    7d 7s  ",
        "meld 7h,7d,7s",
        "meld 7h, 7d, 7s",
        "meld 7h7d7s",
        "meld 7♥ 7♦ 7♠",
        "meld: 7h 7d 7s.",
        "* meld 7h 7d 7s",
        "1. meld 7h 7d 7s",
    ],
)
def test_meld_one(text: str) -> None:
    assert one(text) == {"type": "meld", "melds": [["7H", "7D", "7S"]]}


@pytest.mark.parametrize(
    "text",
    [
        "meld qh qd 2c, 7h 7d 7s",
        "meld qh qd 2c | 7h 7d 7s",
        "meld qh qd 2c and 7h 7d 7s",
        "meld qh,qd,2c and 7h,7d,7s",
        "meld qh qd 2c + 7h 7d 7s",
    ],
)
def test_meld_several(text: str) -> None:
    assert one(text) == {"type": "meld", "melds": [["QH", "QD", "2C"], ["7H", "7D", "7S"]]}


def test_meld_of_several_ranks_without_wild_cards_is_split_by_rank() -> None:
    assert one("meld 7h 7d 7s 10h 10d 10h") == {
        "type": "meld",
        "melds": [["7H", "7D", "7S"], ["TH", "TD", "TH"]],
    }


def test_meld_of_several_ranks_with_wild_cards_is_refused() -> None:
    error = refused("meld 7h 7d 2c qh qd qs")
    assert "commas" in error.message


def test_ten_forms() -> None:
    expected = {"type": "meld", "melds": [["TH", "TD", "TS"]]}
    assert one("meld 10h td Ts") == expected
    assert one("meld 10♥ 10♦ 10♠") == expected


@pytest.mark.parametrize("joker", ["jk", "JK", "joker", "Joker", "🃏"])
def test_joker_forms(joker: str) -> None:
    assert one(f"meld qh qd {joker}") == {"type": "meld", "melds": [["QH", "QD", "JK"]]}


def test_meld_and_add_in_one_move() -> None:
    assert one("meld 7h 7d 7s and add 5c to fives") == {
        "type": "meld",
        "melds": [["7H", "7D", "7S"]],
        "add": {"5": ["5C"]},
    }
    assert one("add 5c, meld 7h 7d 7s") == {
        "type": "meld",
        "melds": [["7H", "7D", "7S"]],
        "add": {"5": ["5C"]},
    }


def test_meld_without_cards_is_refused() -> None:
    refused("meld")
    refused("meld and add 5c")


# --- add ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "add 5c",
        "add 5c to 5s",
        "add 5c to 5",
        "add 5c to fives",
        "add 5c to the fives",
        "add 5c to the 5 meld",
        "add 5c to the fives meld",
        "add 5c onto 5h",
        "add 5♣ to 5's",
        "Add 5C To 5S",
    ],
)
def test_add_natural(text: str) -> None:
    assert one(text) == {"type": "meld", "add": {"5": ["5C"]}}


def test_add_wild_cards() -> None:
    assert one("add 2c to kings") == {"type": "meld", "add": {"K": ["2C"]}}
    assert one("add 2c to Ks") == {"type": "meld", "add": {"K": ["2C"]}}
    assert one("add 2c to k") == {"type": "meld", "add": {"K": ["2C"]}}
    assert one("add jk to the king meld") == {"type": "meld", "add": {"K": ["JK"]}}
    # With natural cards of one rank, the wild cards go with them.
    assert one("add 5c 2c") == {"type": "meld", "add": {"5": ["5C", "2C"]}}
    assert one("add 5c, 2c") == {"type": "meld", "add": {"5": ["5C", "2C"]}}
    # With the side's only meld.
    assert one("add 2c", ONE_MELD) == {"type": "meld", "add": {"K": ["2C"]}}


def test_add_wild_card_without_target_is_refused_when_ambiguous() -> None:
    error = refused("add 2c")  # kings and fives
    assert "add 2c to" in error.message
    refused("add 2c 5c 9c")


def test_add_wild_card_to_a_meld_started_in_the_same_reply() -> None:
    view = {**CLASSIC, "melds": [{}, {}]}
    parsed = parse_commands("meld 7h 7d 7s\nadd 2c", view)
    assert parsed.actions[1] == {"type": "meld", "add": {"7": ["2C"]}}
    assert one("meld 7h 7d 7s and add 2c", view) == {
        "type": "meld",
        "melds": [["7H", "7D", "7S"]],
        "add": {"7": ["2C"]},
    }


def test_add_several() -> None:
    assert one("add 5c to fives, 2c to kings") == {
        "type": "meld",
        "add": {"5": ["5C"], "K": ["2C"]},
    }
    assert one("add 5c and 2c to kings") == {"type": "meld", "add": {"5": ["5C"], "K": ["2C"]}}
    # Natural cards of several ranks go to their melds.
    assert one("add 5c kc") == {"type": "meld", "add": {"5": ["5C"], "K": ["KC"]}}


def test_add_party_joker_meld() -> None:
    assert one("add 2c to jokers", PARTY) == {"type": "meld", "add": {"W": ["2C"]}}
    assert one("add 2c to wild", PARTY) == {"type": "meld", "add": {"W": ["2C"]}}
    assert one("add 2c", PARTY) == {"type": "meld", "add": {"W": ["2C"]}}


def test_add_refusals() -> None:
    refused("add")
    refused("add to fives")
    assert "xyz" in refused("add 5c to xyz").message
    refused("add 5c to 5s 6s")


# --- discard, answers, ask, services ------------------------------------------------------


@pytest.mark.parametrize("text", ["discard 9c", "Discard 9C.", "discard 9♣", "discard the 9c"])
def test_discard(text: str) -> None:
    assert one(text) == {"type": "discard", "card": "9C"}


def test_discard_needs_exactly_one_card() -> None:
    refused("discard")
    refused("discard 9c 7h")


@pytest.mark.parametrize(
    ("text", "yes"), [("yes", True), ("Y", True), ("YES!", True), ("no", False), ("n", False)]
)
def test_answers(text: str, yes: bool) -> None:
    assert one(text) == {"type": "answer", "yes": yes}


@pytest.mark.parametrize("text", ["ask", "ask partner", "May I go out?", "can i go out"])
def test_ask(text: str) -> None:
    assert one(text) == {"type": "ask_partner"}


@pytest.mark.parametrize(
    ("text", "service"),
    [("resign", "resign"), ("RESIGN", "resign"), ("status", "status"), ("Help", "help")],
)
def test_services(text: str, service: str) -> None:
    parsed = parse_commands(text, CLASSIC)
    assert parsed.services == [service]
    assert parsed.actions == []
    assert parsed[0].kind == service and not parsed[0].is_action


def test_words_after_one_word_commands_are_refused() -> None:
    refused("resign now")
    refused("yes please")


# --- batches, lines, errors ---------------------------------------------------------------


def test_several_commands_keep_lines_and_order() -> None:
    text = "draw\n\nmeld 7h 7d 7s; add 5c\n   \ndiscard 9c\nstatus"
    parsed = parse_commands(text, CLASSIC)
    assert [c.kind for c in parsed] == ["draw", "meld", "meld", "discard", "status"]
    assert [c.line_number for c in parsed] == [1, 3, 3, 5, 6]
    assert [c.line for c in parsed] == ["draw", "meld 7h 7d 7s", "add 5c", "discard 9c", "status"]
    assert parsed.actions[1] == {"type": "meld", "melds": [["7H", "7D", "7S"]]}


def test_empty_reply_has_no_commands() -> None:
    assert len(parse_commands("", CLASSIC)) == 0
    assert len(parse_commands("\n \n ; ;\n", CLASSIC)) == 0


def test_chatter_is_refused_naming_the_line() -> None:
    error = refused("draw\nthanks!\ndiscard 9c")
    assert error.line_number == 2
    assert error.line == "thanks!"
    assert "thanks" in error.message
    assert "line 2" in str(error)


def test_bad_card_is_named() -> None:
    error = refused("meld 7h 7x 7s")
    assert "7x" in error.message
    assert error.line_number == 1
    assert "needs a suit" in refused("meld 7 7d 7s").message
    refused("meld 1h 1d 1s")  # 1 is a tile number, not a card rank
    refused("discard 7 red")  # colours are for tiles


def test_limits() -> None:
    parse_commands("\n".join(["status"] * MAX_COMMANDS), CLASSIC)
    error = refused("\n".join(["status"] * (MAX_COMMANDS + 1)))
    assert error.line_number == MAX_COMMANDS + 1
    refused("; ".join(["status"] * (MAX_COMMANDS + 1)))
    long_line = "meld " + "7h " * (MAX_LINE_LENGTH // 3)
    error = refused(long_line)
    assert "too long" in error.message
    parse_commands("\n" * 10_000 + "draw", CLASSIC)  # blank lines cost nothing
    refused("draw\n" * 100_000)  # too long altogether
    refused("meld " + "jk" * 200)  # more cards than a move may name


def test_any_view_is_accepted() -> None:
    odd = [None, {}, {"variant": 3, "hand": "x", "melds": [None], "seat": "a"}, [], {"hand": 2}]
    for view in odd:
        assert parse_commands("draw; take; add 5c; meld 7h 7d 7s", view).actions  # type: ignore[arg-type]


def test_non_text_is_refused() -> None:
    with pytest.raises(CommandError):
        parse_commands(None, CLASSIC)  # type: ignore[arg-type]


# --- tiles ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "meld 7 red 7 yellow 7 black",
        "meld 7h 7d 7s",
        "meld red 7, yellow 7, black 7",
        "meld 7red 7yellow 7black",
        "meld 7 Red, 7 YELLOW, 7 Black",
        "meld 7 h 7 d 7 s",
    ],
)
def test_tiles_words(text: str) -> None:
    assert one(text, TILES) == {"type": "meld", "melds": [["7H", "7D", "7S"]]}


def test_tiles_numbers() -> None:
    assert one("meld 13 blue 13 red joker", TILES) == {
        "type": "meld",
        "melds": [["KC", "KH", "JK"]],
    }
    assert one("discard 1 blue", TILES) == {"type": "discard", "card": "AC"}
    assert one("discard 11 red", TILES) == {"type": "discard", "card": "JH"}
    assert one("discard 1c", TILES) == {"type": "discard", "card": "AC"}
    assert one("add 9 blue to 9", TILES) == {"type": "meld", "add": {"9": ["9C"]}}
    assert one("add 2 black to 9", TILES) == {"type": "meld", "add": {"9": ["2S"]}}
    assert one("add 2 black", TILES) == {"type": "meld", "add": {"9": ["2S"]}}
    assert one("add 13 blue to 13", TILES) == {"type": "meld", "add": {"K": ["KC"]}}
    assert one("add 2 black to twos", TILES) == {"type": "meld", "add": {"2": ["2S"]}}
    assert one("take with 5 blue 5 red", TILES) == {"type": "pickup", "cards": ["5C", "5H"]}
    assert "14" in refused("discard 14 red", TILES).message


# --- format_action and help ---------------------------------------------------------------


def test_format_action() -> None:
    assert format_action({"type": "draw"}, "classic") == "draw"
    assert format_action({"type": "pickup"}, "classic") == "take"
    assert (
        format_action(
            {"type": "pickup", "cards": ["7H", "7D"], "melds": [["TH", "TD", "JK"]]}, "classic"
        )
        == "take with 7h 7d and meld 10h 10d JK"
    )
    assert (
        format_action(
            {"type": "meld", "melds": [["QH", "QD", "2C"]], "add": {"5": ["5C"]}}, "classic"
        )
        == "meld Qh Qd 2c and add 5c to fives"
    )
    assert format_action({"type": "meld", "add": {"W": ["2C"]}}, "party") == "add 2c to jokers"
    assert format_action({"type": "discard", "card": "AS"}, "classic") == "discard As"
    assert format_action({"type": "discard", "card": "KC"}, "tiles") == "discard 13 blue"
    assert format_action({"type": "meld", "add": {"K": ["JK"]}}, "tiles") == "add joker to 13"
    assert format_action({"type": "ask_partner"}, "classic") == "ask"
    assert format_action({"type": "answer", "yes": False}, "classic") == "no"
    with pytest.raises(ValueError):
        format_action({"type": "fly"}, "classic")


@pytest.mark.parametrize("variant", ["classic", "family", "party", "tiles"])
def test_help_examples_parse(variant: str) -> None:
    text = help_text(variant)
    assert "draw" in text and "discard" in text and "resign" in text
    view = {**(TILES if variant == "tiles" else CLASSIC), "variant": variant}
    # Every example command of the help (the first column of its table) parses.
    for line in text.splitlines():
        if line.startswith("  ") and line.strip() and not line.startswith("   "):
            command = line.strip().split("  ")[0]
            for part in command.split(" / "):
                parse_commands(part, view)
    example = next(line for line in text.splitlines() if line.startswith("Example: "))
    assert len(parse_commands(example.removeprefix("Example: "), view)) == 3


def test_turn_verbs_after_and_start_a_new_command() -> None:
    parsed = parse_commands("draw and meld 7h 7d 7s, then discard 9c", CLASSIC)
    assert [c.kind for c in parsed] == ["draw", "meld", "discard"]
    assert [c.line for c in parsed] == ["draw", "meld 7h 7d 7s", "discard 9c"]
    assert [c.line_number for c in parsed] == [1, 1, 1]
    # "and add" / "and meld" stay in the same move.
    assert len(parse_commands("meld 7h 7d 7s and add 5c", CLASSIC)) == 1
    assert parse_commands("pick-up with 7h 7d", CLASSIC).actions[0]["type"] == "pickup"


def test_single_cards_between_commas_form_one_meld() -> None:
    assert one("meld qh qd 2c, 7h, 7d, 7s") == {
        "type": "meld",
        "melds": [["QH", "QD", "2C"], ["7H", "7D", "7S"]],
    }
    assert one("meld 7h, 7d, 7s, 10h, 10d, 10s") == {
        "type": "meld",
        "melds": [["7H", "7D", "7S"], ["TH", "TD", "TS"]],
    }
    # A lone wild card after a comma is its own (invalid) meld: the engine says so.
    assert one("meld 7h 7d 7s, 2c") == {"type": "meld", "melds": [["7H", "7D", "7S"], ["2C"]]}
