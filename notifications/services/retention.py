"""What the notifications keep, and for how long (docs/operations.md, "Retention")."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games import hooks
from games.services.retention import Budget, Pruned, chunk_size, walk_prune, where_delete
from notifications.models import GamePresence, Outbox, OutboxShared, OutboxStatus

# Rows that nothing will send again; the partial index of open rows never holds them.
DONE_STATUSES = (OutboxStatus.SENT, OutboxStatus.SKIPPED, OutboxStatus.FAILED)


def outbox_prune(*, days: int, budget: Budget | None = None, now: datetime | None = None) -> Pruned:
    """Delete done rows (sent, skipped, failed) created more than `days` ago.

    A row is the record that a notification went out (or why not); after the retention it has
    served its purpose (the dedupe key matters only while the move that caused it can be
    retried, seconds). Pending and sending rows are never touched: an away player's hand-over
    summary may wait for weeks; each run walks over the few older than the retention again.
    Ids follow creation (a row is written when its event happens): along the primary key, in
    bounded chunks (games.services.retention.walk_prune; beat's `prune-outbox`, daily), with
    no index on `created_at` to keep for every row (about 10 bytes a move, issue 25)."""
    cutoff = (now or timezone.now()) - timedelta(days=days)
    done = Q(status__in=DONE_STATUSES)
    return walk_prune(Outbox, before=cutoff, budget=budget or Budget(), only=done)


def outbox_shared_prune(
    *, days: int, budget: Budget | None = None, now: datetime | None = None
) -> Pruned:
    """Delete the shared payload parts older than `days` that no row refers to any more (their
    rows were pruned, or their game deleted). Reads the created_at index and, per part, the
    index of Outbox.shared: the cost follows the parts past the retention. Parts are written
    with the rows of one event, so no new row comes to refer to an old part."""
    cutoff = (now or timezone.now()) - timedelta(days=days)
    orphans = OutboxShared.objects.filter(created_at__lt=cutoff).exclude(
        Exists(Outbox.objects.filter(shared=OuterRef("pk")))
    )
    budget = budget or Budget()
    deleted = 0
    while not budget.spent():
        chunk = list(orphans.order_by("created_at").values_list("pk", flat=True)[: chunk_size()])
        if not chunk:
            return Pruned(deleted, True)
        deleted += OutboxShared.objects.filter(pk__in=chunk).delete()[0]
    return Pruned(deleted, False)


def on_games_retired(change: hooks.GamesRetired) -> None:
    """When each player last looked at the games: read only while a turn email may be due."""
    where_delete(GamePresence.objects.filter(game_id__in=change.game_ids))
