"""The daily digest: one email a day listing the games waiting for the user, for users whose
email_mode is `digest`, sent at the first digest sweep after their digest hour (UTC)."""

from __future__ import annotations

from datetime import datetime, time

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from notifications.models import EmailMode, NotificationPreference, OutboxKind
from notifications.payloads import digest_payload
from notifications.selectors import games_waiting_for
from notifications.services.outbox import outbox_enqueue

# At most this many users per sweep; the next sweep (10 minutes later) continues.
DIGEST_BATCH = 500


def _start_of_day(now: datetime) -> datetime:
    return datetime.combine(now.date(), time.min, tzinfo=now.tzinfo)


def _due_preferences(now: datetime) -> Q:
    return Q(email_mode=EmailMode.DIGEST, digest_hour__lte=now.hour) & (
        Q(last_digest_at__isnull=True) | Q(last_digest_at__lt=_start_of_day(now))
    )


def digest_send_due(*, now: datetime | None = None, limit: int = DIGEST_BATCH) -> int:
    """Enqueue today's digest for every user who is due one; returns how many were enqueued.

    A user with nothing waiting gets no mail and stays due, so a game that becomes theirs
    later in the day still gets its digest that day. The key `digest:<user>:<day>` makes it
    one digest per user per day however often this runs.
    """
    now = now or timezone.now()
    day = now.date().isoformat()
    user_ids = list(
        NotificationPreference.objects.filter(_due_preferences(now))
        .order_by("user_id")
        .values_list("user_id", flat=True)[:limit]
    )
    enqueued = 0
    for user_id in user_ids:
        with transaction.atomic():
            preference = (
                NotificationPreference.objects.select_for_update()
                .select_related("user")
                .filter(_due_preferences(now), user_id=user_id)
                .first()
            )
            if preference is None:
                continue  # changed meanwhile, or another sweep took it
            games = list(games_waiting_for(user=preference.user))
            if not games:
                continue
            row = outbox_enqueue(
                recipient=preference.user,
                kind=OutboxKind.DIGEST,
                payload=digest_payload(day=day, games=games),
                key=f"digest:{user_id}:{day}",
            )
            preference.last_digest_at = now
            preference.save(update_fields=["last_digest_at"])
            enqueued += row is not None
    return enqueued
