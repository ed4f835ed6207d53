"""The daily digest: one email a day listing the games waiting for the user, for users whose
email_mode is `digest`, sent at the first digest sweep after their digest hour in their own
time zone (a player in Berlin who asks for 7:00 gets it after 7:00 Berlin time, summer and
winter alike; their day, and so "one a day", runs from their own midnight).

Each digest reader has a due time (`NotificationPreference.digest_due_at`, indexed); the sweep
reads the due ones, most overdue first, and every user it looks at gets a later due time
whether or not a digest went out: tomorrow's hour after a digest, a recheck later the same day
when nothing was waiting. So users with nothing waiting never stand in front of the ones with a
game waiting, run after run, and the sweep's cost follows the users due, not the readers.
"""

from __future__ import annotations

import time as monotonic_clock
from datetime import datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from notifications.models import EmailMode, NotificationPreference, OutboxKind
from notifications.payloads import digest_payload
from notifications.selectors import games_waiting_for
from notifications.services.outbox import outbox_enqueue
from notifications.services.preferences import zone_named

# Users looked at per transaction batch; a sweep goes on until none is due or its time is up.
DIGEST_BATCH = 500
# A sweep starts no new batch after this (well inside the task's soft time limit).
DIGEST_SECONDS = 60.0


def _at_hour(day: Any, hour: int, zone: Any) -> datetime:
    return datetime.combine(day, time(hour=hour), tzinfo=zone)


def _had_today(preference: NotificationPreference, local: datetime) -> bool:
    """A digest since the user's own midnight (`local`: now in their zone)."""
    start_of_day = datetime.combine(local.date(), time.min, tzinfo=local.tzinfo)
    return preference.last_digest_at is not None and preference.last_digest_at >= start_of_day


def digest_next_due(preference: NotificationPreference, now: datetime, *, sent: bool) -> datetime:
    """When to look at this user again after looking now.

    Before their hour today: at that hour. After today's digest (sent now or earlier today):
    at tomorrow's hour. Due but nothing waiting: a recheck CANASTA_DIGEST_RECHECK_MINUTES
    later, so a game that becomes theirs later that day still gets its digest that day, but
    never past tomorrow's hour.
    """
    zone = zone_named(preference.time_zone)
    local = now.astimezone(zone)
    today = _at_hour(local.date(), preference.digest_hour, zone)
    tomorrow = _at_hour(local.date() + timedelta(days=1), preference.digest_hour, zone)
    if sent or _had_today(preference, local):
        return tomorrow
    if now < today:
        return today
    return min(now + timedelta(minutes=settings.CANASTA_DIGEST_RECHECK_MINUTES), tomorrow)


def _is_due(preference: NotificationPreference, now: datetime) -> bool:
    """Their hour has come today and they had no digest today."""
    zone = zone_named(preference.time_zone)
    local = now.astimezone(zone)
    today = _at_hour(local.date(), preference.digest_hour, zone)
    return not _had_today(preference, local) and now >= today


def _due(now: datetime) -> Q:
    return Q(email_mode=EmailMode.DIGEST) & (
        Q(digest_due_at__isnull=True) | Q(digest_due_at__lte=now)
    )


def _visit(user_id: int, now: datetime) -> bool:
    """Look at one due user under their row lock: enqueue today's digest if a game waits, and
    move their due time on either way. True when a digest was enqueued."""
    with transaction.atomic():
        preference = (
            NotificationPreference.objects.select_for_update()
            .select_related("user")
            .filter(_due(now), user_id=user_id)
            .first()
        )
        if preference is None:
            return False  # changed meanwhile, or another sweep took it
        row = None
        sent = False
        if _is_due(preference, now):
            games = list(games_waiting_for(user=preference.user))
            if games:
                day = now.astimezone(zone_named(preference.time_zone)).date().isoformat()
                row = outbox_enqueue(
                    recipient=preference.user,
                    kind=OutboxKind.DIGEST,
                    payload=digest_payload(day=day, games=games),
                    key=f"digest:{user_id}:{day}",
                )
                preference.last_digest_at = now
                sent = True
        preference.digest_due_at = digest_next_due(preference, now, sent=sent)
        preference.save(update_fields=["last_digest_at", "digest_due_at"])
        return row is not None


def digest_send_due(
    *, now: datetime | None = None, limit: int = DIGEST_BATCH, seconds: float = DIGEST_SECONDS
) -> int:
    """Enqueue today's digest for every user who is due one; returns how many were enqueued.

    Due users are read through the index of due times, most overdue first (new and changed
    preferences, whose due time is not computed yet, before them), `limit` at a time, until
    none is due or `seconds` are spent. Every user looked at leaves the due range (their due
    time moves past `now`), so each batch starts where the last one ended. The key
    `digest:<user>:<day>` makes it one digest per user per day however often this runs.
    """
    now = now or timezone.now()
    ends = monotonic_clock.monotonic() + seconds
    enqueued = 0
    while monotonic_clock.monotonic() < ends:
        user_ids = list(
            NotificationPreference.objects.filter(_due(now))
            .order_by(F("digest_due_at").asc(nulls_first=True), "user_id")
            .values_list("user_id", flat=True)[:limit]
        )
        enqueued += sum(_visit(user_id, now) for user_id in user_ids)
        if len(user_ids) < limit:
            break
    return enqueued
