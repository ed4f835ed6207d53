"""The queries that read: the event feed (and its long-poll), webhooks, deliveries, tokens."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, TypedDict
from uuid import UUID

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from clients.models import ApiToken, Event, Webhook, WebhookDelivery
from clients.payloads import events_render
from games.models import Seat, SeatKind

EVENTS_PAGE_DEFAULT = 100
EVENTS_PAGE_MAX = 500
DELIVERIES_PAGE_DEFAULT = 50
DELIVERIES_PAGE_MAX = 200


class _GameRow(TypedDict):
    game_id: UUID


def _seated_games(user: Any) -> QuerySet[Seat, _GameRow]:
    """The games whose shared events reach `user`: those they sit at as a person, unless the
    game ended longer ago than the feed keeps events (nothing of it is left to read)."""
    kept_since = timezone.now() - timedelta(days=settings.CANASTA_EVENTS_RETENTION_DAYS)
    return Seat.objects.filter(
        Q(game__finished_at__isnull=True) | Q(game__finished_at__gte=kept_since),
        user=user,
        kind=SeatKind.HUMAN,
        number__isnull=False,
    ).values("game_id")


def _events_of(user: Any) -> QuerySet[Event]:
    """Every event `user` may read: the shared events of their games, their own your_turn
    (a your_turn is always for someone seated at its game).

    One range scan of the (game, id) index per game after the cursor."""
    return Event.objects.filter(game_id__in=_seated_games(user)).filter(
        Q(recipient__isnull=True) | Q(recipient=user)
    )


def events_after(*, user: Any, after: int, limit: int = EVENTS_PAGE_DEFAULT) -> list[Event]:
    """The user's events with id > `after`, oldest first, each with its `payload`: the data as
    the user's seat may see it (clients/payloads.py)."""
    limit = max(1, min(limit, EVENTS_PAGE_MAX))
    events = list(_events_of(user).filter(id__gt=after).order_by("id")[:limit])
    return events_render(events, user_id=user.pk)


def events_for_webhook(*, webhook: Webhook, limit: int = EVENTS_PAGE_DEFAULT) -> list[Event]:
    """The events the hook has not received yet (after its cursor, of its kinds and game),
    oldest first, rendered for its owner."""
    events = _events_of(webhook.owner).filter(id__gt=webhook.cursor, kind__in=webhook.kinds)
    if webhook.game_id is not None:
        events = events.filter(game_id=webhook.game_id)
    return events_render(list(events.order_by("id")[:limit]), user_id=webhook.owner_id)


def last_event_id(*, user: Any) -> int:
    last = _events_of(user).order_by("-id").values_list("id", flat=True)
    return next(iter(last[:1]), 0)


def webhooks_of(*, user: Any) -> QuerySet[Webhook]:
    return Webhook.objects.filter(owner=user).order_by("created_at", "id")


def deliveries_of(
    *, webhook: Webhook, limit: int = DELIVERIES_PAGE_DEFAULT, before: int | None = None
) -> list[WebhookDelivery]:
    """The hook's delivery attempts, newest first: at most one more than the largest page,
    which tells the caller whether another page follows."""
    rows = WebhookDelivery.objects.filter(webhook=webhook)
    if before is not None:
        rows = rows.filter(id__lt=before)
    return list(rows.order_by("-id")[: max(1, min(limit, DELIVERIES_PAGE_MAX + 1))])


def tokens_of(*, user: Any, include_revoked: bool = False) -> QuerySet[ApiToken]:
    tokens = ApiToken.objects.filter(owner=user)
    if not include_revoked:
        tokens = tokens.filter(revoked_at__isnull=True)
    return tokens.order_by("-created_at", "-id")
