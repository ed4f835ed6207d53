"""The read model of a game: the plain dicts the API answers with and the pages draw from
(docs/architecture.md, "The layers": hot read paths build plain dicts). api.presenters and web.presenters both use it.

Every card that leaves the server passes through here, and only through the engine's filters:
engine.player_view for tables and engine.event_for for the move log. A hand's seed is shown
only once the hand is over. The serializers in api/serializers/ describe these shapes for
the OpenAPI schema. Absences (kept by notifications) come through games.hooks.absences_of.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, TypedDict

from django.utils import timezone

from games import engine, hooks
from games.engine import Table
from games.models import Game, GameState, GameStatus, Hand, Move, Seat, SeatKind, SeatStatus
from games.players import player_name

# The shapes below are the API's payloads; api/serializers/ describes each for the OpenAPI
# schema, and tests/api/test_payload_types.py checks that both name the same fields.


class MoveEntry(TypedDict):
    seq: int
    hand: int
    seat: int
    actor: str
    action: dict[str, Any]
    events: list[dict[str, Any]]
    created_at: str | None


class AbsenceEntry(TypedDict):
    starts_at: str | None
    ends_at: str | None


class Presence(TypedDict):
    presence: str
    bot_level: str | None
    stand_in: str | None
    timeouts_in_a_row: int


class SeatEntry(Presence):
    seat: int | None
    side: int | None
    username: str | None
    kind: str
    status: str
    drew: str | None
    absent: list[AbsenceEntry]


class ResultEntry(TypedDict):
    reason: str
    winner: int | None


class HandNumber(TypedDict):
    number: int
    commitment: str


class Mine(TypedDict):
    my_seat: int | None
    my_side: int | None
    my_status: str | None
    my_turn: bool


class GameSummary(Mine):
    id: str
    variant: str
    players: int
    public: bool
    rated: bool
    status: str
    version: int
    created_by: str
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    turn: int | None
    turn_started_at: str | None
    deadline: str | None
    weekend_pause: bool
    moves: int
    totals: list[int] | None
    seats: list[SeatEntry]
    result: ResultEntry | None


class GameDetail(GameSummary):
    options: dict[str, Any]
    turn_seconds: int | None
    timeout_policy: str
    seating_seed: str | None
    current_hand: HandNumber | None
    table: dict[str, Any] | None


class HandEntry(TypedDict):
    number: int
    dealer: int
    commitment: str
    seed: str | None
    started_at: str | None
    finished_at: str | None
    end_reason: str | None
    scores: list[int] | None
    totals: list[int] | None
    result: dict[str, Any] | None


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else None


def move_entry(move: Move, viewer: int | None) -> MoveEntry:
    """One log entry as `viewer` may see it (the API's move log, the feed's `move` events and
    the game page's history all show this shape)."""
    return {
        "seq": move.seq,
        "hand": move.hand,
        "seat": move.seat,
        "actor": move.actor,
        "action": move.action,
        "events": [engine.event_for(event, viewer) for event in move.events],
        "created_at": iso(move.created_at),
    }


# user id -> that player's current and coming absences, as shown to everyone at the table.
Absences = Mapping[Any, list[AbsenceEntry]]

# Absences matter while a game can still wait for someone; a finished game shows none.
_WAITING = (GameStatus.OPEN, GameStatus.ACTIVE)


def viewer_seat(seat: Seat | None) -> int | None:
    """The seat whose cards the caller may see: a joined seat of a started game, else None."""
    if seat is None or seat.status != SeatStatus.JOINED:
        return None
    return seat.number


def etag(game: Game, seat: Seat | None) -> str:
    number = viewer_seat(seat)
    return f'W/"{game.pk}-{game.version}-{"spectator" if number is None else number}"'


def game_state(game: Game) -> GameState | None:
    """The game's snapshot row, None before the start (or for a table cancelled then)."""
    if game.status == GameStatus.OPEN:
        return None
    try:
        return game.state
    except GameState.DoesNotExist:
        return None  # a table cancelled before it started


def absences_for(games: Iterable[Game]) -> dict[Any, list[AbsenceEntry]]:
    """The current and coming absences of everyone seated at ``games``: one query for all of
    them (a page of games included), none when no game is waiting for anyone or the seats
    were loaded knowing that nobody is absent."""
    seats = [
        seat
        for game in games
        if game.status in _WAITING
        for seat in game.seats.all()
        if seat.user_id is not None
    ]
    found: dict[Any, list[AbsenceEntry]] = {}
    # Seats loaded by games.services.common.game_lock say whether their user may be absent
    # (games.hooks.seat_annotations): none is, so there is nothing to read.
    if all(getattr(seat, "may_be_absent", True) is False for seat in seats):
        return found
    user_ids = {seat.user_id for seat in seats}
    for user_id, starts_at, ends_at in hooks.absences_of(
        user_ids=sorted(user_ids), now=timezone.now()
    ):
        found.setdefault(user_id, []).append({"starts_at": iso(starts_at), "ends_at": iso(ends_at)})
    return found


def _presence(seat: Seat) -> Presence:
    """What partners and opponents see of a seat: human, away (a bot stands in), or bot."""
    level = seat.bot_level or "basic"
    is_bot = seat.kind == SeatKind.BOT
    return {
        "presence": seat.status_label,
        "bot_level": level if is_bot else None,
        "stand_in": level if seat.away and not is_bot else None,
        "timeouts_in_a_row": seat.timeouts_in_a_row,
    }


def _seat(game: Game, seat: Seat, absences: Absences) -> SeatEntry:
    return {
        "seat": seat.number,
        "side": seat.number % game.sides if seat.number is not None else None,
        "username": player_name(seat.user) if seat.user_id else None,
        "kind": seat.kind,
        "status": seat.status,
        "drew": seat.drew or None,
        **_presence(seat),
        "absent": list(absences.get(seat.user_id, ())) if game.status in _WAITING else [],
    }


def _seats(game: Game, absences: Absences) -> list[SeatEntry]:
    ordered = sorted(
        game.seats.all(), key=lambda s: (s.number is None, s.number, s.created_at, s.pk)
    )
    return [_seat(game, seat, absences) for seat in ordered]


def _result(game: Game) -> ResultEntry | None:
    if not game.end_reason:
        return None
    return {"reason": game.end_reason, "winner": game.winner_side}


def _mine(game: Game, seat: Seat | None) -> Mine:
    number = viewer_seat(seat)
    return {
        "my_seat": number,
        "my_side": number % game.sides if number is not None else None,
        "my_status": seat.status if seat is not None else None,
        "my_turn": number is not None and game.turn_seat == number,
    }


def game_summary(game: Game, seat: Seat | None, absences: Absences | None = None) -> GameSummary:
    """A game without its table, for lists.

    ``absences``: absences_for() of a whole page of games; None reads this game's (a query).
    """
    state = game_state(game)
    if absences is None:
        absences = absences_for([game])
    return {
        "id": str(game.pk),
        "variant": game.variant,
        "players": game.players,
        "public": game.is_public,
        "rated": game.rated,
        "status": game.status,
        "version": game.version,
        "created_by": game.created_by.get_username(),
        "created_at": iso(game.created_at),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "turn": game.turn_seat,
        "turn_started_at": iso(game.turn_started_at),
        "deadline": iso(game.deadline),
        "weekend_pause": game.weekend_pause,
        "moves": game.last_seq,
        "totals": list(state.totals) if state is not None else None,
        "seats": _seats(game, absences),
        "result": _result(game),
        **_mine(game, seat),
    }


def game_detail(
    game: Game, seat: Seat | None, table: Table | None = None, absences: Absences | None = None
) -> GameDetail:
    """The game as ``seat`` sees it, with `table` = the engine's Player view for that seat.

    ``table`` may pass the engine Table the caller already holds, sparing a parse.
    """
    state = game_state(game)
    body: GameDetail = {
        **game_summary(game, seat, absences),
        "options": dict(game.options),
        "turn_seconds": game.turn_seconds,
        "timeout_policy": game.timeout_policy,
        "seating_seed": game.seating_seed or None,
        "current_hand": None,
        "table": None,
    }
    if state is not None:
        if table is None:
            table = engine.from_json(state.table)
        body["current_hand"] = {"number": table.hand, "commitment": state.hand_commitment}
        body["table"] = engine.player_view(table, viewer_seat(seat))
    return body


def hand_entry(hand: Hand) -> HandEntry:
    over = hand.finished_at is not None
    return {
        "number": hand.number,
        "dealer": hand.dealer,
        "commitment": hand.commitment,
        # docs/fair-shuffle.md: the seed is secret until the hand is over.
        "seed": hand.seed if over else None,
        "started_at": iso(hand.started_at),
        "finished_at": iso(hand.finished_at),
        "end_reason": hand.end_reason or None,
        "scores": hand.result["scores"] if hand.result else None,
        "totals": hand.result["totals"] if hand.result else None,
        "result": hand.result,
    }
