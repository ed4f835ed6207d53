"""The one place a game's move log is read (issue 25): its Move rows, or, once the game's log
is archived (games.services.archive), the moves unpacked from its MoveArchive row.

Every reader of the log goes through here, with the filters it needs, and gets Move objects
alike either way (an archived game's are unsaved: they have no row to save to). An active
game's reads are the queries they were (the (game, seq) index); an archived game's log is one
primary-key read, unpacked once per game object. The feed's readers (clients/services) read
the rows directly: its events are deleted before a log is archived.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db.models import Count, QuerySet

from games.models import Game, Move, MoveArchive
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
        if rows or game.finished_at is None:
            return rows
        # `game` may have been read before its log was archived: the rows are gone only once
        # the archive is committed (one transaction), so it is there now.
        archived = _archived(game, fresh=True)
        if archived is None:
            return rows
    chosen = [move for move in archived if _matches(move, filters)]
    if latest_first:
        chosen.reverse()
    return chosen if limit is None else chosen[:limit]


def moves_per_hand(game: Game) -> dict[int, int]:
    """How many moves each hand of the game has (a hand without moves is not listed)."""
    archived = _archived(game)
    if archived is None:
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
