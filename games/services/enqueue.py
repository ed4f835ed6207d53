"""The one place the game services queue background work (games/tasks.py).

Tasks call services; services never import the tasks module. They queue a task by its name
in the Celery app's registry, which games/apps.py fills by importing games.tasks in ready():
every process (web and worker alike) has the task objects, so a queued call is the same
`delay` the task module would make.
"""

from __future__ import annotations

import logging
from uuid import UUID

from celery import current_app
from django.db import transaction

log = logging.getLogger(__name__)

BOT_TURN_TASK = "games.tasks.play_bot_turn"


def bot_turn_enqueue(*, game_id: UUID | str, version: int) -> None:
    """Ask a worker to play the bot's turn once this transaction has committed."""

    def send() -> None:
        try:
            current_app.tasks[BOT_TURN_TASK].delay(str(game_id), version)
        except Exception:  # the broker is down: the bot sweep (games.tasks) catches up
            log.warning("could not queue the bot turn of game %s; the sweep will", game_id)

    transaction.on_commit(send)
