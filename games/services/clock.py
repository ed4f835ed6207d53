"""The turn clock: deadline and reminder of the seat to act.

The deadline is an indexed column swept by Celery beat (games/tasks.py), never a Celery
countdown (docs/background-work.md, "Time controls, timeouts and bots"). Running time stops on
weekends when the table pauses them and during the absences of the player to move.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from games import hooks
from games.models import Game, Seat
from games.services.common import game_lock
from games.timecontrol import deadline_after


def _turn_seat(game: Game) -> Seat | None:
    for seat in game.seats.all():
        if seat.number == game.turn_seat:
            return seat
    return None


def clock_restart(*, game: Game, now: datetime) -> None:
    """A new turn begins now: set whose clock runs and until when (the caller saves the game)."""
    game.turn_started_at = now
    clock_update(game=game)


def clock_update(*, game: Game) -> None:
    """Recompute deadline, reminder and bot flag from turn_started_at (absences may change)."""
    seat = _turn_seat(game)
    game.bot_turn = bool(seat is not None and seat.played_by_bot and game.turn_seat is not None)
    start = game.turn_started_at
    if game.turn_seconds is None or start is None or seat is None or seat.played_by_bot:
        # Bots do not run out of time; their turns are made by a task and swept when lost.
        game.deadline = None
        game.reminder_at = None
        return
    absences = hooks.absence_intervals(user=seat.user, after=start) if seat.user_id else []
    weekend_pause = game.weekend_pause
    game.deadline = deadline_after(
        start, game.turn_seconds, weekend_pause=weekend_pause, absences=absences
    )
    fraction = settings.CANASTA_REMINDER_FRACTION
    if 0 < fraction < 1:
        game.reminder_at = deadline_after(
            start,
            int(game.turn_seconds * fraction),
            weekend_pause=weekend_pause,
            absences=absences,
        )
    else:
        game.reminder_at = None


def clock_refresh_for_user(*, user: User) -> int:
    """An absence of ``user`` changed: recompute the deadlines of the games waiting for them.

    Every open or active game they sit at also gets a new version: the game shows its
    players' absences, and an unchanged version would let clients keep a stale copy (ETag,
    If-None-Match). Returns the number of deadlines recomputed.
    """
    updated = 0
    seated = (
        Game.objects.filter(status__in=("open", "active"), seats__user=user)
        .values_list("pk", flat=True)
        .distinct()
    )
    for game_id in list(seated):
        with transaction.atomic():
            game = game_lock(game_id=game_id, with_state=False)
            fields = ["version"]
            seat = _turn_seat(game)
            if (
                game.status == "active"
                and seat is not None
                and seat.user_id == getattr(user, "pk", None)
            ):
                clock_update(game=game)
                fields += ["deadline", "reminder_at", "bot_turn"]
                updated += 1
            game.version += 1
            game.save(update_fields=fields)
    return updated
