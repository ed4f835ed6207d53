"""Background work of the client features: pruning the event feed (scheduled by beat)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from clients.services.events import events_prune


@shared_task(name="clients.tasks.prune_events", ignore_result=True)
def prune_events() -> tuple[int, int]:
    return events_prune(days=settings.CANASTA_EVENTS_RETENTION_DAYS)
