"""Helpers shared by the write services: loading a game under its row lock, finding the
caller's seat, the turn clock and ending a match."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from django.db.models import Prefetch

from games.access import may_view, seat_of
from games.models import EndReason, Game, GameStatus, Seat, SeatStatus
from games.services.errors import ErrorKind, GameError, not_found


def game_lock(*, game_id: UUID | str, with_state: bool = True) -> Game:
    """The game row, locked until the end of the caller's transaction, with its seats.

    PostgreSQL: SELECT ... FOR UPDATE serialises writers of one game, so two moves racing on
    the same version queue here and the second sees the first's version bump. SQLite ignores
    FOR UPDATE but every transaction is BEGIN IMMEDIATE (settings.py), which takes the
    database's write lock up front and gives the same guarantee.
    """
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
        raise GameError(ErrorKind.FORBIDDEN, "not_seated", "You do not play in this game.")
    return seat


def require_active(game: Game) -> None:
    if game.status != GameStatus.ACTIVE:
        raise GameError(
            ErrorKind.CONFLICT,
            "game_not_active",
            f"The game is {game.status}: nothing can be played in it.",
            {"status": game.status},
        )


def require_version(game: Game, expected_version: int) -> None:
    if expected_version != game.version:
        raise GameError(
            ErrorKind.CONFLICT,
            "stale_version",
            f"The game is at version {game.version}, not {expected_version}: reload it.",
            {"version": game.version},
        )


def game_mark_over(
    *, game: Game, reason: EndReason, winner_side: int | None, now: datetime
) -> None:
    """Set the fields of a game that has ended; the caller saves it."""
    called_off = reason in (EndReason.ABORTED, EndReason.CANCELLED)
    game.status = GameStatus.ABORTED if called_off else GameStatus.FINISHED
    game.end_reason = reason
    game.winner_side = winner_side
    game.finished_at = now
    game.turn_seat = None
    game.deadline = None
    game.reminder_at = None
    game.bot_turn = False
