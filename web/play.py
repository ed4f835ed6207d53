"""Direct play on the game page: what the engine allows now, and what just happened.

- ``legal``: the engine's legal actions for the viewer (games.engine.legal_actions) decide
  whether the stock and the pile are offered, and whether there is a "Go out" action (the
  engine's own way out: its actions, shown before they are played);
- ``drawn``: the cards the viewer drew or took from the pile this turn, highlighted;
- ``last_plays``: each other player's last turn in this hand, in words, and the cards they
  laid, highlighted in their side's melds;
- ``points``: each card's value, so the page adds up a selection against the initial-meld
  minimum.

Everything here comes from the viewer's own hand, the public table and the log through
`move_entry` (engine.event_for): nothing another player holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from api.presenters import move_entry
from games import engine, selectors
from games.engine import Table
from games.engine.melds import meld_key
from games.events import is_action, is_event
from games.models import Game
from web import cards as shown
from web.history import describe_move, move_how

# Moves read to find each player's last turn: a turn is a handful of moves.
RECENT = 30


def legal_for(table: Table, me: int | None, mine: bool) -> dict[str, Any]:
    if me is None or not mine or table.over:
        return {"draw": False, "pickup": False, "pickups": [], "going_out": []}
    legal = engine.legal_actions(table, me)
    return {
        "draw": legal.draw,
        "pickup": bool(legal.pickups),
        "pickups": legal.pickups,
        "going_out": legal.going_out,
    }


def going_out_lines(
    steps: Sequence[Mapping[str, Any]], variant: str, display: Mapping[str, str] | None
) -> list[list[Any]]:
    """The engine's way out as the page shows it before it is played."""

    def cards(codes: Sequence[str]) -> dict[str, Any]:
        return {"cards": shown.sorted_cards(codes, variant, display)}

    lines: list[list[Any]] = []
    for step in steps:
        if is_action(step, "meld"):
            for meld in step.get("melds") or []:
                lines.append([_("Meld") + " ", cards(meld)])
            for key, added in (step.get("add") or {}).items():
                label = shown.meld_label(key, variant)
                lines.append([_("Add to %(meld)s:") % {"meld": label} + " ", cards(added)])
        elif is_action(step, "discard"):
            lines.append([_("Discard") + " ", cards([step["card"]])])
    return lines


def _turns(rows: Sequence[Any], table: Table) -> dict[int, list[Any]]:
    """Each seat's last turn in the current hand: its latest run of consecutive moves."""
    turns: dict[int, list[Any]] = {}
    closed: set[int] = set()
    previous_seat: int | None = None
    for move in reversed(rows):
        if move.hand != table.hand:
            break
        seat = move.seat
        if seat in closed:
            previous_seat = seat
            continue
        if seat in turns and previous_seat != seat:
            closed.add(seat)
        else:
            turns.setdefault(seat, []).insert(0, move)
        previous_seat = seat
    return turns


def _laid(entries: Sequence[Mapping[str, Any]], rules: Any) -> dict[str, list[str]]:
    """Meld key -> the cards a turn laid there (new melds and additions)."""
    out: dict[str, list[str]] = {}
    for entry in entries:
        for event in entry["events"]:
            if not is_event(event, "meld"):
                continue
            for meld in event.get("melds") or []:
                try:
                    key = meld_key(rules, meld)
                except engine.EngineError:
                    continue
                out.setdefault(key, []).extend(meld)
            for key, added in (event.get("add") or {}).items():
                out.setdefault(key, []).extend(added)
    return out


def recent_play(
    game: Game,
    table: Table,
    me: int | None,
    names: Mapping[int, str],
    display: Mapping[str, str] | None,
) -> dict[str, Any]:
    """``drawn`` (my cards new this turn) and ``last_plays`` (the others' last turns)."""
    rows = selectors.recent_moves(game=game, limit=RECENT)
    following = {m.seq: (rows[i + 1] if i + 1 < len(rows) else None) for i, m in enumerate(rows)}
    drawn: list[str] = []
    plays = []
    for seat, moves in sorted(_turns(rows, table).items()):
        entries = [move_entry(m, me) for m in moves]
        if seat == me:
            if table.turn == me and table.phase in ("play", "answer"):
                for entry in entries:
                    for event in entry["events"]:
                        if is_event(event, "draw") or is_event(event, "pickup"):
                            drawn += list(event.get("cards") or [])
            continue
        lines = []
        for move, entry in zip(moves, entries, strict=True):
            how = move_how(move, following[move.seq])
            lines += describe_move(entry, names, game.variant, display, (), how)
        plays.append(
            {
                "seat": seat,
                "side": seat % game.sides,
                "name": names.get(seat, ""),
                "lines": lines,
                "laid": _laid(entries, table.rules),
            }
        )
    return {"drawn": drawn, "last_plays": plays}


def mark_fresh(
    melds: list[dict[str, Any]], laid: Mapping[str, Sequence[str]]
) -> list[dict[str, Any]]:
    """Mark the cards of ``melds`` that the side's last play laid (one mark per card laid)."""
    for meld in melds:
        wanted: dict[str, int] = {}
        for code in laid.get(meld["key"], ()):
            wanted[code] = wanted.get(code, 0) + 1
        fresh = 0
        for card in reversed(meld["cards"]):
            if wanted.get(card["code"], 0) > 0:
                card["fresh"] = True
                wanted[card["code"]] -= 1
                fresh += 1
        meld["fresh"] = fresh
    return melds


def mark_drawn(groups: list[dict[str, Any]], drawn: Sequence[str]) -> None:
    """Mark the hand's cards drawn this turn (one mark per card drawn)."""
    wanted: dict[str, int] = {}
    for code in drawn:
        wanted[code] = wanted.get(code, 0) + 1
    for group in groups:
        for card in reversed(group["cards"]):
            if wanted.get(card["code"], 0) > 0:
                card["new"] = True
                wanted[card["code"]] -= 1


def card_points(groups: list[dict[str, Any]], variant: str) -> None:
    """Each hand card's value (for the live count of a selection against the minimum)."""
    rules = engine.get_rules(variant)
    for group in groups:
        for card in group["cards"]:
            card["points"] = rules.card_value(card["code"])


def play_aids(
    game: Game,
    table: Table,
    me: int | None,
    mine: bool,
    names: Mapping[int, str],
    display: Mapping[str, str] | None,
) -> dict[str, Any]:
    legal = legal_for(table, me, mine)
    return {
        "legal": legal,
        "going_out": going_out_lines(legal["going_out"], game.variant, display),
        **recent_play(game, table, me, names, display),
    }
