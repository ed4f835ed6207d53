"""Helpers shared by the write services: loading a game under its row lock, finding the
caller's seat, the turn clock and ending a match."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from games.access import may_view, seat_of
from games.hooks import seat_annotations, seat_related
from games.models import EndReason, Game, GameStatus, Seat, SeatStatus
from games.services.compiled import SENTINEL_ID, SENTINEL_NOW, compiled_run, prefetched_set
from games.services.errors import ErrorKind, not_found, refused
from games.services.ratings import rating_update_for_match

# The database form of the moment the seat annotations are judged at (any DateTimeField's).
MOMENT_FIELD = Game._meta.get_field("deadline")


def game_lock(*, game_id: UUID | str, with_state: bool = True) -> Game:
    """The game row, locked until the end of the caller's transaction, with its seats.

    PostgreSQL: SELECT ... FOR UPDATE serialises writers of one game, so two moves racing on
    the same version queue here and the second sees the first's version bump. SQLite ignores
    FOR UPDATE but every transaction is BEGIN IMMEDIATE (settings.py), which takes the
    database's write lock up front and gives the same guarantee.

    One statement (docs/move-path-speed.md): the seat rows, each joined to the game (locked),
    its state, its creator and the seat's user with what the notifications of a move read
    about that user (games.hooks.seat_read_register: the apps above register it). Only a game
    without seats (never seen once created) takes a second query.
    """
    seats = compiled_run(
        shape=f"game_lock:{with_state}",
        model=Seat,
        build=lambda: _seats_locked(with_state=with_state),
        values={
            "game": (SENTINEL_ID, game_id, Game._meta.pk),
            "now": (SENTINEL_NOW, timezone.now(), MOMENT_FIELD),
        },
        shared=("game",),  # every row's game (and its state, its creator) is the one game
    )
    if not seats:
        return _game_lock_without_seats(game_id=game_id, with_state=with_state)
    game = seats[0].game
    for seat in seats:
        seat.game = game  # one Game object for all, as a prefetch would give
    prefetched_set(game, "seats", seats)
    return game


def _seats_locked(*, with_state: bool) -> QuerySet[Seat]:
    """game_lock's statement, with sentinels for its parameters (games.services.compiled)."""
    related = ["user", *seat_related(), "game", "game__created_by"]
    if with_state:
        related.append("game__state")
    # of=("self", "game"): the game row and its seat rows, not the users joined for reading.
    # Locking the seats too is what makes PostgreSQL re-read them: in READ COMMITTED a
    # statement that waited for a lock sees the newest version of the rows it locks only, every
    # other joined row as of the statement's start, so a caller that queued behind another
    # writer of the game would see the seats as they were before that writer's changes
    # (tests/integration/test_game_races.py). Seats are written under the game's lock only
    # (chat's rate-limit lock takes one seat and never the game), so no lock order changes.
    return (
        Seat.objects.select_for_update(of=("self", "game"))
        .select_related(*related)
        .annotate(**seat_annotations(now=SENTINEL_NOW))
        .filter(game_id=SENTINEL_ID)
        .order_by(*(Seat._meta.ordering or ()))
    )


def _game_lock_without_seats(*, game_id: UUID | str, with_state: bool) -> Game:
    # of=("self",): lock the game row only, not the creator's user row joined for display.
    queryset = (
        Game.objects.select_for_update(of=("self",))
        .select_related("created_by")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
    )
    if with_state:
        queryset = queryset.select_related("state")
    try:
        return queryset.get(pk=game_id)
    except Game.DoesNotExist:
        raise not_found() from None


def require_player(game: Game, user: Any) -> Seat:
    """The caller's joined, numbered seat, or the error a non-player gets."""
    seat = seat_of(game, user)
    if not may_view(game, seat):
        raise not_found()
    if seat is None or seat.status != SeatStatus.JOINED or seat.number is None:
        raise refused(ErrorKind.FORBIDDEN, "not_seated")
    return seat


def require_open_account(user: Any) -> None:
    """Refuse a seat to a closed account, holding its user row until the caller commits.

    Account deletion (accounts.services.deletion) closes the account under FOR UPDATE on the
    same row before it goes through the account's seats: a seat being taken at that moment
    commits first (and is then resigned or left by the deletion) or waits and is refused here.
    FOR NO KEY UPDATE: rows that only reference the user (seats, outbox rows) are not blocked.
    """
    open_account = (
        get_user_model()
        .objects.select_for_update(no_key=True)
        .filter(pk=user.pk, is_active=True)
        .exists()
    )
    if not open_account:
        raise refused(ErrorKind.FORBIDDEN, "account_closed")


def require_active(game: Game) -> None:
    if game.status != GameStatus.ACTIVE:
        raise refused(ErrorKind.CONFLICT, "game_not_active", {"status": game.status})


def require_version(game: Game, expected_version: int) -> None:
    if expected_version != game.version:
        raise refused(ErrorKind.CONFLICT, "stale_version", {"version": game.version})


def moves_logged_mark(game: Game, now: datetime) -> None:
    """Moves were logged as rows (in the caller's transaction, the game locked; saved with the
    game): from the first one on, the hourly archive task packs them a day later
    (games.services.coldmoves, along game_cold_moves_idx)."""
    if game.moves_cold_since is None:
        game.moves_cold_since = now


def game_mark_over(
    *, game: Game, reason: EndReason, winner_side: int | None, now: datetime
) -> None:
    """Set the fields of a game that has ended and move its players' ratings when it is rated
    (games.services.ratings, docs/ratings.md); the caller saves the game."""
    called_off = reason in (EndReason.ABORTED, EndReason.CANCELLED)
    game.status = GameStatus.ABORTED if called_off else GameStatus.FINISHED
    game.end_reason = reason
    game.winner_side = winner_side
    game.finished_at = now
    game.turn_seat = None
    game.deadline = None
    game.reminder_at = None
    game.bot_turn = False
    rating_update_for_match(game=game, now=now)
