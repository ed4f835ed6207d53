"""The daily digest: one email a day listing the games waiting for the user, for users whose
email_mode is `digest`, sent at the first digest sweep after their digest hour in their own
time zone (a player in Berlin who asks for 7:00 gets it after 7:00 Berlin time, summer and
winter alike; their day, and so "one a day", runs from their own midnight)."""

from __future__ import annotations

from datetime import datetime, time

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from notifications.models import EmailMode, NotificationPreference, OutboxKind
from notifications.payloads import digest_payload
from notifications.selectors import games_waiting_for
from notifications.services.outbox import outbox_enqueue
from notifications.services.preferences import zone_named

# At most this many users per sweep; the next sweep (10 minutes later) continues.
DIGEST_BATCH = 500


def _start_of_day(local: datetime) -> datetime:
    return datetime.combine(local.date(), time.min, tzinfo=local.tzinfo)


def _due_in_zone(name: str, now: datetime) -> Q:
    """Digest users of zone ``name`` whose hour has come there and who had none that day."""
    local = now.astimezone(zone_named(name))
    return Q(time_zone=name, digest_hour__lte=local.hour) & (
        Q(last_digest_at__isnull=True) | Q(last_digest_at__lt=_start_of_day(local))
    )


def _due_preferences(now: datetime, zones: list[str]) -> Q:
    due = Q(pk__in=[])
    for name in zones:
        due |= _due_in_zone(name, now)
    return Q(email_mode=EmailMode.DIGEST) & due


def _digest_zones() -> list[str]:
    """The time zones of the digest readers: a handful, so one condition per zone."""
    return list(
        NotificationPreference.objects.filter(email_mode=EmailMode.DIGEST)
        .values_list("time_zone", flat=True)
        .distinct()
        .order_by("time_zone")
    )


def digest_send_due(*, now: datetime | None = None, limit: int = DIGEST_BATCH) -> int:
    """Enqueue today's digest for every user who is due one; returns how many were enqueued.

    A user with nothing waiting gets no mail and stays due, so a game that becomes theirs
    later in the day still gets its digest that day. The key `digest:<user>:<day>` makes it
    one digest per user per day however often this runs.
    """
    now = now or timezone.now()
    due = _due_preferences(now, _digest_zones())
    user_ids = list(
        NotificationPreference.objects.filter(due)
        .order_by("user_id")
        .values_list("user_id", flat=True)[:limit]
    )
    enqueued = 0
    for user_id in user_ids:
        with transaction.atomic():
            preference = (
                NotificationPreference.objects.select_for_update()
                .select_related("user")
                .filter(due, user_id=user_id)
                .first()
            )
            if preference is None:
                continue  # changed meanwhile, or another sweep took it
            games = list(games_waiting_for(user=preference.user))
            if not games:
                continue
            day = now.astimezone(zone_named(preference.time_zone)).date().isoformat()
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
