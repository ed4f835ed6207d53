"""Celery tasks of the game domain: thin, take ids, call a service, safe to run twice."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from games.services.archive import moves_archive
from games.services.bots import bot_take_turn, stale_bot_games
from games.services.coldmoves import moves_pack_cold
from games.services.retention import Budget, Pruned, games_retire, idempotency_prune
from games.services.timeouts import deadlines_sweep

logger = logging.getLogger(__name__)


@shared_task(name="games.tasks.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> dict[str, Any]:
    """Beat: reminders, timeouts, and bot turns whose task was lost."""
    result: dict[str, Any] = dict(deadlines_sweep())
    stale = stale_bot_games()
    for game_id in stale:
        play_bot_turn.delay(str(game_id), None)
    result["bot_turns_requeued"] = len(stale)
    return result


@shared_task(name="games.tasks.play_bot_turn", ignore_result=True)
def play_bot_turn(game_id: str, version: int | None = None) -> bool:
    """Play the bot's turn in a game (no-op if the turn is no longer a bot's)."""
    return bot_take_turn(game_id=game_id)


def prune_run(task: Task, prune: Callable[[Budget], Pruned]) -> int:
    """Run a prune within CANASTA_PRUNE_SECONDS; when it stopped before the end of what is
    due, queue the task again at once: the continuation starts at the oldest row left, where
    this run stopped (games.services.retention). Returns the rows deleted.

    Only a run that made progress queues another, so a prune that cannot finish a chunk in
    its budget never keeps a worker busy in a loop. A run cut off by the soft time limit (a
    chunk slower than the margin between the budget and the limit) keeps its committed
    chunks; the next beat run goes on from there."""
    try:
        pruned = prune(Budget(settings.CANASTA_PRUNE_SECONDS))
    except SoftTimeLimitExceeded:
        logger.warning("%s: cut off by the soft time limit; the next run continues", task.name)
        return 0
    if not pruned.done and pruned.deleted:
        logger.info("%s: %d rows deleted, continuing in a new task", task.name, pruned.deleted)
        task.apply_async()
    elif not pruned.done:
        logger.warning("%s: no chunk finished within its time; the next run continues", task.name)
    return pruned.deleted


@shared_task(name="games.tasks.prune_idempotency", bind=True, ignore_result=True)
def prune_idempotency(self: Task) -> int:
    """Beat, hourly: Idempotency-Key records older than a day."""
    return prune_run(self, lambda budget: idempotency_prune(budget=budget))


@shared_task(name="games.tasks.retire_games", bind=True, ignore_result=True)
def retire_games(self: Task) -> int:
    """Beat, hourly: games ended more than CANASTA_FINISHED_GAME_GRACE_DAYS ago lose their
    reply addresses, inbound mail, presence, invitations and bot memory."""
    return prune_run(self, lambda budget: games_retire(budget=budget))


@shared_task(name="games.tasks.archive_moves", bind=True, ignore_result=True)
def archive_moves(self: Task) -> int:
    """Beat, hourly: the moves logged more than CANASTA_MOVE_PACK_HOURS ago are packed into
    chunks of their game's log, and the move log of games ended more than
    CANASTA_MOVE_ARCHIVE_DAYS ago into one row per game; their rows are deleted."""
    return prune_run(
        self, lambda budget: moves_pack_cold(budget=budget) + moves_archive(budget=budget)
    )
