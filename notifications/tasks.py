"""Thin Celery tasks: ids in, a service call, nothing else. Each is idempotent, so a message
delivered twice (acks_late after a killed worker, a sweep racing a delivery) does no harm.

Retries are not Celery's: a failed delivery goes back to the outbox with a backoff and the
beat sweep picks it up when it is due (no long countdowns, docs/background-work.md, "The sweep").
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from notifications.services.digests import digest_send_due
from notifications.services.outbox import outbox_deliver, outbox_prune, outbox_sweep

# A sweep starts no delivery after this, well inside the default soft time limit
# (CELERY_TASK_SOFT_TIME_LIMIT): one slow mail server cannot hold a worker beyond it.
SWEEP_SECONDS = 60.0


@shared_task(name="notifications.tasks.deliver_outbox")
def deliver_outbox(outbox_id: int) -> str | None:
    return outbox_deliver(outbox_id)


@shared_task(name="notifications.tasks.sweep_outbox")
def sweep_outbox() -> int:
    return outbox_sweep(seconds=SWEEP_SECONDS)


@shared_task(name="notifications.tasks.send_digests")
def send_digests() -> int:
    return digest_send_due()


@shared_task(name="notifications.tasks.prune_outbox", ignore_result=True)
def prune_outbox() -> int:
    return outbox_prune(days=settings.CANASTA_OUTBOX_RETENTION_DAYS)
