"""Every legal action, written as a command and parsed back, is the same move for the engine."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import Table, apply, legal_actions, player_view
from games.mail.commands import format_action, format_actions, parse_commands
from tests.mail.positions import positions


def _normal_action(action: dict[str, Any]) -> dict[str, Any]:
    out = dict(action)
    if "cards" in out:
        out["cards"] = sorted(out["cards"])
    if "melds" in out:
        out["melds"] = sorted(sorted(m) for m in out["melds"])
    if "add" in out:
        out["add"] = {k: sorted(v) for k, v in sorted(out["add"].items())}
    return out


def _normal_table(t: Table) -> dict[str, Any]:
    data = t.to_json()
    data["hands"] = [sorted(h) for h in data["hands"]]
    data["melds"] = [{k: sorted(v) for k, v in side.items()} for side in data["melds"]]
    return data


def _same_effect(t: Table, seat: int, expected: list[dict[str, Any]], got: list[dict[str, Any]]):
    a, b = t, t
    for step_a, step_b in zip(expected, got, strict=True):
        a = apply(a, seat if a is t else a.turn, step_a).table
        b = apply(b, seat if b is t else b.turn, step_b).table
    assert _normal_table(a) == _normal_table(b)


POSITIONS = positions()


@pytest.mark.parametrize(("label", "table"), POSITIONS, ids=[p[0] for p in POSITIONS])
def test_every_legal_action_round_trips(label: str, table: Table) -> None:
    seat = table.turn
    view = player_view(table, seat)
    variant = view["variant"]
    legal = legal_actions(table, seat)
    actions = legal.actions()
    assert actions, "a position that is not over always has a legal action"
    for action in actions:
        line = format_action(action, variant)
        parsed = parse_commands(line, view)
        assert len(parsed) == 1, line
        got = parsed[0].action
        assert got is not None, line
        assert _normal_action(got) == _normal_action(action), line
        _same_effect(table, seat, [action], [got])
    if legal.going_out:
        line = format_actions(legal.going_out, variant)
        got_all = parse_commands(line, view).actions
        assert [_normal_action(a) for a in got_all] == [
            _normal_action(a) for a in legal.going_out
        ], line
        _same_effect(table, seat, legal.going_out, got_all)


def test_positions_cover_every_kind_of_action() -> None:
    kinds: set[str] = set()
    for _, table in POSITIONS:
        legal = legal_actions(table)
        for action in legal.actions():
            kinds.add(action["type"])
            if action["type"] == "pickup":
                kinds.add("pickup+cards" if "cards" in action else "pickup-alone")
                if "melds" in action:
                    kinds.add("pickup+melds")
            if action["type"] == "meld" and "add" in action and "melds" in action:
                kinds.add("meld+add")
        if legal.going_out:
            kinds.add("going_out")
    assert kinds >= {
        "draw",
        "pickup+cards",
        "pickup-alone",
        "pickup+melds",
        "meld",
        "meld+add",
        "discard",
        "ask_partner",
        "answer",
        "going_out",
    }
