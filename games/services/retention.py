"""Retention: deleting rows that have served their purpose, at a cost that follows what is due.

Every prune of the service (docs/operations.md, "Retention") is built from the two walks here:

- `range_prune`: the rows of a queryset, oldest first along an index (`key`): each chunk is
  one index-range read of primary keys and one DELETE by primary key, so a chunk costs what
  it deletes, whatever the table holds;
- `walk_prune`: for a table whose ids follow its creation time (rows written when they
  happen), the rows created before a moment are the ids below the first recent one: found by
  walking the primary key, with no index on the time column to keep for every row.

Both are bounded and resumable: chunks of CANASTA_PRUNE_CHUNK rows, each in its own
transaction (a run that is cut off keeps what it deleted), no new chunk after the `Budget`
is spent; the result says whether the run finished (`Pruned.done`) so the task can queue
its continuation (games.tasks.prune_run). The next run starts again at the oldest row left,
which is where the last one stopped. Nothing loads whole rows, and nothing goes through
Django's deletion collector (which loads every row and updates SET_NULL references a batch
at a time): a reference to a deleted row is cleared by one UPDATE per chunk (`clear`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models, router, transaction
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet, Value
from django.utils import timezone

from games import hooks
from games.models import Game, IdempotencyRecord, Invitation, Seat

# Clears the references to a chunk of primary keys before the chunk is deleted.
Clear = Callable[[list[Any]], None]


@dataclass(frozen=True)
class Pruned:
    """What a prune run deleted, and whether it reached the end of what was due."""

    deleted: int = 0
    done: bool = True

    def __add__(self, other: Pruned) -> Pruned:
        return Pruned(self.deleted + other.deleted, self.done and other.done)


class Budget:
    """The time a run may start chunks in (None: no limit). One budget is shared by the
    prunes of one task, so a task stops as a whole."""

    def __init__(self, seconds: float | None = None) -> None:
        self.ends = None if seconds is None else time.monotonic() + seconds

    def spent(self) -> bool:
        return self.ends is not None and time.monotonic() >= self.ends


def chunk_size() -> int:
    return int(settings.CANASTA_PRUNE_CHUNK)


def where_delete(rows: QuerySet[Any]) -> int:
    """Delete the rows of a queryset in one statement, without the collector (see rows_delete):
    for rows nothing refers to."""
    model = rows.model
    if model._meta.related_objects:
        raise ValueError(
            f"{model.__name__} is referred to: clear its references and use rows_delete"
        )
    return rows._raw_delete(router.db_for_write(model))


def rows_delete(model: type[models.Model], ids: list[Any], *, clear: Clear | None = None) -> int:
    """Delete these rows in one transaction: `clear` the references to them, then one DELETE.

    Refuses a model that other rows refer to unless `clear` is given: the raw DELETE bypasses
    Django's emulated CASCADE and SET_NULL, so whoever calls it must handle those."""
    if not ids:
        return 0
    if clear is None and model._meta.related_objects:
        raise ValueError(f"{model.__name__} is referred to: pass `clear` for its references")
    using = router.db_for_write(model)
    with transaction.atomic(using=using):
        if clear is not None:
            clear(ids)
        # One statement, no collector: the references are handled above.
        return model._base_manager.using(using).filter(pk__in=ids)._raw_delete(using)


def range_prune(
    old: QuerySet[Any], *, key: str, budget: Budget, clear: Clear | None = None
) -> Pruned:
    """Delete every row of `old`, oldest first along `key`, whose index serves the range.

    A keyset cursor: each chunk reads from the last chunk's `key` on (`>=`: rows that share
    it and were not deleted are still ahead), so no chunk walks back over the ones before."""
    size, deleted, cursor = chunk_size(), 0, None
    while not budget.spent():
        page = old if cursor is None else old.filter(**{f"{key}__gte": cursor})
        rows = list(page.order_by(key).values_list("pk", key)[:size])
        deleted += rows_delete(old.model, [pk for pk, _ in rows], clear=clear)
        if len(rows) < size:
            return Pruned(deleted, done=True)
        cursor = rows[-1][1]
    return Pruned(deleted, done=False)


def walk_prune(
    model: type[models.Model],
    *,
    before: datetime,
    field: str = "created_at",
    budget: Budget,
    clear: Clear | None = None,
    only: Q | None = None,
) -> Pruned:
    """Delete the rows whose `field` is before `before`, walking the primary key from its
    start and stopping at the first row that is not (ids follow `field`; a row that commits
    a moment late waits for the next run). ``only``: of those, the rows to delete; the others
    stay and are walked over again by each run (keep them few)."""
    first = model._base_manager.order_by("pk").values_list(field, flat=True)[:1]
    if not [when for when in first if when < before]:
        # Nothing is due (the usual case between two daily runs): one row read, not a chunk.
        return Pruned(0, done=True)
    size, deleted, cursor = chunk_size(), 0, None
    while not budget.spent():
        rows = list(_walk_page(model, cursor, only).values_list("pk", field, "due")[:size])
        old = list(itertools.takewhile(lambda row: row[1] < before, rows))
        deleted += rows_delete(model, [pk for pk, _, wanted in old if wanted], clear=clear)
        if len(old) < size:
            return Pruned(deleted, done=True)
        cursor = old[-1][0]
    return Pruned(deleted, done=False)


def _walk_page(model: type[models.Model], cursor: Any, only: Q | None) -> QuerySet[Any]:
    """The rows after ``cursor`` in primary-key order, each with `due`: whether ``only``
    holds for it (every row without it)."""
    page = (
        model._base_manager.all() if cursor is None else model._base_manager.filter(pk__gt=cursor)
    )
    due = Value(True) if only is None else ExpressionWrapper(only, BooleanField())
    return page.annotate(due=due).order_by("pk")


def idempotency_prune(*, budget: Budget, now: datetime | None = None) -> Pruned:
    """Idempotency records older than CANASTA_IDEMPOTENCY_RETENTION_HOURS (24, as Stripe keeps
    them): a client retries a request within seconds or minutes; a day later the key is free
    again. Along the primary key (walk_prune: the records have no index of `created_at`, which
    cost about 25 bytes a request)."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.CANASTA_IDEMPOTENCY_RETENTION_HOURS)
    return walk_prune(IdempotencyRecord, before=cutoff, budget=budget)


# Games per retirement transaction: each brings its reply addresses (one per email sent for
# it, about a hundred for a long match), inbound mail and presence rows.
GAMES_PER_CHUNK = 200


def games_retire(*, budget: Budget, now: datetime | None = None) -> Pruned:
    """Games that ended more than CANASTA_FINISHED_GAME_GRACE_DAYS ago lose what they needed
    only while they were played: the apps' rows (games.hooks.games_retired: reply addresses,
    inbound mail, presence), the invitations to them (addresses of people without an account
    among them) and the bots' memory of their seats. The moves, hands, scores, ratings and
    table talk are the game's record and stay. A reply to one of its emails after that finds
    no reply address.

    Along `game_to_retire_idx`, which holds only ended games not retired yet: the cost follows
    the games that are due, not every game ever finished. Returns the games retired."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.CANASTA_FINISHED_GAME_GRACE_DAYS)
    due = Game.objects.filter(finished_at__lt=cutoff, retired_at__isnull=True)
    retired = 0
    while not budget.spent():
        ids = list(due.order_by("finished_at").values_list("pk", flat=True)[:GAMES_PER_CHUNK])
        if not ids:
            return Pruned(retired, done=True)
        with transaction.atomic():
            hooks.games_retired.send(hooks.GamesRetired(game_ids=ids))
            _game_rows_forget(ids)
            retired += Game.objects.filter(pk__in=ids).update(retired_at=now)
        if len(ids) < GAMES_PER_CHUNK:
            return Pruned(retired, done=True)
    return Pruned(retired, done=False)


def _game_rows_forget(game_ids: list[Any]) -> None:
    where_delete(Invitation.objects.filter(game_id__in=game_ids))
    Seat.objects.filter(game_id__in=game_ids, bot_memory__isnull=False).update(bot_memory=None)
