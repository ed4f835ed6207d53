"""Absences (vacations): a player declares when they are away and their turn clocks stop
(games.timecontrol takes the intervals; games.services.clock recomputes the deadlines of the
games waiting for the player whenever an absence is declared or cancelled). Bounded to
CANASTA_MAX_ABSENCE_DAYS_PER_YEAR days per calendar year (UTC), never overlapping, never in
the past."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games.services.clock import clock_refresh_for_user
from games.services.errors import ErrorKind, GameError, refused
from notifications.models import Absence

# A start a little in the past is "now" (the request took a moment to arrive).
START_GRACE = timedelta(minutes=5)
# The furthest an absence may end: two years ahead (the yearly bound is checked per year).
MAX_AHEAD = timedelta(days=731)
_DAY = 86400.0


def _invalid(reason: str, details: dict[str, Any] | None = None, **params: Any) -> GameError:
    return refused(ErrorKind.INVALID, reason, details, **params)


def _year_bounds(year: int) -> tuple[datetime, datetime]:
    return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)


def _days_in(start: datetime, end: datetime, year: int) -> float:
    year_start, year_end = _year_bounds(year)
    overlap = (min(end, year_end) - max(start, year_start)).total_seconds()
    return max(0.0, overlap) / _DAY


def absence_days_used(*, user: Any, year: int) -> float:
    """Days of absence the user declared that fall in `year` (UTC), fractions included."""
    year_start, year_end = _year_bounds(year)
    rows = Absence.objects.filter(user=user, starts_at__lt=year_end, ends_at__gt=year_start)
    return sum(_days_in(a.starts_at, a.ends_at, year) for a in rows)


def absence_declare(*, user: Any, ends_at: datetime, starts_at: datetime | None = None) -> Absence:
    """Declare an absence from `starts_at` (default: now) to `ends_at`."""
    now = timezone.now()
    starts_at = starts_at or now
    if starts_at.tzinfo is None or ends_at.tzinfo is None:
        raise _invalid("absence_needs_time_zone")
    if starts_at < now - START_GRACE:
        raise _invalid("absence_in_the_past")
    starts_at = max(starts_at, now)
    if ends_at <= starts_at:
        raise _invalid("absence_ends_before_start")
    if ends_at > now + MAX_AHEAD:
        # A vacation is planned, not a date in year 9999 (whose year bounds do not exist).
        raise _invalid(
            "absence_too_far", {"latest": (now + MAX_AHEAD).isoformat()}, days=MAX_AHEAD.days
        )
    limit = settings.CANASTA_MAX_ABSENCE_DAYS_PER_YEAR
    with transaction.atomic():
        # Serialise one user's declarations, so two at once cannot both fit the year's bound.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        overlapping = Absence.objects.filter(
            user=user, starts_at__lt=ends_at, ends_at__gt=starts_at
        ).first()
        if overlapping is not None:
            raise _invalid(
                "absence_overlaps",
                {
                    "absence": {
                        "id": overlapping.pk,
                        "starts_at": overlapping.starts_at.isoformat(),
                        "ends_at": overlapping.ends_at.isoformat(),
                    }
                },
            )
        for year in range(starts_at.astimezone(UTC).year, ends_at.astimezone(UTC).year + 1):
            used = absence_days_used(user=user, year=year)
            wanted = _days_in(starts_at, ends_at, year)
            if used + wanted > limit + 1e-9:
                raise _invalid(
                    "absence_limit",
                    {
                        "year": year,
                        "limit_days": limit,
                        "used_days": round(used, 3),
                        "requested_days": round(wanted, 3),
                    },
                    limit=limit,
                    used=round(used, 3),
                    wanted=round(wanted, 3),
                    year=str(year),  # a year, not a figure: no "2,026"
                )
        absence = Absence.objects.create(
            user=user, starts_at=starts_at, ends_at=ends_at, created_at=now
        )
        _clocks_refresh(user)
        return absence


def _clocks_refresh(user: Any) -> None:
    # The deadlines of the games waiting for this player move with their absences; in the
    # same transaction, so no deadline sweep sees the absence without the later deadline.
    clock_refresh_for_user(user=user)


def absence_cancel(*, user: Any, absence_id: int) -> Absence | None:
    """Withdraw an absence: one not started yet disappears (returns None); one under way
    ends now (the days taken stay counted). An absence that is over cannot be changed."""
    now = timezone.now()
    with transaction.atomic():
        absence = Absence.objects.select_for_update().filter(pk=absence_id, user=user).first()
        if absence is None:
            raise refused(ErrorKind.NOT_FOUND, "no_such_absence")
        if absence.ends_at <= now:
            raise refused(ErrorKind.CONFLICT, "absence_over")
        if absence.starts_at >= now:
            absence.delete()
            kept = None
        else:
            absence.ends_at = now
            absence.save(update_fields=["ends_at"])
            kept = absence
        _clocks_refresh(user)
        return kept
