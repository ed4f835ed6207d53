"""Celery tasks of the game domain: thin, take ids, call a service, safe to run twice."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from games.services.bots import bot_take_turn, stale_bot_games
from games.services.timeouts import deadlines_sweep


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
