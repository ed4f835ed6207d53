"""What an event carries for one reader, built when it is read from the event's public facts
and what that reader's seat may see: the move log filtered by engine.event_for, a player view
(engine.player_view) of the table as it stood at the event. Events store no card and no
per-player copy (clients/models.py), so a feed answer or a webhook body can never show a
hidden card: each is made for its reader's seat alone.

The feed and webhooks send the same JSON for an event (`event_entry`):

    {"id": 42, "kind": "move", "game": "<uuid>", "seq": 17, "created_at": "...Z",
     "data": {...}}

`data` has `game` (id, url, variant, players), `seat` (the reader's) and `names` (by seat),
plus per kind: move: `moves` (log entries as on GET /games/{id}/moves/), `version`, `turn`,
`status`; your_turn: `view`, `legal`, `actions`, `version`, `deadline`; hand_over: `hand_result`, `totals`;
match_over: `totals`, `winner_side`, `reason`; timeout: `timed_out_seat`, `policy`,
`handed_to_bot`, `view`, `deadline`.

The stored facts per kind: move: version, turn, status (only when not "active"; the moves
are the log's first_seq..seq); your_turn: version, deadline (only when there is one); hand_over: hand_result, totals; match_over: totals,
winner_side, reason; timeout: timed_out_seat, policy, handed_to_bot, deadline.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games import engine
from games.engine import Table
from games.models import Game, Move, Seat, SeatKind
from games.movelog import game_moves
from games.readmodel import iso, move_entry
from games.services.replay import table_after
from notifications.payloads import game_data, seat_names


def event_entry(event: Any) -> dict[str, Any]:
    """An event as the feed lists it and a webhook receives it (`payload`: its data for the
    reader, set by events_render)."""
    return {
        "id": event.pk,
        "kind": event.kind,
        "game": str(event.game_id),
        "seq": event.seq,
        "created_at": iso(event.created_at),
        "data": event.payload,
    }


RESULT_KEYS = ("totals", "winner_side", "reason")


class _Reading:
    """What one render needs, read once per game: seats, the batches' moves, past tables."""

    def __init__(self, events: Sequence[Any]) -> None:
        game_ids = {event.game_id for event in events}
        self.games = {
            game.pk: game
            for game in Game.objects.filter(pk__in=game_ids).prefetch_related("seats__user")
        }
        self.moves: dict[Any, dict[int, Move]] = {game_id: {} for game_id in game_ids}
        wanted = [event for event in events if event.kind == "move"]
        for game_id in game_ids:
            ranges = [(e.first_seq or e.seq, e.seq) for e in wanted if e.game_id == game_id]
            if ranges and game_id in self.games:
                low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
                # Through games.movelog: an event's moves may be packed already.
                rows = game_moves(self.games[game_id], after=low - 1, upto=high)
                self.moves[game_id] = {move.seq: move for move in rows}
        self.tables: dict[tuple[Any, int], Table | None] = {}

    def table(self, game: Game, seq: int) -> Table | None:
        key = (game.pk, seq)
        if key not in self.tables:
            self.tables[key] = table_after(game=game, seq=seq)
        return self.tables[key]


def seat_of(game: Game, user_id: int) -> int | None:
    """The seat a person plays at the table (None: not seated as a person)."""
    for seat in game.seats.all():
        if seat.user_id == user_id and seat.kind == SeatKind.HUMAN:
            return seat.number
    return None


def _view(reading: _Reading, game: Game, seq: int, seat: int | None) -> dict[str, Any] | None:
    table = reading.table(game, seq)
    return engine.player_view(table, seat) if table is not None else None


def _data(reading: _Reading, event: Any, game: Game, seat: int | None) -> dict[str, Any]:
    facts = event.facts
    data: dict[str, Any] = {"game": game_data(game), "seat": seat, "names": seat_names(game)}
    if event.kind == "move":
        batch = reading.moves[game.pk]
        moves = [batch[n] for n in range(event.first_seq or event.seq, event.seq + 1) if n in batch]
        data["moves"] = [move_entry(move, seat) for move in moves]
        data.update(version=facts.get("version"), turn=facts.get("turn"))
        data["status"] = facts.get("status", "active")
    elif event.kind == "your_turn":
        table = reading.table(game, event.seq)
        data["view"] = engine.player_view(table, seat) if table is not None else None
        legal = engine.legal_actions(table, seat) if table and seat is not None else None
        data.update(
            legal=legal.to_json() if legal is not None else None,
            # Concrete actions, each accepted as it is by POST .../actions/, and the version
            # to send with them: the turn needs no GET first.
            actions=legal.actions() if legal is not None else [],
            version=facts.get("version"),
            deadline=facts.get("deadline"),
        )
    elif event.kind == "timeout":
        for key in ("timed_out_seat", "policy", "handed_to_bot"):
            data[key] = facts.get(key)
        data["view"] = _view(reading, game, event.seq, seat)
        data["deadline"] = facts.get("deadline")
    else:  # hand_over, match_over: public results, in the order they always had
        keys = ("hand_result", "totals") if event.kind == "hand_over" else RESULT_KEYS
        data.update((key, facts.get(key)) for key in keys)
    return data


def events_render(events: Iterable[Any], *, user_id: int) -> list[Any]:
    """Set each event's `payload` to its data as `user_id` may see it (their seat at its
    game); returns the events. Reads the games, the batches' moves and past tables once."""
    events = list(events)
    if not events:
        return events
    reading = _Reading(events)
    for event in events:
        game = reading.games[event.game_id]
        event.payload = _data(reading, event, game, seat_of(game, user_id))
    return events


def reader_ids(game: Game) -> list[int]:
    """The ids of the people seated at a game (seats_of), in order: an event's readers."""
    return sorted({seat.user_id for seat in seats_of(game) if seat.user_id is not None})


def seats_of(game: Game) -> list[Seat]:
    """The people seated at a game: who an event of that game reaches."""
    return [
        seat
        for seat in game.seats.all()
        if seat.user_id is not None and seat.kind == SeatKind.HUMAN and seat.number is not None
    ]
