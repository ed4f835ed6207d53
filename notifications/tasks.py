"""Thin Celery tasks: ids in, a service call, nothing else. Each is idempotent, so a message
delivered twice (acks_late after a killed worker, a sweep racing a delivery) does no harm.

Retries are not Celery's: a failed delivery goes back to the outbox with a backoff and the
beat sweep picks it up when it is due (no long countdowns, docs/background-work.md, "The sweep").
"""

from __future__ import annotations

import logging

from celery import Task, shared_task
from django.conf import settings

from games.tasks import prune_run
from notifications.services.digests import digest_send_due
from notifications.services.outbox import (
    outbox_deliver,
    outbox_drain,
    outbox_due_batches,
    outbox_sweep,
)
from notifications.services.retention import outbox_prune, outbox_shared_prune
from notifications.services.workers import worker_processes

logger = logging.getLogger(__name__)

# A sweep starts no delivery after this, well inside the default soft time limit
# (CELERY_TASK_SOFT_TIME_LIMIT): one slow mail server cannot hold a worker beyond it.
SWEEP_SECONDS = 60.0


@shared_task(name="notifications.tasks.deliver_outbox")
def deliver_outbox(outbox_id: int) -> str | None:
    return outbox_deliver(outbox_id)


def _fan_out(helpers: int) -> None:
    for _ in range(helpers):
        try:
            # Expires with the sweep's interval: a helper still queued then is superseded by
            # the next sweep's own.
            drain_outbox.apply_async(expires=settings.CANASTA_SWEEP_SECONDS)
        except Exception:
            logger.warning("could not queue outbox helpers; this sweep drains alone")
            return


@shared_task(name="notifications.tasks.sweep_outbox")
def sweep_outbox() -> int:
    """Send everything due: with more than a batch due, as many workers as there are worker
    processes drain it together (this task and the helpers it queues)."""
    _fan_out(outbox_due_batches(most=worker_processes()) - 1)
    return outbox_sweep(seconds=SWEEP_SECONDS)


@shared_task(name="notifications.tasks.drain_outbox")
def drain_outbox() -> int:
    return outbox_drain(seconds=SWEEP_SECONDS)


@shared_task(name="notifications.tasks.send_digests")
def send_digests() -> int:
    return digest_send_due()


@shared_task(name="notifications.tasks.prune_outbox", bind=True, ignore_result=True)
def prune_outbox(self: Task) -> int:
    """Beat, daily: done rows past the retention, then the shared payload parts whose rows
    are gone (one time budget for both)."""
    days = settings.CANASTA_OUTBOX_RETENTION_DAYS
    return prune_run(
        self,
        lambda budget: (
            outbox_prune(days=days, budget=budget) + outbox_shared_prune(days=days, budget=budget)
        ),
    )
