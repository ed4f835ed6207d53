"""How many Celery worker processes are running, on every host together: the number of tasks
worth fanning a backlog out to (notifications.tasks.sweep_outbox), so that adding a worker
process, or a worker host, adds throughput without a setting to change.

With a broker that carries remote control (Redis) the workers are asked (`inspect stats`, each
answers with its pool's size); the answer is cached for a few minutes, since workers come and
go rarely and asking costs up to a second of waiting for replies. The embedded filesystem
broker has no remote control (settings.py): there CANASTA_WORKER_PROCESSES, the concurrency
scripts/serve starts its one worker with, is the answer.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

CACHE_KEY = "canasta:worker-processes"
CACHE_SECONDS = 300
# How long to wait for the workers' replies.
INSPECT_SECONDS = 1.0


def _pool_sizes(stats: dict[str, Any]) -> int:
    return sum(
        int((answer.get("pool") or {}).get("max-concurrency") or 0) for answer in stats.values()
    )


def _asked() -> int:
    """The workers' own count of their processes; 0 when none answered."""
    try:
        stats = current_app.control.inspect(timeout=INSPECT_SECONDS).stats() or {}
    except Exception as error:
        logger.warning("could not ask the workers how many they are: %r", error)
        return 0
    return _pool_sizes(stats)


def worker_processes() -> int:
    """The worker processes of every host (at least 1)."""
    configured = max(1, int(settings.CANASTA_WORKER_PROCESSES))
    if not current_app.conf.worker_enable_remote_control:
        return configured
    counted = cache.get(CACHE_KEY)
    if counted is None:
        counted = _asked() or configured
        cache.set(CACHE_KEY, counted, CACHE_SECONDS)
    return max(1, int(counted))
