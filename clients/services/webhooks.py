"""Webhooks: registration, signed delivery through the outbox, the delivery log, disabling.

A matching event becomes an Outbox row (channel `webhook`, key "webhook:<hook>:<event>") in
the event's transaction, so it is delivered after commit with the outbox's claims, retries,
backoff and sweeps (README.md, "Background work"). notifications.services.delivery hands
such a row to `deliver`, which POSTs the event's JSON, signed, and records the attempt. After
CANASTA_WEBHOOK_MAX_FAILURES failed attempts in a row the hook is disabled and its owner gets
an email; a success resets the count.
"""

from __future__ import annotations

import http.client
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from clients.models import Event, EventKind, Webhook, WebhookDelivery
from clients.payloads import event_entry
from clients.services.netguard import Target, UnsafeUrl, check_url
from clients.services.posting import http_post
from clients.signing import signature
from games.services.errors import ErrorKind, GameError

logger = logging.getLogger(__name__)

USER_AGENT = "Canasta-Webhooks/1"


# --- registration -----------------------------------------------------------------------


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def _invalid(code: str, message: str, **details: Any) -> GameError:
    return GameError(ErrorKind.INVALID, code, message, details)


def _checked_kinds(kinds: Iterable[str] | None) -> list[str]:
    if kinds is None:
        return list(EventKind.values)
    chosen = list(dict.fromkeys(kinds))
    unknown = [kind for kind in chosen if kind not in EventKind.values]
    if unknown or not chosen:
        raise _invalid(
            "invalid_kinds",
            "kinds must be a non-empty list of event kinds.",
            choices=list(EventKind.values),
        )
    return chosen


def _checked_url(url: str) -> str:
    try:
        check_url(url)
    except UnsafeUrl as error:
        raise _invalid("unsafe_url", str(error)) from None
    return url.strip()


def webhook_of(*, owner: Any, webhook_id: int) -> Webhook:
    try:
        return Webhook.objects.get(pk=webhook_id, owner=owner)
    except Webhook.DoesNotExist:
        raise GameError(ErrorKind.NOT_FOUND, "not_found", "No such webhook.") from None


def webhook_create(
    *,
    owner: Any,
    url: str,
    kinds: Iterable[str] | None = None,
    game_id: UUID | str | None = None,
) -> tuple[Webhook, str]:
    """Register a hook; returns it and its secret (shown to the owner this once)."""
    from games.selectors import game_visible_to

    if Webhook.objects.filter(owner=owner).count() >= settings.CANASTA_WEBHOOKS_PER_USER:
        raise _invalid(
            "too_many_webhooks",
            f"At most {settings.CANASTA_WEBHOOKS_PER_USER} webhooks per account.",
            limit=settings.CANASTA_WEBHOOKS_PER_USER,
        )
    game = game_visible_to(game_id=game_id, user=owner)[0] if game_id is not None else None
    secret = new_secret()
    hook = Webhook.objects.create(
        owner=owner, url=_checked_url(url), kinds=_checked_kinds(kinds), game=game, secret=secret
    )
    return hook, secret


def webhook_update(
    *,
    owner: Any,
    webhook_id: int,
    url: str | None = None,
    kinds: Iterable[str] | None = None,
    active: bool | None = None,
) -> Webhook:
    """Change a hook; `active=True` turns a disabled hook back on with a clean slate."""
    hook = webhook_of(owner=owner, webhook_id=webhook_id)
    if url is not None:
        hook.url = _checked_url(url)
    if kinds is not None:
        hook.kinds = _checked_kinds(kinds)
    if active is True and not hook.active:
        hook.active = True
        hook.consecutive_failures = 0
        hook.disabled_at = None
        hook.disabled_reason = ""
    elif active is False and hook.active:
        hook.active = False
        hook.disabled_at = timezone.now()
        hook.disabled_reason = "turned off by its owner"
    hook.save()
    return hook


def webhook_rotate_secret(*, owner: Any, webhook_id: int) -> tuple[Webhook, str]:
    """A new secret; deliveries from now on (retries included) are signed with it."""
    hook = webhook_of(owner=owner, webhook_id=webhook_id)
    hook.secret = new_secret()
    hook.save(update_fields=["secret"])
    return hook, hook.secret


def webhook_delete(*, owner: Any, webhook_id: int) -> None:
    webhook_of(owner=owner, webhook_id=webhook_id).delete()


# --- fan-out, in the event's transaction ---------------------------------------------------


def _wants(hook: Webhook, event: Event) -> bool:
    return (
        hook.owner_id == event.recipient_id
        and (hook.game_id is None or hook.game_id == event.game_id)
        and event.kind in hook.kinds
    )


def webhooks_enqueue(*, events: Iterable[Event]) -> int:
    """An outbox row per (matching active hook, event); returns how many were written."""
    from notifications.models import OutboxChannel, OutboxKind
    from notifications.services.outbox import outbox_enqueue

    events = list(events)
    owners = {event.recipient_id for event in events}
    hooks = list(Webhook.objects.filter(owner_id__in=owners, active=True).select_related("owner"))
    written = 0
    for event in events:
        assert event.pk is not None, "bulk_create must return ids (SQLite >= 3.35, PostgreSQL)"
        for hook in hooks:
            if _wants(hook, event):
                row = outbox_enqueue(
                    recipient=hook.owner,
                    kind=OutboxKind.WEBHOOK,
                    channel=OutboxChannel.WEBHOOK,
                    game=event.game,
                    move_seq=event.seq,
                    key=f"webhook:{hook.pk}:{event.pk}",
                    payload={"webhook": hook.pk, "event": event.pk},
                )
                written += row is not None
    return written


# --- delivery, by a worker -------------------------------------------------------------------


# Tests replace this with a fake receiver.
transport: Callable[[Target, bytes, dict[str, str], float], int] = http_post


def delivery_body(event: Event) -> bytes:
    return json.dumps(event_entry(event), separators=(",", ":"), ensure_ascii=False).encode()


def delivery_headers(hook: Webhook, event: Event, body: bytes, timestamp: int) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Canasta-Event-Id": str(event.pk),
        "X-Canasta-Event-Kind": event.kind,
        "X-Canasta-Webhook-Id": str(hook.pk),
        "X-Canasta-Timestamp": str(timestamp),
        "X-Canasta-Signature": signature(hook.secret, timestamp, body),
    }


def _attempt(hook: Webhook, event: Event) -> tuple[int | None, str]:
    """One POST; (status code or None, error or "")."""
    body = delivery_body(event)
    headers = delivery_headers(hook, event, body, int(time.time()))
    try:
        # Resolved and checked again now: the name may point elsewhere since registration.
        target = check_url(hook.url)
        status = transport(target, body, headers, settings.CANASTA_WEBHOOK_TIMEOUT_SECONDS)
    except UnsafeUrl as error:
        return None, f"refused: {error}"
    except (OSError, http.client.HTTPException) as error:
        return None, f"{type(error).__name__}: {error}"
    if 200 <= status < 300:
        return status, ""
    return status, f"the receiver answered HTTP {status}"


def _record(
    hook: Webhook, event: Event, row: Any, status: int | None, error: str, started: float
) -> None:
    WebhookDelivery.objects.create(
        webhook=hook,
        event=event,
        outbox_id=row.pk,
        attempt=row.attempts,
        status_code=status,
        ok=not error,
        error=error[:500],
        duration_ms=int((time.monotonic() - started) * 1000),
        created_at=timezone.now(),
    )


def _disable(hook: Webhook, now: datetime) -> bool:
    """Disable the hook once its failures reach the limit; tell the owner. True if done now."""
    from notifications.models import OutboxChannel, OutboxKind
    from notifications.services.outbox import outbox_enqueue

    limit = settings.CANASTA_WEBHOOK_MAX_FAILURES
    reason = f"{limit} failed deliveries in a row"
    with transaction.atomic():
        disabled = Webhook.objects.filter(
            pk=hook.pk, active=True, consecutive_failures__gte=limit
        ).update(active=False, disabled_at=now, disabled_reason=reason)
        if not disabled:
            return False
        outbox_enqueue(
            recipient=hook.owner,
            kind=OutboxKind.WEBHOOK,
            channel=OutboxChannel.EMAIL,
            key=f"webhook-disabled:{hook.pk}:{now.isoformat()}",
            payload={
                "subject": f"Your webhook to {hook.url} was turned off",
                "text": (
                    f"Your webhook {hook.pk} ({hook.url}) failed {limit} times in a row and "
                    "has been turned off; no more events are sent to it. Its delivery log "
                    f"is at {settings.CANASTA_SITE_URL}/api/v1/webhooks/{hook.pk}/deliveries/ "
                    'and PATCH /api/v1/webhooks/{id}/ with {"active": true} turns it on '
                    "again."
                ),
                "game": None,
                "seat": None,
            },
        )
    logger.warning("webhook %s disabled: %s", hook.pk, reason)
    return True


def deliver(row: Any) -> str:
    """Deliver a claimed webhook outbox row; returns its new outbox status."""
    from notifications.models import OutboxStatus
    from notifications.services.outbox import (
        outbox_mark_failed_attempt,
        outbox_mark_sent,
        outbox_mark_skipped,
    )

    hook = Webhook.objects.select_related("owner").filter(pk=row.payload.get("webhook")).first()
    event = Event.objects.filter(pk=row.payload.get("event")).first()
    if hook is None or event is None:
        outbox_mark_skipped(row, reason="the webhook or its event no longer exists")
        return OutboxStatus.SKIPPED
    if not hook.active:
        outbox_mark_skipped(row, reason="the webhook is turned off")
        return OutboxStatus.SKIPPED
    started = time.monotonic()
    status, error = _attempt(hook, event)
    _record(hook, event, row, status, error, started)
    if not error:
        outbox_mark_sent(row)
        Webhook.objects.filter(pk=hook.pk, consecutive_failures__gt=0).update(
            consecutive_failures=0
        )
        return OutboxStatus.SENT
    logger.info("webhook %s, event %s, attempt %s: %s", hook.pk, event.pk, row.attempts, error)
    new_status = outbox_mark_failed_attempt(row, error=error)
    Webhook.objects.filter(pk=hook.pk).update(consecutive_failures=F("consecutive_failures") + 1)
    _disable(hook, timezone.now())
    return str(new_status)
