"""Rematch (docs/accounts.md, "Rematch"): after a match, one click offers the same table to
the same players: same variant, options, clock and visibility, the same seats (partners kept)
or partners swapped. The player who asks sits down at once; the other people get an
invitation they accept (or decline) like any other; bots are seated straight away. Seats are
numbered at creation, so the game starts with exactly that seating once everyone joined.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from games.access import may_view, seat_of
from games.models import Game, GameStatus, Seat, SeatKind, SeatStatus
from games.players import is_deleted
from games.services.common import game_lock, require_open_account
from games.services.errors import ErrorKind, not_found, refused
from games.services.lobby import game_start
from games.services.notify import notify_invitation


def swapped_number(number: int, *, players: int, sides: int) -> int:
    """The seat that gives `number` other partners: each side's second member moves one side
    on (4 players: seats 2 and 3 change places, so 0 plays with 3 and 1 with 2)."""
    side, member = number % sides, number // sides
    return (side + member) % sides + member * sides


def rematch_of(*, game: Game) -> Game | None:
    """The rematch already offered for `game` that still waits or is played, if any."""
    return (
        Game.objects.filter(rematch_of=game, status__in=[GameStatus.OPEN, GameStatus.ACTIVE])
        .order_by("-created_at")
        .first()
    )


def _check(game: Game, user: Any, swap_partners: bool) -> None:
    seat = seat_of(game, user)
    if not may_view(game, seat):
        raise not_found()
    if seat is None or seat.status != SeatStatus.JOINED:
        raise refused(ErrorKind.FORBIDDEN, "rematch_not_seated")
    if game.status != GameStatus.FINISHED:
        raise refused(ErrorKind.CONFLICT, "rematch_not_finished")
    if swap_partners and game.sides == game.players:
        raise refused(ErrorKind.INVALID, "no_partners")


@transaction.atomic
def rematch_offer(*, game_id: UUID | str, user: Any, swap_partners: bool = False) -> Game:
    """The rematch of a finished match (an existing offer is returned, not doubled)."""
    old = game_lock(game_id=game_id, with_state=False)
    _check(old, user, swap_partners)
    existing = rematch_of(game=old)
    if existing is not None:
        return existing
    require_open_account(user)
    now = timezone.now()
    game = Game.objects.create(
        variant=old.variant,
        players=old.players,
        options=dict(old.options),
        is_public=old.is_public,
        turn_seconds=old.turn_seconds,
        timeout_policy=old.timeout_policy,
        weekend_pause=old.weekend_pause,
        # A casual match's rematch is casual, a rated one's rated (docs/ratings.md).
        rated=old.rated,
        created_by=user,
        rematch_of=old,
    )
    seats: list[Seat] = []
    invited = []
    for seat in old.seats.all():
        number = seat.number
        if number is None:
            continue
        if swap_partners:
            number = swapped_number(number, players=old.players, sides=old.sides)
        if seat.kind == SeatKind.BOT:
            seats.append(_seat(game, number, None, SeatStatus.JOINED, now, seat.bot_level))
        elif seat.user_id == user.pk:
            seats.append(_seat(game, number, user, SeatStatus.JOINED, now))
        elif seat.user is not None and seat.user.is_active and not is_deleted(seat.user):
            _seat(game, number, seat.user, SeatStatus.INVITED, None)
            invited.append(seat.user)
        # A deleted account's seat stays open for anyone (public) or the link (private).
    for person in invited:
        notify_invitation(game=game, inviter=user, user=person)
    if len(seats) == game.players:
        game_start(game=game, seats=seats, now=now)
        game.save()
    return game


def _seat(game: Game, number: int, user: Any, status: str, now: Any, bot_level: str = "") -> Seat:
    return Seat.objects.create(
        game=game,
        number=number,
        user=user,
        kind=SeatKind.BOT if user is None else SeatKind.HUMAN,
        bot_level=bot_level,
        status=status,
        joined_at=now,
    )
