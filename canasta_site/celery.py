"""The Celery application; tasks live in each app's tasks.py and are found by autodiscovery.

Configuration is the CELERY_* settings (settings.py); the beat schedule is built here from the
CANASTA_*_SECONDS settings. docs/background-work.md describes what runs. Every task has a
soft and a hard time limit: CELERY_TASK_SOFT_TIME_LIMIT and CELERY_TASK_TIME_LIMIT by default,
tighter ones where a task names its own (clients.tasks.deliver_webhook); they are enforced by
the prefork pool the Procfile runs (docs/webhooks-and-events.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from celery import Celery
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_site.settings")

app = Celery("canasta")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Reminders, timeouts and lost bot turns (games/tasks.py).
DEADLINE_SWEEP_TASK = "games.tasks.sweep_deadlines"


# A sweep that waited longer than its interval is replaced by the next one, but never sooner
# than this: on the embedded broker (polled files, one worker process) a message can wait a
# second or more behind the deliveries before it, and a sweep run every second then expired
# before any worker saw it (the deadline sweep of tests/integration/test_deadlines_e2e.py).
EXPIRES_FLOOR_SECONDS = 10


def _expires(seconds: float) -> float:
    return max(float(seconds), EXPIRES_FLOOR_SECONDS)


def beat_schedule() -> dict[str, dict[str, Any]]:
    schedule: dict[str, dict[str, Any]] = {
        "sweep-outbox": {
            "task": "notifications.tasks.sweep_outbox",
            "schedule": settings.CANASTA_SWEEP_SECONDS,
            # A sweep that waited longer than its interval is replaced by the next one.
            "options": {"expires": _expires(settings.CANASTA_SWEEP_SECONDS)},
        },
        "send-digests": {
            "task": "notifications.tasks.send_digests",
            "schedule": settings.CANASTA_DIGEST_SECONDS,
            "options": {"expires": _expires(settings.CANASTA_DIGEST_SECONDS)},
        },
        # Webhooks whose run a lost task left behind, or whose backoff is over.
        "sweep-webhooks": {
            "task": "clients.tasks.sweep_webhooks",
            "schedule": settings.CANASTA_SWEEP_SECONDS,
            "options": {"expires": _expires(settings.CANASTA_SWEEP_SECONDS)},
        },
        # The event feed is a recent history, not an archive (docs/clients.md).
        "prune-events": {
            "task": "clients.tasks.prune_events",
            "schedule": settings.CANASTA_EVENTS_PRUNE_SECONDS,
            "options": {"expires": _expires(settings.CANASTA_EVENTS_PRUNE_SECONDS)},
        },
        # Done outbox rows after CANASTA_OUTBOX_RETENTION_DAYS (docs/webhooks-and-events.md).
        "prune-outbox": {
            "task": "notifications.tasks.prune_outbox",
            "schedule": settings.CANASTA_EVENTS_PRUNE_SECONDS,
            "options": {"expires": _expires(settings.CANASTA_EVENTS_PRUNE_SECONDS)},
        },
        "sweep-deadlines": {
            "task": DEADLINE_SWEEP_TASK,
            "schedule": settings.CANASTA_DEADLINE_SWEEP_SECONDS,
            "options": {"expires": _expires(settings.CANASTA_DEADLINE_SWEEP_SECONDS)},
        },
    }
    schedule.update(retention_schedule())
    return schedule


# Every retention of docs/operations.md ("Retention"): beat entry, task, and its interval.
RETENTIONS = {
    "prune-idempotency": ("games.tasks.prune_idempotency", "CANASTA_RETENTION_SWEEP_SECONDS"),
    "retire-games": ("games.tasks.retire_games", "CANASTA_RETENTION_SWEEP_SECONDS"),
    "archive-moves": ("games.tasks.archive_moves", "CANASTA_RETENTION_SWEEP_SECONDS"),
    "prune-inbound": ("mailplay.tasks.prune_inbound", "CANASTA_EVENTS_PRUNE_SECONDS"),
    "prune-tokens": ("clients.tasks.prune_tokens", "CANASTA_EVENTS_PRUNE_SECONDS"),
    "prune-oauth": ("clients.tasks.prune_oauth", "CANASTA_RETENTION_SWEEP_SECONDS"),
    "prune-sessions": ("accounts.tasks.prune_sessions", "CANASTA_EVENTS_PRUNE_SECONDS"),
}


def retention_schedule() -> dict[str, dict[str, Any]]:
    entries = {}
    for name, (task, setting) in RETENTIONS.items():
        seconds = getattr(settings, setting)
        # A run that did not finish queues its own continuation; beat's next one may expire.
        entries[name] = {
            "task": task,
            "schedule": seconds,
            "options": {"expires": _expires(seconds)},
        }
    return entries


@app.on_after_configure.connect
def _configure_background_work(sender: Celery, **kwargs: Any) -> None:
    sender.conf.beat_schedule = beat_schedule()
    if str(sender.conf.broker_url).startswith("filesystem://"):
        # The filesystem transport expects its folders to exist, in producers and workers alike.
        options = sender.conf.broker_transport_options
        for key in ("data_folder_in", "data_folder_out", "control_folder", "processed_folder"):
            Path(options[key]).mkdir(parents=True, exist_ok=True)
