"""Packing the moves of games still played (issue 25): CANASTA_MOVE_PACK_HOURS (24) after a
move was logged, its row is packed with the game's other rows of that age into one MoveChunk
(games.movearchive's format: 12-25 bytes a move, where a row and its two indexes take about
220) and deleted, in one transaction per game under its lock; games.movelog reads chunks and
rows alike. Before the rows go, the chunk is unpacked and compared with them, every field
(games.services.archive.same_moves); a game whose moves would not come back the same keeps
its rows (logged).

What stays a row is the last day of play: what the table's last plays, the feed and an
emailed move's check read most. Each seat's last packed move is kept on its seat
(`Seat.last_packed_seq`): the turn email's table talk "since your last move" reads it where
the seat's last move is no longer a row (notifications.payloads).

Due games are found along game_cold_moves_idx (their oldest row's time,
`Game.moves_cold_since`, set with the first row after a packing), oldest first, bounded and
resumable as the archive (games.services.archive.games_walk); the hourly archive task runs
both (games.tasks.archive_moves).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.models import Game, Move, MoveChunk, Seat
from games.movearchive import moves_packed, moves_unpacked
from games.services.archive import games_walk, same_moves
from games.services.retention import Budget, Pruned, where_delete

logger = logging.getLogger(__name__)


def pack_hours() -> int:
    return int(settings.CANASTA_MOVE_PACK_HOURS)


def moves_pack_cold(*, budget: Budget, now: datetime | None = None) -> Pruned:
    """Pack the rows older than CANASTA_MOVE_PACK_HOURS of every game that has some;
    `deleted` counts the rows packed."""
    cutoff = (now or timezone.now()) - timedelta(hours=pack_hours())
    due = Game.objects.filter(moves_cold_since__lt=cutoff).order_by("moves_cold_since")
    return games_walk(due, lambda game_id: game_pack_cold(game_id=game_id, cutoff=cutoff), budget)


def game_pack_cold(*, game_id: Any, cutoff: datetime) -> int | None:
    """Pack one game's rows up to its last one written before `cutoff` into a chunk and delete
    them, under the game's lock. The rows packed; None when the chunk would not give them
    back (they stay)."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.moves_archived_at is not None:
            return 0
        rows = list(Move.objects.filter(game=game).order_by("seq"))
        cold = _cold_prefix(rows, cutoff)
        if cold and not _chunk_written(game, cold):
            return None
        rest = rows[len(cold) :]
        Game.objects.filter(pk=game.pk).update(
            moves_cold_since=rest[0].created_at if rest else None
        )
        return len(cold)


def _cold_prefix(rows: Sequence[Move], cutoff: datetime) -> list[Move]:
    """The rows up to the last one written before `cutoff` (a prefix of the log, whatever the
    clocks of the hosts that wrote it)."""
    last = max((index for index, row in enumerate(rows) if row.created_at < cutoff), default=-1)
    return list(rows[: last + 1])


def _chunk_written(game: Game, cold: list[Move]) -> bool:
    packed = moves_packed(cold)
    if not same_moves(cold, moves_unpacked(game.pk, packed)):
        logger.error("moves of %s: the packed chunk differs; rows kept", game.pk)
        return False
    MoveChunk.objects.create(
        game=game,
        first_seq=cold[0].seq,
        last_seq=cold[-1].seq,
        first_hand=cold[0].hand,
        last_hand=cold[-1].hand,
        packed=packed,
    )
    where_delete(Move.objects.filter(game=game, seq__lte=cold[-1].seq))
    last_by_seat: dict[int, int] = {}
    for move in cold:
        last_by_seat[move.seat] = move.seq
    for number, seq in last_by_seat.items():
        Seat.objects.filter(game=game, number=number).update(last_packed_seq=seq)
    return True
