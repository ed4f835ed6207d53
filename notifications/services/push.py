"""Web Push: a notification channel beside email and the open tab (docs/notifications.md#web-push).

A browser that opted in (Settings, per device) gives its subscription: the push service's
endpoint and the keys to encrypt for. When a turn comes, a `push` outbox row is written beside
the email row; its sender posts the message, encrypted per RFC 8291 (aes128gcm) and signed
with our VAPID key (RFC 8292), through pywebpush, to every subscription of the player. The
presence rules are the email's (notifications/services/presence.py): no push while the page
is open, none once the turn was played. A 404 or 410 from the push service means the browser
dropped the subscription: it is deleted.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from pywebpush import WebPushException, webpush

from games.services.errors import ErrorKind, refused
from notifications.emails import push_text
from notifications.models import Outbox, OutboxChannel, OutboxKind, OutboxStatus, PushSubscription
from notifications.payloads import outbox_payload
from notifications.services.outbox import (
    outbox_enqueue,
    outbox_mark_failed_attempt,
    outbox_mark_sent,
    outbox_mark_skipped,
)
from notifications.services.preferences import language_of, time_zone_of
from notifications.services.presence import turn_email_drop_reason

logger = logging.getLogger(__name__)

# The push service keeps an undelivered message this long (a turn lasts days; a day is plenty).
TTL_SECONDS = 86400
# A player's devices: more is someone's script, not phones.
MAX_PER_USER = 10
GONE = {404, 410}


def push_enabled() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY)


def _endpoint_checked(endpoint: str) -> str:
    """Only a push service's own https address: the server posts to it."""
    parts = urlsplit(endpoint)
    host = (parts.hostname or "").lower()
    schemes = {"https", "http"} if settings.CANASTA_PUSH_ALLOW_HTTP else {"https"}
    allowed = any(host == h or host.endswith("." + h) for h in settings.CANASTA_PUSH_HOSTS)
    if parts.scheme not in schemes or not allowed or len(endpoint) > 1000:
        raise refused(ErrorKind.INVALID, "push_service_refused")
    return endpoint


def push_subscribe(*, user: Any, subscription: Any) -> PushSubscription:
    """Keep a browser's subscription ({"endpoint", "keys": {"p256dh", "auth"}}) for ``user``;
    the same endpoint again updates it (it may move to another account on a shared device)."""
    if not push_enabled():
        raise refused(ErrorKind.CONFLICT, "push_off")
    keys = subscription.get("keys") if isinstance(subscription, dict) else None
    endpoint = subscription.get("endpoint") if isinstance(subscription, dict) else None
    if not isinstance(keys, dict) or not isinstance(endpoint, str):
        raise refused(ErrorKind.INVALID, "subscription_incomplete")
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not isinstance(p256dh, str) or not isinstance(auth, str) or not (0 < len(p256dh) <= 200):
        raise refused(ErrorKind.INVALID, "subscription_incomplete")
    if not 0 < len(auth) <= 100:
        raise refused(ErrorKind.INVALID, "subscription_incomplete")
    endpoint = _endpoint_checked(endpoint)
    with transaction.atomic():
        row, _created = PushSubscription.objects.update_or_create(
            endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth}
        )
        extra = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk")
        stale = list(extra.values_list("pk", flat=True)[MAX_PER_USER:])
        if stale:
            PushSubscription.objects.filter(pk__in=stale).delete()
    return row


def push_unsubscribe(*, user: Any, endpoint: str) -> int:
    """Forget this device's subscription (opt-out); returns how many were removed."""
    deleted, _rows = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()
    return deleted


def push_rows_enqueue(rows: list[dict[str, Any]]) -> None:
    """Beside each your-turn email row, a push row for a player with a subscription (same
    game, move and kind; its own key)."""
    if not push_enabled():
        return
    for row in rows:
        if row["kind"] != OutboxKind.YOUR_TURN:
            continue
        if not PushSubscription.objects.filter(user=row["recipient"]).exists():
            continue
        key = f"{row['game'].pk}:{row['move_seq']}:{row['recipient'].pk}:{row['kind']}:push"
        outbox_enqueue(**row, key=key, channel=OutboxChannel.PUSH)


def _message(row: Outbox) -> bytes:
    with (
        translation.override(language_of(user=row.recipient)),
        timezone.override(time_zone_of(user=row.recipient)),
    ):
        # The payload as built: rows keep no copy of the game's facts (notifications.payloads).
        title, body, url = push_text(kind=row.kind, payload=outbox_payload(row))
    return json.dumps({"title": title, "body": body, "url": url, "tag": str(row.game_id)}).encode()


def _send_one(subscription: PushSubscription, data: bytes) -> None:
    webpush(
        subscription_info={
            "endpoint": subscription.endpoint,
            "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
        },
        data=data,
        vapid_private_key=settings.VAPID_PRIVATE_KEY,
        vapid_claims={"sub": settings.VAPID_SUBJECT},
        content_encoding="aes128gcm",
        ttl=TTL_SECONDS,
        timeout=10,
    )


def push_row_send(row: Outbox) -> str:
    """The outbox's sender of the push channel: every subscription of the player, unless the
    page is open or the turn was played (the email's rules)."""
    reason = turn_email_drop_reason(row)
    subscriptions = list(PushSubscription.objects.filter(user=row.recipient))
    if reason or not subscriptions or not push_enabled():
        outbox_mark_skipped(row, reason=reason or "no push subscription")
        return OutboxStatus.SKIPPED
    data = _message(row)
    failed: Exception | None = None
    for subscription in subscriptions:
        try:
            _send_one(subscription, data)
        except WebPushException as error:
            status = getattr(error.response, "status_code", None)
            if status in GONE:
                subscription.delete()  # the browser dropped it
                continue
            failed = error
            logger.warning("outbox %s: push to %s failed: %r", row.pk, subscription.pk, error)
    if failed is not None:
        return outbox_mark_failed_attempt(row, error=failed)
    outbox_mark_sent(row)
    return OutboxStatus.SENT
