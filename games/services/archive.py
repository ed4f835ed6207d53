"""Archiving the move log of games ended long ago (issue 25): each game's Move rows packed into
one MoveArchive row (games.movearchive), then deleted, in one transaction per game.

A game is archived CANASTA_MOVE_ARCHIVE_DAYS (31) after its end: after the event feed's and
the outbox's 30 days, and after its retirement. Its log is then its rows and the chunks its
older moves were packed into while it was played (games.services.coldmoves); both go into
the archive. Nothing is lost: before they are deleted, the packed value is unpacked and
compared with them, every field; a game whose log would not come back the same keeps its rows
(logged).

Bounded and resumable as the prunes are (games.services.retention): along `game_to_archive_idx`,
which holds only ended games not archived yet, oldest end first, a game at a time until the
`Budget` is spent; the next run starts at the oldest game left, where this one stopped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from games.models import Game, GameStatus, Move, MoveArchive, MoveChunk
from games.movearchive import moves_packed, moves_unpacked
from games.movelog import game_moves
from games.services.retention import Budget, Pruned, where_delete

logger = logging.getLogger(__name__)

# Games read per index range: each is then archived in its own transaction.
GAMES_PER_RANGE = 100
_FIELDS = ("seq", "hand", "seat", "actor", "action", "events", "created_at")


def moves_archive(*, budget: Budget, now: datetime | None = None) -> Pruned:
    """Archive the move log of every game that ended more than CANASTA_MOVE_ARCHIVE_DAYS ago;
    `deleted` counts the moves packed into archives."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=archive_days())
    due = Game.objects.filter(finished_at__lt=cutoff, moves_archived_at__isnull=True)
    return games_walk(
        due.order_by("finished_at"), lambda game_id: game_archive(game_id=game_id, now=now), budget
    )


def games_walk(due: QuerySet[Game], each: Callable[[Any], int | None], budget: Budget) -> Pruned:
    """Call `each` with every due game's id in the queryset's order, in ranges of
    GAMES_PER_RANGE, until the budget is spent; `each` returns the moves it packed (None: it
    refused the game, which is then passed over for the rest of the run)."""
    done, refused = 0, set[Any]()
    while not budget.spent():
        ids = list(due.exclude(pk__in=refused).values_list("pk", flat=True)[:GAMES_PER_RANGE])
        for game_id in ids:
            if budget.spent():
                return Pruned(done, done=False)
            moves = each(game_id)
            if moves is None:
                refused.add(game_id)
            done += moves or 0
        if len(ids) < GAMES_PER_RANGE:
            return Pruned(done, done=True)
    return Pruned(done, done=False)


def archive_days() -> int:
    """Days after its end a game's log is archived: CANASTA_MOVE_ARCHIVE_DAYS, and never before
    a day past the feed's and the outbox's retention (their daily prunes), whatever they are
    set to: a feed event still kept reads its moves without unpacking the whole log."""
    return max(
        settings.CANASTA_MOVE_ARCHIVE_DAYS,
        settings.CANASTA_EVENTS_RETENTION_DAYS + 1,
        settings.CANASTA_OUTBOX_RETENTION_DAYS + 1,
    )


def game_archive(*, game_id: Any, now: datetime) -> int | None:
    """Pack one ended game's log into its archive and delete its rows, in one transaction
    under the game's lock. The moves archived (0 for a game without any, or one archived
    already); None when the packed log would not give the rows back (they stay)."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.moves_archived_at is not None:
            return 0
        if game.status not in (GameStatus.FINISHED, GameStatus.ABORTED):
            return None  # an ended game is never played again: this one is not ended
        # The whole log: the rows, and the chunks packed while the game was played.
        rows = game_moves(game)
        if rows:
            packed = moves_packed(rows)
            if not same_moves(rows, moves_unpacked(game.pk, packed)):
                logger.error("move archive of %s: the packed log differs; rows kept", game.pk)
                return None
            MoveArchive.objects.create(game=game, packed=packed, moves=len(rows))
            where_delete(Move.objects.filter(game=game))
            where_delete(MoveChunk.objects.filter(game=game))
        Game.objects.filter(pk=game.pk).update(moves_archived_at=now, moves_cold_since=None)
        return len(rows)


def same_moves(rows: list[Move], unpacked: list[Move]) -> bool:
    """Whether packed moves came back as they were logged, every field (the coldmoves packing
    checks its chunks the same way)."""

    def fields(move: Move) -> tuple[Any, ...]:
        # The JSON values as text too: their keys must come back in their order.
        values = tuple(getattr(move, name) for name in _FIELDS)
        return (*values, json.dumps(move.action), json.dumps(move.events))

    return [fields(move) for move in rows] == [fields(move) for move in unpacked]
