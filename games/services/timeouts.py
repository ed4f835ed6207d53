"""Deadlines that pass: reminders and timeouts, claimed by a beat sweep (docs/background-work.md, "The sweep").

The sweep reads due games through the indexed `deadline` / `reminder_at` columns and claims
each one under its row lock, re-checking the deadline: a move that landed in the meantime
moved the deadline and the claim does nothing. A timeout is itself a logged move (actor
"system"): `autoplay` draws and makes a sensible discard for the seat; `forfeit` ends the
match against the seat's side.
"""

from __future__ import annotations

import random
import secrets
from datetime import datetime
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import engine
from games.bots.basic import BasicPolicy
from games.bots.sampling import Sampler
from games.models import Actor, EndReason, Game, TimeoutPolicy
from games.services.common import game_lock
from games.services.endings import match_concede
from games.services.moves import batch_commit
from games.services.notify import notify_reminder, notify_timeout

SWEEP_BATCH = 200


def due_deadlines(*, now: datetime, limit: int = SWEEP_BATCH) -> list[Any]:
    # An index range scan on games_game.deadline: cost independent of the waiting games.
    return list(
        Game.objects.filter(deadline__lte=now, status="active")
        .order_by("deadline")
        .values_list("pk", flat=True)[:limit]
    )


def due_reminders(*, now: datetime, limit: int = SWEEP_BATCH) -> list[Any]:
    return list(
        Game.objects.filter(reminder_at__lte=now, status="active")
        .order_by("reminder_at")
        .values_list("pk", flat=True)[:limit]
    )


def autoplay_actions(table: engine.Table, seat: int) -> list[dict[str, Any]]:
    """Draw (or take the pile where the rules leave no choice), then a sensible discard.

    The discard is the basic bot's, chosen from the seat's player view only.
    """
    actions: list[dict[str, Any]] = []
    if table.phase == "draw":
        legal = engine.legal_actions(table, seat)
        step = {"type": "draw"} if legal.draw else legal.pickups[0]
        actions.append(step)
        table = engine.apply(table, seat, step).table
    if table.over or table.turn != seat:
        return actions
    if table.phase == "answer":
        return [*actions, {"type": "answer", "yes": False}]
    rng = random.Random(secrets.randbits(64))
    view = engine.player_view(table, seat)
    if table.go_out is True or not engine.legal_actions(table, seat).discards:
        # Bound to go out (or no discard can keep the hand): the way out is the only move.
        way_out = engine.find_going_out(table) or []
        return actions + way_out
    try:
        sample = Sampler(view, None).sample(rng)
    except ValueError:
        # Only a hand-made partial table fails to add up; any legal discard will do there.
        return [
            *actions,
            {"type": "discard", "card": engine.legal_actions(table, seat).discards[0]},
        ]
    actions.append(BasicPolicy().discard(sample, seat, None))
    return actions


def timeout_apply(*, game_id: UUID | str, now: datetime | None = None) -> bool:
    """Apply the timeout of a game whose deadline has passed; False if nothing was due."""
    now = now or timezone.now()
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        if game.status != "active" or game.deadline is None or game.deadline > now:
            return False  # a move or another sweeper got there first
        seat = next(s for s in game.seats.all() if s.number == game.turn_seat)
        table = engine.from_json(game.state.table)
        seat.timeouts_in_a_row += 1
        handed = seat.timeouts_in_a_row >= settings.CANASTA_TIMEOUTS_BEFORE_BOT and not seat.away
        fields = ["timeouts_in_a_row"]
        if handed:
            seat.away = True
            seat.bot_level = seat.bot_level or "basic"
            fields += ["away", "bot_level"]
        seat.save(update_fields=fields)
        if game.timeout_policy == TimeoutPolicy.FORFEIT:
            # The side whose clock ran out loses the match (logged like a resignation).
            match_concede(
                game=game,
                seat=seat,
                opening={"type": "timeout", "seat": seat.number, "policy": "forfeit"},
                action={"type": "timeout", "policy": "forfeit"},
                actor=Actor.SYSTEM,
                reason=EndReason.FORFEIT,
                now=now,
            )
        else:
            actions = autoplay_actions(table, seat.seated_number)
            table = batch_commit(game=game, seat=seat, actions=actions, actor=Actor.SYSTEM, now=now)
        notify_timeout(
            game=game,
            table=table,
            timed_out_seat=seat.seated_number,
            handed_to_bot=handed,
            move_seq=game.last_seq,
        )
        return True


def reminder_send(*, game_id: UUID | str, now: datetime | None = None) -> bool:
    """Remind the player to move before the deadline; once per turn."""
    now = now or timezone.now()
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        if game.status != "active" or game.reminder_at is None or game.reminder_at > now:
            return False
        game.reminder_at = None
        game.save(update_fields=["reminder_at"])
        seat = next((s for s in game.seats.all() if s.number == game.turn_seat), None)
        if seat is None or seat.user_id is None or seat.played_by_bot:
            return False
        notify_reminder(game=game, table=engine.from_json(game.state.table), seat=seat)
        return True


def deadlines_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """One beat sweep: reminders first, then timeouts."""
    now = now or timezone.now()
    reminded = sum(reminder_send(game_id=pk, now=now) for pk in due_reminders(now=now))
    timed_out = sum(timeout_apply(game_id=pk, now=now) for pk in due_deadlines(now=now))
    return {"reminders": reminded, "timeouts": timed_out}
