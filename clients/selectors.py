"""The queries that read: the event feed (and its long-poll), webhooks, deliveries, tokens."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from clients.models import ApiToken, Event, Webhook, WebhookDelivery

EVENTS_PAGE_DEFAULT = 100
EVENTS_PAGE_MAX = 500
DELIVERIES_PAGE_DEFAULT = 50
DELIVERIES_PAGE_MAX = 200


def events_after(*, user: Any, after: int, limit: int = EVENTS_PAGE_DEFAULT) -> list[Event]:
    """The user's events with id > `after`, oldest first (the (recipient, id) index)."""
    limit = max(1, min(limit, EVENTS_PAGE_MAX))
    return list(Event.objects.filter(recipient=user, id__gt=after).order_by("id")[:limit])


def last_event_id(*, user: Any) -> int:
    last = Event.objects.filter(recipient=user).order_by("-id").values_list("id", flat=True)
    return next(iter(last[:1]), 0)


def events_wait(
    *,
    user: Any,
    after: int,
    wait: float,
    limit: int = EVENTS_PAGE_DEFAULT,
    poll: float | None = None,
) -> list[Event]:
    """events_after, but when there is nothing yet, look again every `poll` seconds for up
    to `wait` seconds (a long poll). Each look is one indexed query outside any transaction,
    so it sees every commit; the request holds its worker thread while it waits."""
    poll = settings.CANASTA_EVENTS_POLL_SECONDS if poll is None else poll
    deadline = time.monotonic() + max(0.0, wait)
    while True:
        events = events_after(user=user, after=after, limit=limit)
        remaining = deadline - time.monotonic()
        if events or remaining <= 0:
            return events
        time.sleep(min(poll, remaining))


def webhooks_of(*, user: Any) -> QuerySet[Webhook]:
    return Webhook.objects.filter(owner=user).order_by("created_at", "id")


def deliveries_of(
    *, webhook: Webhook, limit: int = DELIVERIES_PAGE_DEFAULT, before: int | None = None
) -> list[WebhookDelivery]:
    """The hook's delivery attempts, newest first."""
    rows = WebhookDelivery.objects.filter(webhook=webhook)
    if before is not None:
        rows = rows.filter(id__lt=before)
    return list(rows.order_by("-id")[: max(1, min(limit, DELIVERIES_PAGE_MAX))])


def tokens_of(*, user: Any, include_revoked: bool = False) -> QuerySet[ApiToken]:
    tokens = ApiToken.objects.filter(owner=user)
    if not include_revoked:
        tokens = tokens.filter(revoked_at__isnull=True)
    return tokens.order_by("-created_at", "-id")
