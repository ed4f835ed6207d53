"""The game page's history: the latest moves of the log as sentences people read.

Events come through `api.presenters.move_entry`, which filters them with `engine.event_for`:
another player's drawn cards are a count here, never cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from api.presenters import move_entry
from games import selectors
from games.models import Game
from web import cards as shown

HISTORY_MOVES = 40

END_REASONS = {
    "went_out": "went out",
    "stock_exhausted": "the stock ran out",
    "red_three_last": "a red three was the last card of the stock",
}


def describe_move(
    entry: Mapping[str, Any],
    names: Mapping[int, str],
    variant: str,
    display: Mapping[str, str] | None = None,
    sides: Sequence[str] = (),
) -> list[list[Any]]:
    """Sentences for one move of the log: each a list of text parts and card lists."""

    def who(seat: Any) -> str:
        return names.get(seat, f"Seat {seat + 1}") if isinstance(seat, int) else "?"

    def cards(codes: Sequence[str]) -> dict[str, Any]:
        return {"cards": shown.cards(codes, variant, display)}

    noun = "tile" if variant == "tiles" else "card"
    lines: list[list[Any]] = []
    events = list(entry["events"])
    for i in range(len(events) - 1):
        # The engine reports a pickup's extra melds before the pickup itself; people tell it
        # the other way round.
        if events[i].get("type") == "meld" and events[i + 1].get("type") == "pickup":
            events[i], events[i + 1] = events[i + 1], events[i]
    action = entry.get("action") or {}
    for event in events:
        kind = event.get("type")
        seat = event.get("seat", entry["seat"])
        if kind == "draw":
            if "cards" in event:
                lines.append([f"{who(seat)} drew ", cards(event["cards"])])
            else:
                n = event.get("count", 1)
                lines.append([f"{who(seat)} drew {n} {noun}{'s' if n != 1 else ''}."])
        elif kind == "red_three":
            lines.append([f"{who(seat)} laid down a red three ", cards([event["card"]])])
        elif kind == "pickup":
            taken = event.get("cards", [])
            line = [f"{who(seat)} took the discard pile ({len(taken)} {noun}s): ", cards(taken)]
            if action.get("type") == "pickup" and action.get("cards"):
                line += [" with ", cards(action["cards"])]
            lines.append(line)
        elif kind == "meld":
            parts: list[Any] = [f"{who(seat)} "]
            new = event.get("melds") or []
            adds = event.get("add") or {}
            if not new and not adds:
                continue
            for i, meld in enumerate(new):
                parts += ["melded " if i == 0 else ", ", cards(meld)]
            for i, (key, added) in enumerate(adds.items()):
                lead = "; added " if new or i else "added "
                parts += [lead, cards(added), f" to {shown.meld_label(key, variant).lower()}"]
            lines.append(parts)
        elif kind == "discard":
            lines.append([f"{who(seat)} discarded ", cards([event["card"]])])
        elif kind == "ask_partner":
            lines.append([f"{who(seat)} asked “may I go out?”"])
        elif kind == "answer":
            lines.append([f"{who(seat)} answered {'yes' if event.get('yes') else 'no'}."])
        elif kind == "stock_out":
            lines.append([f"The stock ran out on {who(seat)}'s turn."])
        elif kind == "hand_over":
            if event.get("went_out") is not None:
                concealed = " concealed" if event.get("concealed") else ""
                lines.append([f"{who(event['went_out'])} went out{concealed}: the hand is over."])
            else:
                reason = END_REASONS.get(event.get("reason", ""), event.get("reason", ""))
                lines.append([f"The hand is over: {reason}."])
        elif kind == "hand_result":
            result = event.get("result") or {}
            scores = result.get("scores")
            text = f"Hand {event.get('hand')} scored"
            if scores:
                text += ": " + scores_text(scores, sides)
            lines.append([text + "."])
        elif kind == "deal":
            lines.append([f"Hand {event.get('hand')} is dealt by {who(event.get('dealer'))}."])
        elif kind == "resign":
            lines.append([f"{who(seat)} resigned."])
        elif kind == "match_over":
            lines.append(["The match is over."])
    if not lines:
        lines.append([f"{who(entry['seat'])}: {entry['action'].get('type', 'move')}"])
    return lines


def history(
    game: Game,
    names: Mapping[int, str],
    me: int | None,
    display: Mapping[str, str] | None,
    sides: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The latest moves grouped by hand, newest hand and newest move first."""
    hands: list[dict[str, Any]] = []
    for move in reversed(selectors.recent_moves(game=game, limit=HISTORY_MOVES)):
        entry = move_entry(move, me)
        if not hands or hands[-1]["number"] != move.hand:
            hands.append({"number": move.hand, "moves": []})
        hands[-1]["moves"].append(
            {
                "seq": move.seq,
                "actor": move.actor,
                "at": move.created_at,
                "lines": describe_move(entry, names, game.variant, display, sides),
            }
        )
    return hands


def scores_text(scores: Sequence[int], sides: Sequence[str] = ()) -> str:
    """``[725, 910]`` -> "Bot 1 & Bot 3 725, your side 910" (or "725 / 910" unnamed)."""
    if len(sides) != len(scores):
        return " / ".join(f"{s:,}" for s in scores)
    return ", ".join(f"{name} {score:,}" for name, score in zip(sides, scores, strict=True))
