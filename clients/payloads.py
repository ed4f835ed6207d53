"""What an event carries, built when it happens from what its recipient may see: their player
view (engine.player_view), the log filtered by engine.event_for, public results. A stored
payload, a feed answer and a webhook body can therefore never show a hidden card.

The feed and webhooks send the same JSON for an event (`event_entry`):

    {"id": 42, "kind": "move", "game": "<uuid>", "seq": 17, "created_at": "...Z",
     "data": {...}}

`data` has `game` (id, url, variant, players), `seat` (the recipient's) and `names` (by seat),
plus per kind: move: `moves` (log entries as on GET /games/{id}/moves/), `version`, `turn`,
`status`; your_turn: `view`, `legal`, `deadline`; hand_over: `hand_result`, `totals`;
match_over: `totals`, `winner_side`, `reason`; timeout: `timed_out_seat`, `policy`,
`handed_to_bot`, `view`, `deadline`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from games import engine
from games.models import Game, Move
from notifications.payloads import game_data, seat_names


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else None


def move_entry(move: Move, viewer: int | None) -> dict[str, Any]:
    """One log entry as `viewer` may see it: the same shape as api.presenters.move_entry (the
    game domain must not import the API; tests/clients check that the two agree)."""
    return {
        "seq": move.seq,
        "hand": move.hand,
        "seat": move.seat,
        "actor": move.actor,
        "action": move.action,
        "events": [engine.event_for(event, viewer) for event in move.events],
        "created_at": iso(move.created_at),
    }


def move_payload(*, game: Game, seat: int, moves: Iterable[Move]) -> dict[str, Any]:
    return {
        "game": game_data(game),
        "seat": seat,
        "names": seat_names(game),
        "moves": [move_entry(move, seat) for move in moves],
        "version": game.version,
        "turn": game.turn_seat,
        "status": game.status,
    }


def event_entry(event: Any) -> dict[str, Any]:
    """An event as the feed lists it and a webhook receives it."""
    return {
        "id": event.pk,
        "kind": event.kind,
        "game": str(event.game_id),
        "seq": event.seq,
        "created_at": iso(event.created_at),
        "data": event.payload,
    }
