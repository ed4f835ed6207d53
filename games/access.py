"""Who may see a game: shared by the services (writes) and the selectors (reads)."""

from __future__ import annotations

from typing import Any

from games.models import Game, Seat


def seat_of(game: Game, user: Any) -> Seat | None:
    """The caller's seat (joined or invited) from the prefetched seats."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for seat in game.seats.all():
        if seat.user_id == user.pk:
            return seat
    return None


def may_view(game: Game, seat: Seat | None) -> bool:
    # Public games are watched by any signed-in user; private ones only by their players and
    # invitees. Everyone else gets the same 404 as for a game that does not exist.
    return game.is_public or seat is not None
