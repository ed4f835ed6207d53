"""What the client features keep, and for how long (docs/operations.md, "Retention")."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone
from oauth2_provider.models import AccessToken, Grant, RefreshToken
from oauth2_provider.settings import oauth2_settings

from clients.models import ApiToken, Event, WebhookDelivery
from games.services.retention import Budget, Pruned, chunk_size, range_prune, walk_prune


def deliveries_prune(*, days: int, budget: Budget, now: datetime | None = None) -> Pruned:
    """Webhook delivery attempts created more than `days` ago (the log a hook's owner reads).
    Ids follow creation: along the primary key, no index on `created_at`."""
    cutoff = (now or timezone.now()) - timedelta(days=days)
    return walk_prune(WebhookDelivery, before=cutoff, budget=budget)


def events_prune(*, days: int, budget: Budget, now: datetime | None = None) -> Pruned:
    """Feed events created more than `days` ago. The feed is a recent history for clients to
    catch up from, not an archive (the move log is that). Ids follow creation, so the old
    events are the ids below the first recent one: along the primary key, with no index on
    `created_at` to keep for every event. A delivery attempt logged for an event keeps its
    row with the event cleared (one UPDATE per chunk, by the index on its `event_id`)."""
    cutoff = (now or timezone.now()) - timedelta(days=days)
    return walk_prune(Event, before=cutoff, budget=budget, clear=_deliveries_forget)


def _deliveries_forget(event_ids: list[Any]) -> None:
    WebhookDelivery.objects.filter(event_id__in=event_ids).update(event=None)


def feed_prune(*, days: int, budget: Budget, now: datetime | None = None) -> Pruned:
    """Delivery attempts, then the events (beat's `prune-events`, daily)."""
    deliveries = deliveries_prune(days=days, budget=budget, now=now)
    return deliveries + events_prune(days=days, budget=budget, now=now)


def tokens_prune(*, budget: Budget, now: datetime | None = None) -> Pruned:
    """API tokens revoked more than CANASTA_REVOKED_TOKEN_RETENTION_DAYS ago (every sign-in
    with a password makes an account token, and beyond the live ones a user may keep the
    oldest are revoked): the owner's listing shows them for that long. Along
    `token_revoked_idx`, which holds the revoked tokens only."""
    days = settings.CANASTA_REVOKED_TOKEN_RETENTION_DAYS
    cutoff = (now or timezone.now()) - timedelta(days=days)
    old = ApiToken.objects.filter(revoked_at__lt=cutoff)
    return range_prune(old, key="revoked_at", budget=budget)


def _chunks_delete(due: QuerySet[Any], budget: Budget) -> Pruned:
    """Delete the rows of `due` a chunk at a time, each chunk through Django's collector (the
    toolkit's tokens refer to each other: it clears or follows those references)."""
    size, deleted = chunk_size(), 0
    while not budget.spent():
        ids = list(due.order_by("pk").values_list("pk", flat=True)[:size])
        if ids:
            due.model.objects.filter(pk__in=ids).delete()
            deleted += len(ids)
        if len(ids) < size:
            return Pruned(deleted, done=True)
    return Pruned(deleted, done=False)


def oauth_prune(*, budget: Budget, now: datetime | None = None) -> Pruned:
    """What OAuth 2 leaves behind (beat's `prune-oauth`, hourly), as the toolkit's own
    `clear_expired` chooses it but in chunks within the budget: authorization codes past
    their minute; refresh tokens revoked, or unused, longer than REFRESH_TOKEN_EXPIRE_SECONDS
    (revoked ones are kept that long so that a replayed old one is still recognised and
    revokes its family); refresh tokens whose access token is gone; access tokens expired
    without a refresh token."""
    now = now or timezone.now()
    idle = now - timedelta(seconds=oauth2_settings.REFRESH_TOKEN_EXPIRE_SECONDS or 0)
    stale = Q(revoked__lte=idle) | Q(revoked__isnull=True, access_token__expires__lte=idle)
    orphans = Q(revoked__isnull=True, access_token__isnull=True)
    pruned = _chunks_delete(Grant.objects.filter(expires__lt=now), budget)
    pruned += _chunks_delete(RefreshToken.objects.filter(stale | orphans), budget)
    expired = AccessToken.objects.filter(refresh_token__isnull=True, expires__lt=now)
    return pruned + _chunks_delete(expired, budget)
