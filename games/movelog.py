"""The one place a game's move log is read (issue 25): its Move rows and the MoveChunks its
older moves were packed into a day after they were logged (games.services.coldmoves), or,
once the game's log is archived (games.services.archive), the moves unpacked from its
MoveArchive row.

Every reader of the log goes through here, with the filters it needs, and gets Move objects
alike either way (packed moves are unsaved: they have no row to save to). The rows are read
first (the (game, seq) index); when they cannot be the whole answer (they do not start where
the asked range starts, or fall short of a limit), the chunks of the range are read too and
merged by seq. A packing run inserts its chunk and deletes its rows in one transaction, so
read in that order every move is seen at least once (twice at most: the merge keeps one).
An archived game's log is one primary-key read, unpacked once per game object.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db.models import Count, QuerySet

from games.models import Game, Move, MoveArchive, MoveChunk
from games.movearchive import moves_unpacked

# Where an archived game's unpacked log is kept on its object (one unpacking per request).
_MEMO = "_archived_moves"


def game_moves(
    game: Game,
    *,
    after: int | None = None,
    upto: int | None = None,
    hand: int | None = None,
    seat: int | None = None,
    latest_first: bool = False,
    limit: int | None = None,
) -> list[Move]:
    """The game's moves with seq > `after` and <= `upto`, of hand `hand` and seat `seat` (each
    when given), in seq order (`latest_first`: the reverse), at most `limit` of them."""
    filters: dict[str, Any] = {"after": after, "upto": upto, "hand": hand, "seat": seat}
    archived = _archived(game)
    if archived is None:
        rows = _rows(game, filters, latest_first, limit)
        if _rows_suffice(game, rows, filters, latest_first, limit):
            return rows
        packed = _packed(game, filters, latest_first, limit)
        if packed or rows or game.finished_at is None:
            return _chosen(_merged(packed, rows), filters, latest_first, limit)
        # `game` may have been read before its log was archived: the rows are gone only once
        # the archive is committed (one transaction), so it is there now.
        archived = _archived(game, fresh=True)
        if archived is None:
            return rows
    return _chosen(archived, filters, latest_first, limit)


def _rows_suffice(
    game: Game, rows: list[Move], filters: dict[str, Any], latest_first: bool, limit: int | None
) -> bool:
    """Whether the rows alone answer: chunks hold only moves older than every row, so rows
    that start right after `after` (in seq order), or the newest `limit` found as rows, miss
    nothing; nor does a range past the game's last move (a move logged since `game` was read
    is a row)."""
    if (filters["after"] or 0) >= game.last_seq:
        return True
    if latest_first:
        return limit is not None and len(rows) == limit
    return bool(rows) and rows[0].seq == (filters["after"] or 0) + 1


def _packed(
    game: Game, filters: dict[str, Any], latest_first: bool, limit: int | None
) -> list[Move]:
    """The packed moves of the asked seq range and hand (all of each chunk that overlaps it),
    in seq order; for the newest `limit`, only the newest chunks that hold that many."""
    chunks = MoveChunk.objects.filter(game=game, last_seq__gt=filters["after"] or 0)
    if filters["upto"] is not None:
        chunks = chunks.filter(first_seq__lte=filters["upto"])
    if filters["hand"] is not None:
        chunks = chunks.filter(first_hand__lte=filters["hand"], last_hand__gte=filters["hand"])
    if not (latest_first and limit):
        ordered = chunks.order_by("first_seq")
        return [move for chunk in ordered for move in moves_unpacked(game.pk, chunk.packed)]
    newest: list[Move] = []
    for chunk in chunks.order_by("-first_seq"):
        newest[:0] = moves_unpacked(game.pk, chunk.packed)
        if sum(_matches(move, filters) for move in newest) >= limit:
            break
    return newest


def _merged(packed: list[Move], rows: list[Move]) -> list[Move]:
    by_seq = {move.seq: move for move in packed}
    by_seq.update((move.seq, move) for move in rows)
    return [by_seq[seq] for seq in sorted(by_seq)]


def _chosen(
    moves: list[Move], filters: dict[str, Any], latest_first: bool, limit: int | None
) -> list[Move]:
    chosen = [move for move in moves if _matches(move, filters)]
    if latest_first:
        chosen.reverse()
    return chosen if limit is None else chosen[:limit]


def moves_per_hand(game: Game) -> dict[int, int]:
    """How many moves each hand of the game has (a hand without moves is not listed)."""
    archived = _archived(game)
    if archived is None:
        if MoveChunk.objects.filter(game=game).exists():
            return dict(Counter(move.hand for move in game_moves(game)))
        rows = Move.objects.filter(game=game).values("hand").annotate(n=Count("id")).order_by()
        counts = {row["hand"]: row["n"] for row in rows}
        archived = _archived(game, fresh=True) if not counts and game.finished_at else None
        if archived is None:
            return counts
    return dict(Counter(move.hand for move in archived))


def move_hand(game: Game, seq: int) -> int | None:
    """The hand move `seq` was played in; None when the log has no such move."""
    found = game_moves(game, after=seq - 1, upto=seq, limit=1)
    return found[0].hand if found else None


def _rows(game: Game, filters: dict[str, Any], latest_first: bool, limit: int | None) -> list[Move]:
    rows: QuerySet[Move] = Move.objects.filter(game=game)
    for name, lookup in (("after", "seq__gt"), ("upto", "seq__lte"), ("hand", "hand")):
        if filters[name] is not None:
            rows = rows.filter(**{lookup: filters[name]})
    if filters["seat"] is not None:
        rows = rows.filter(seat=filters["seat"])
    rows = rows.order_by("-seq" if latest_first else "seq")
    return list(rows if limit is None else rows[:limit])


def _matches(move: Move, filters: dict[str, Any]) -> bool:
    after, upto, hand, seat = filters["after"], filters["upto"], filters["hand"], filters["seat"]
    return (
        (after is None or move.seq > after)
        and (upto is None or move.seq <= upto)
        and (hand is None or move.hand == hand)
        and (seat is None or move.seat == seat)
    )


def _archived(game: Game, *, fresh: bool = False) -> list[Move] | None:
    """The archived log of `game` (memoised on it), or None while its log is in rows."""
    if _MEMO in game.__dict__:
        return game.__dict__[_MEMO]
    if game.moves_archived_at is None and not fresh:
        return None
    archive = MoveArchive.objects.filter(game_id=game.pk).first()
    if archive is None:
        # Marked archived without a row: a game that had no moves.
        return [] if game.moves_archived_at is not None else None
    moves = moves_unpacked(game.pk, archive.packed)
    game.__dict__[_MEMO] = moves
    return moves
