"""The queries that read (HackSoft styleguide). Each returns model rows; presenting them (and
filtering hidden cards) is the caller's job, through engine.player_view and engine.event_for.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.db.models import Count, F, Prefetch, Q, QuerySet

from games.access import may_view, seat_of
from games.models import Game, GameStatus, Hand, Move, Seat, SeatStatus
from games.movelog import game_moves
from games.services.errors import not_found

# The moves endpoint pages through the log; a page never grows with the game's length.
MOVES_PAGE_DEFAULT = 100
MOVES_PAGE_MAX = 500


@contextlib.contextmanager
def read_snapshot() -> Iterator[None]:
    """Every query inside reads the database as of one moment.

    A game's answer is several queries (the game row, its seats, the absences, a page of the
    log); between two of them a move could commit, and an answer showed version 13 with the
    seats of version 14. On PostgreSQL the block is one REPEATABLE READ, READ ONLY
    transaction: its snapshot is taken at its first query and never blocks or is blocked by
    a writer. Inside an outer transaction (a write's own answer, a test's) the outer one
    decides. SQLite runs each transaction BEGIN IMMEDIATE (settings.py), which would make
    readers queue behind writers, so there reads stay as they were (development only).
    """
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def _seats() -> Prefetch:
    return Prefetch("seats", queryset=Seat.objects.select_related("user"))


def game_with_seats(*, game_id: UUID | str) -> Game:
    """A game with its snapshot and seats (users included): everything a game view needs."""
    try:
        return (
            Game.objects.select_related("state", "created_by")
            .prefetch_related(_seats())
            .get(pk=game_id)
        )
    except Game.DoesNotExist:
        raise not_found() from None


def game_visible_to(*, game_id: UUID | str, user: Any) -> tuple[Game, Seat | None]:
    """The game and the caller's seat, or the 404 of a game the caller may not see."""
    game = game_with_seats(game_id=game_id)
    seat = seat_of(game, user)
    if not may_view(game, seat):
        raise not_found()
    return game, seat


def games_of_user(
    *, user: Any, status: str | None = None, my_turn: bool | None = None
) -> QuerySet[Game]:
    """The games the user plays in or is invited to, newest first."""
    mine = Seat.objects.filter(user=user)
    games = Game.objects.filter(pk__in=mine.values("game_id"))
    if status is not None:
        games = games.filter(status=status)
    if my_turn is not None:
        # The seat whose number is the game's turn_seat belongs to the user.
        on_turn = mine.filter(game__status=GameStatus.ACTIVE, number=F("game__turn_seat"))
        condition = Q(pk__in=on_turn.values("game_id"))
        games = games.filter(condition) if my_turn else games.exclude(condition)
    return games.order_by("-created_at", "pk")


def games_open_to(*, user: Any) -> QuerySet[Game]:
    """Games waiting for players where the user can take a seat: an invitation, or a public
    table with a seat nobody holds or is invited to."""
    invited = Seat.objects.filter(user=user, status=SeatStatus.INVITED).values("game_id")
    seated = Seat.objects.filter(user=user).values("game_id")
    public_with_room = (
        Game.objects.filter(status=GameStatus.OPEN, is_public=True)
        .exclude(pk__in=seated)
        .annotate(taken=Count("seats"))
        .filter(taken__lt=F("players"))
        .values("pk")
    )
    return Game.objects.filter(
        Q(status=GameStatus.OPEN) & (Q(pk__in=invited) | Q(pk__in=public_with_room))
    ).order_by("-created_at", "pk")


def with_summary_relations(games: QuerySet[Game]) -> QuerySet[Game]:
    """What a list of game summaries reads: seats and totals, not the (large) table JSON."""
    return (
        games.select_related("state", "created_by").defer("state__table").prefetch_related(_seats())
    )


def moves_after(*, game: Game, after: int, limit: int = MOVES_PAGE_DEFAULT) -> list[Move]:
    """Up to ``limit`` moves with seq > ``after``, in order (UNIQUE(game, seq) is the index)."""
    limit = max(1, min(limit, MOVES_PAGE_MAX))
    return game_moves(game, after=after, limit=limit)


def moves_page(*, game: Game, after: int, limit: int) -> tuple[list[Move], bool]:
    """A page of the move log and whether more moves follow it.

    One row past the page says whether there is more: asked of moves_after as limit + 1, that
    row was clamped away at the largest page, which then claimed to be the last.
    """
    limit = max(1, min(limit, MOVES_PAGE_MAX))
    rows = game_moves(game, after=after, limit=limit + 1)
    return rows[:limit], len(rows) > limit


def hands_of(*, game: Game) -> list[Hand]:
    return list(Hand.objects.filter(game=game).order_by("number"))


def recent_moves(*, game: Game, limit: int = 40) -> list[Move]:
    """The last ``limit`` moves, oldest first: the web game page's history (newest hands)."""
    rows = game_moves(game, latest_first=True, limit=max(1, limit))
    rows.reverse()
    return rows
