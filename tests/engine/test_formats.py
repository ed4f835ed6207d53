"""Card codes, Table JSON and actions (docs/formats.md) in both directions."""

from __future__ import annotations

import copy

import pytest

from games.engine import EngineError, InvalidTableError, apply, from_json, parse_action, parse_card
from games.engine.actions import action_to_json

from .test_scenarios import TABLE


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("7h", "7H"),
        ("10s", "TS"),
        ("Td", "TD"),
        ("jk", "JK"),
        (" qc ", "QC"),
        ("A♠", "AS"),
        ("10♥", "TH"),
    ],
)
def test_it_reads_card_codes_forgivingly(text, code):
    assert parse_card(text) == code


@pytest.mark.parametrize("text", ["1S", "ZZ", "", "JKK", "11H", 7, None, "3X"])
def test_it_refuses_unknown_card_codes_naming_them(text):
    with pytest.raises(EngineError) as err:
        parse_card(text)
    assert err.value.code == "invalid_action"
    assert repr(text) in err.value.message


def test_the_documented_example_table_round_trips_exactly():
    table = copy.deepcopy(TABLE)
    table["options"] = {"black_three": "freeze"}
    assert from_json(table).to_json() == table


def test_optional_keys_stay_out_when_they_were_left_out():
    table = copy.deepcopy(TABLE)
    del table["melded"]
    assert from_json(table).to_json() == table


def test_lower_case_input_comes_out_canonical():
    table = copy.deepcopy(TABLE)
    table["hands"][0] = ["7h", "10d", "ks"]
    assert from_json(table).to_json()["hands"][0] == ["7H", "TD", "KS"]


def _mutate(**changes):
    table = copy.deepcopy(TABLE)
    table.update(changes)
    return table


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        ("not a table", "JSON object"),
        (_mutate(variant="bridge"), "unknown variant"),
        (_mutate(players=3), "classic is played by"),
        (_mutate(turn=4), "turn"),
        (_mutate(phase="nap"), "phase"),
        (_mutate(phase="discard"), "phase discard"),
        (_mutate(phase="answer"), "ask_partner"),
        (_mutate(scores=[0]), "scores"),
        (_mutate(scores=[0, "x"]), "integers"),
        (_mutate(hands=[["7H"], [], []]), "hands"),
        (_mutate(hands=[["3H"], [], [], []]), "red three"),
        (_mutate(hands=[["XX"], [], [], []]), "unknown card"),
        (_mutate(stock=["JK"] * 5), "JK appears"),
        (_mutate(melds=[{"K": ["KH", "KD"]}, {}]), "at least 3"),
        (_mutate(melds=[{"K": ["KH", "KD", "QC"]}, {}]), "mixed ranks"),
        (_mutate(melds=[{"Q": ["KH", "KD", "KC"]}, {}]), "another meld"),
        (_mutate(melds=[{"K": ["KH", "2D", "JK"]}, {}]), "natural"),
        (_mutate(melds=[{"Z": ["KH", "KD", "KC"]}, {}]), "meld key"),
        (_mutate(red_threes=[["3S"], []]), "not a red three"),
        (_mutate(options={"colour": "red"}), "unknown option"),
        (_mutate(options={"black_three": "melt"}), "black_three"),
        (_mutate(options={"target": "lots"}), "target"),
        (_mutate(melded=[True]), "melded"),
        (_mutate(extra=1), "unknown table keys"),
        (_mutate(ended={"reason": "went_out"}), "ended"),
    ],
)
def test_it_refuses_impossible_tables_with_invalid_table(table, fragment):
    with pytest.raises(InvalidTableError) as err:
        from_json(table)
    assert err.value.code == "invalid_table"
    assert fragment in err.value.message


@pytest.mark.parametrize(
    "action",
    [
        None,
        [],
        {"type": "fly"},
        {"kind": "draw"},
        {"type": "draw", "cards": ["7H"]},
        {"type": "discard"},
        {"type": "discard", "card": "QQ"},
        {"type": "meld"},
        {"type": "meld", "melds": "7H 7D 7S"},
        {"type": "meld", "melds": [["7H", 7]]},
        {"type": "meld", "add": {"Z": ["7H"]}},
        {"type": "meld", "add": {"K": []}},
        {"type": "meld", "add": ["K"]},
        {"type": "pickup", "cards": []},
        {"type": "pickup", "cards": ["7H"] * 500},
        {"type": "answer"},
        {"type": "answer", "yes": "yes"},
    ],
)
def test_malformed_actions_are_invalid_action_and_change_nothing(action):
    table = from_json(TABLE)
    before = table.to_json()
    with pytest.raises(EngineError) as err:
        apply(table, 0, action)
    assert err.value.code == "invalid_action"
    assert table.to_json() == before


@pytest.mark.parametrize(
    "action",
    [
        {"type": "draw"},
        {"type": "pickup", "cards": ["7H", "7D"], "melds": [["KS", "KH", "KD"]]},
        {"type": "pickup"},
        {"type": "meld", "melds": [["7H", "7D", "7S"]], "add": {"K": ["KH", "2C"]}},
        {"type": "discard", "card": "9C"},
        {"type": "ask_partner"},
        {"type": "answer", "yes": False},
    ],
)
def test_actions_round_trip_through_their_canonical_json(action):
    assert action_to_json(parse_action(action)) == action


def test_an_action_can_name_meld_ranks_forgivingly():
    parsed = parse_action({"type": "meld", "add": {"10": ["10h"], "k": ["kd"]}})
    assert action_to_json(parsed) == {"type": "meld", "add": {"T": ["TH"], "K": ["KD"]}}
