"""Background work of play by email: the retention of inbound mail that reached no game."""

from __future__ import annotations

from celery import Task, shared_task

from games.tasks import prune_run
from mailplay.services.retention import inbound_prune


@shared_task(name="mailplay.tasks.prune_inbound", bind=True, ignore_result=True)
def prune_inbound(self: Task) -> int:
    """Beat, daily: refused and ignored mail after CANASTA_INBOUND_RETENTION_DAYS."""
    return prune_run(self, lambda budget: inbound_prune(budget=budget))
