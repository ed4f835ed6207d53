"""The queries that read, for notifications and absences."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db.models import F, Prefetch, QuerySet

from games.models import Game, GameStatus, Seat, SeatKind
from notifications.models import Absence

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def games_waiting_for(*, user: User) -> QuerySet[Game]:
    """Active games where it is the user's turn (their own seat, not one a bot plays for
    them while they are away), most urgent first: earliest deadline, games without a deadline
    last."""
    on_turn = Seat.objects.filter(
        user=user,
        kind=SeatKind.HUMAN,
        away=False,
        game__status=GameStatus.ACTIVE,
        number=F("game__turn_seat"),
    )
    return (
        Game.objects.filter(pk__in=on_turn.values("game_id"))
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
        .order_by(F("deadline").asc(nulls_last=True), "created_at", "pk")
    )


def users_confirmed(*, user_ids: list[Any]) -> set[Any]:
    """The ids among `user_ids` whose address is confirmed: set and not pending, as
    notifications.services.preferences.email_confirmed judges one user (a legacy account
    without a preference row counts as confirmed for its address)."""
    confirmed = (
        get_user_model()
        .objects.filter(pk__in=user_ids, is_active=True)
        .exclude(email="")
        .exclude(notification_preference__email_pending=True)
    )
    return set(confirmed.values_list("pk", flat=True))


def absences_of(*, user_ids: list[Any], now: datetime) -> QuerySet[Absence]:
    """Current and coming absences of these users (what partners and opponents are shown)."""
    return Absence.objects.filter(user_id__in=user_ids, ends_at__gt=now).order_by("starts_at", "pk")


def absence_intervals(
    *, user: User, after: datetime, before: datetime | None = None
) -> list[tuple[datetime, datetime]]:
    """The user's absences ending after `after` (and starting before `before`), as the
    (start, end) intervals games.timecontrol.deadline_after takes."""
    rows = Absence.objects.filter(user=user, ends_at__gt=after)
    if before is not None:
        rows = rows.filter(starts_at__lt=before)
    return list(rows.order_by("starts_at").values_list("starts_at", "ends_at"))
