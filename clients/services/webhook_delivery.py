"""Delivering a hook's events: one run at a time per hook, in event order, from its cursor.

A run claims the hook (one conditional UPDATE; `claims` is the fencing token, so a run that
lost its claim records nothing more), then POSTs the events after the cursor one by one,
signed, each attempt in the delivery log. A success moves the cursor on; the first failure
ends the run and the hook waits a backoff (CANASTA_OUTBOX_BACKOFF_SECONDS, doubled per failure
in a row, at most CANASTA_WEBHOOK_MAX_BACKOFF_SECONDS) before the same event is tried again,
so a receiver that is down costs one attempt per backoff, not one per event. Failures are
counted over time: the hook is turned off (and its owner told by email) only once its
deliveries have failed for CANASTA_WEBHOOK_DISABLE_AFTER_SECONDS and at least
CANASTA_WEBHOOK_MAX_FAILURES times in a row; a success wipes the slate.

A run ends after RUN_SECONDS of deliveries and queues the next one, so a hook with a long
backlog takes turns with the other tasks instead of holding a worker.
"""

from __future__ import annotations

import http.client
import json
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from clients.models import Event, Webhook, WebhookDelivery
from clients.payloads import event_entry
from clients.selectors import events_for_webhook, last_event_id
from clients.services.netguard import Target, UnsafeUrl, check_url
from clients.services.posting import http_post
from clients.services.webhooks import webhook_run_soon
from clients.signing import signature
from notifications.models import OutboxChannel, OutboxKind
from notifications.services.outbox import outbox_enqueue

logger = logging.getLogger(__name__)

USER_AGENT = "Canasta-Webhooks/1"
# Deliveries a run starts at most before it hands over to the next run (a fresh task).
RUN_SECONDS = 30.0
# How long a claim holds: above the task's hard time limit, so only a dead run loses it.
CLAIM_SECONDS = 120.0
BATCH = 20

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


def backoff_seconds(failures: int) -> float:
    """The wait after the `failures`-th failed attempt in a row."""
    wait = settings.CANASTA_OUTBOX_BACKOFF_SECONDS * 2 ** max(0, failures - 1)
    return min(wait, settings.CANASTA_WEBHOOK_MAX_BACKOFF_SECONDS)


# --- the claim ------------------------------------------------------------------------------


def _claim(hook_id: int, now: datetime) -> int | None:
    """Hold the hook for a run; its fencing token, or None (not due, or held by a run)."""
    claimed = (
        Webhook.objects.filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .filter(pk=hook_id, active=True, due_at__lte=now)
        # due_at is cleared as the claim is taken, before the run reads any event: an event
        # written from now on marks the hook due again, so it is never left unsent.
        .update(
            claimed_until=now + timedelta(seconds=CLAIM_SECONDS),
            claims=F("claims") + 1,
            due_at=None,
        )
    )
    if not claimed:
        return None
    return Webhook.objects.values_list("claims", flat=True).get(pk=hook_id)


def _held(hook_id: int, token: int) -> Any:
    return Webhook.objects.filter(pk=hook_id, claims=token)


def _release(hook_id: int, token: int) -> None:
    _held(hook_id, token).update(claimed_until=None)


# --- outcomes -------------------------------------------------------------------------------


def _record(hook: Webhook, event: Event, status: int | None, error: str, started: float) -> None:
    WebhookDelivery.objects.create(
        webhook=hook,
        event=event,
        attempt=hook.consecutive_failures + 1,
        status_code=status,
        ok=not error,
        error=error[:500],
        duration_ms=int((time.monotonic() - started) * 1000),
        created_at=timezone.now(),
    )


def _delivered(hook: Webhook, token: int, event: Event) -> bool:
    held = _held(hook.pk, token).update(cursor=event.pk, consecutive_failures=0, failing_since=None)
    hook.cursor, hook.consecutive_failures, hook.failing_since = event.pk, 0, None
    return bool(held)


def _failed(hook: Webhook, token: int, now: datetime) -> None:
    failures = hook.consecutive_failures + 1
    _held(hook.pk, token).update(
        consecutive_failures=failures,
        failing_since=Coalesce("failing_since", Value(now)),
        # Later events wait too: they go out after this one, in order.
        due_at=now + timedelta(seconds=backoff_seconds(failures)),
    )
    _disable_if_failing(hook, now)


def _disable_if_failing(hook: Webhook, now: datetime) -> bool:
    """Turn the hook off once its deliveries have failed long enough; tell the owner."""
    span = settings.CANASTA_WEBHOOK_DISABLE_AFTER_SECONDS
    failures = settings.CANASTA_WEBHOOK_MAX_FAILURES
    reason = f"its deliveries failed for {_duration(span)}, {failures} or more times in a row"
    with transaction.atomic():
        disabled = Webhook.objects.filter(
            pk=hook.pk,
            active=True,
            consecutive_failures__gte=failures,
            failing_since__lte=now - timedelta(seconds=span),
        ).update(active=False, disabled_at=now, disabled_reason=reason, due_at=None)
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
                    f"Your webhook {hook.pk} ({hook.url}) has been turned off: {reason}. "
                    "No more events are sent to it. Its delivery log is at "
                    f"{settings.CANASTA_SITE_URL}/api/v1/webhooks/{hook.pk}/deliveries/ and "
                    'PATCH /api/v1/webhooks/{id}/ with {"active": true} turns it on again: it '
                    "then receives the events it missed, in order, as far back as "
                    f"{settings.CANASTA_EVENTS_RETENTION_DAYS} days."
                ),
                "game": None,
                "seat": None,
            },
        )
    logger.warning("webhook %s disabled: %s", hook.pk, reason)
    return True


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        hours = seconds / 3600
        return f"{hours:g} hour" + ("" if hours == 1 else "s")
    return f"{seconds:g} seconds"


# --- a run ----------------------------------------------------------------------------------


def _deliver_pending(hook_id: int, token: int, ends: float) -> str:
    """Send the events after the cursor in order until none is left ("caught_up"), one
    fails ("failed"), the run's time is up ("more") or the claim was lost ("lost")."""
    while time.monotonic() < ends:
        hook = Webhook.objects.select_related("owner").filter(pk=hook_id, claims=token).first()
        if hook is None or not hook.active:
            return "lost"
        # Read first: any event it wants up to this id is committed, so found just below.
        latest = last_event_id(user=hook.owner)
        events = events_for_webhook(webhook=hook, limit=BATCH)
        if not events:
            # Nothing it wants up to `latest`: the next run need not look at those again.
            _held(hook_id, token).filter(cursor__lt=latest).update(cursor=latest)
            return "caught_up"
        for event in events:
            if time.monotonic() >= ends:
                return "more"
            started = time.monotonic()
            status, error = _attempt(hook, event)
            _record(hook, event, status, error, started)
            if error:
                logger.info("webhook %s, event %s: %s", hook.pk, event.pk, error)
                _failed(hook, token, timezone.now())
                return "failed"
            if not _delivered(hook, token, event):
                return "lost"
    return "more"


def webhook_run(hook_id: int, *, seconds: float = RUN_SECONDS) -> str:
    """Deliver what the hook has not received yet (clients.tasks.deliver_webhook); returns
    how the run ended: idle (not due, or another run holds it), caught_up, failed, more."""
    ends = time.monotonic() + seconds
    outcome = "idle"
    while time.monotonic() < ends:
        token = _claim(hook_id, timezone.now())
        if token is None:
            return outcome
        outcome = _deliver_pending(hook_id, token, ends)
        if outcome == "more":
            # The rest goes to a fresh task at the back of the queue.
            _held(hook_id, token).update(due_at=timezone.now())
        _release(hook_id, token)
        if outcome != "caught_up":
            break
        # An event written while the hook was held made it due again: look once more (its
        # own task may have come and gone while the claim was held).
    if outcome == "more":
        webhook_run_soon(hook_id)
    return outcome
