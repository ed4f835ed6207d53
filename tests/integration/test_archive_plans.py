"""The move archive's plans on PostgreSQL (games.services.archive): the games due are read from
`game_to_archive_idx` (ended games not archived yet), a game's rows from its (game, seq)
index, never a scan of the games or of the move log, however many games were archived before.
The same for the packing of moves a day old (games.services.coldmoves, `game_cold_moves_idx`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Move, MoveArchive, MoveChunk
from games.services import archive
from games.services.archive import moves_archive
from games.services.coldmoves import moves_pack_cold
from games.services.retention import Budget, Pruned
from tests.integration.plans import indexes_used

pytestmark = pytest.mark.integration

GAMES, DUE, MOVES = 30_000, 60, 20


def _sql(statement: str, params: list[Any] | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])


@pytest.fixture
def ended_games(db: Any) -> dict[str, Any]:
    """GAMES ended games, all but DUE archived already, and active games with moves; every
    game not archived has MOVES moves."""
    user = get_user_model().objects.create_user(username="owner", email="o@example.com")
    now = timezone.now()
    _sql(
        """INSERT INTO games_game (id, variant, players, options, is_public, rated, status,
            version, last_seq, timeout_policy, weekend_pause, bot_turn, seating_seed,
            created_by_id, created_at, end_reason, finished_at, moves_archived_at)
        SELECT gen_random_uuid(), 'classic', 2, '{}', true, true,
            CASE WHEN n %% 5 = 0 THEN 'active' ELSE 'finished' END, 1, %s,
            'autoplay', false, false, '', %s, %s, 'match_over',
            CASE WHEN n %% 5 <> 0 THEN %s - n * interval '1 minute' END,
            CASE WHEN n %% 5 <> 0 AND n > %s THEN %s END
        FROM generate_series(1, %s) n""",
        [MOVES, user.pk, now, now - timedelta(days=32), DUE * 5 // 4, now, GAMES],
    )
    _sql(
        """INSERT INTO games_move (game_id, seq, hand, seat, actor, action, events, created_at)
        SELECT g.id, s, 1, s %% 2, 'player', '{"type":"draw"}', '[{"private":0,"cards":["5H"]}]',
            now() + s * interval '1 second'
        FROM games_game g, generate_series(1, %s) s
        WHERE g.moves_archived_at IS NULL""",
        [MOVES],
    )
    # Games that were packed before (their chunks still there) and every game's seats: the
    # packing and the archive read both tables, which are never empty on a host.
    _sql(
        """INSERT INTO games_movechunk (game_id, first_seq, last_seq, first_hand, last_hand, packed)
        SELECT id, 1, %s, 1, 1, '\\x01'::bytea FROM games_game WHERE moves_archived_at IS NOT NULL""",
        [MOVES],
    )
    _sql(
        """INSERT INTO games_seat (game_id, number, user_id, kind, status, drew, bot_level,
            away, timeouts_in_a_row, sheet_seen, created_at)
        SELECT g.id, n, CASE WHEN n = 0 THEN %s END, CASE WHEN n = 0 THEN 'human' ELSE 'bot' END,
            'joined', '', '', false, 0, 0, now()
        FROM games_game g, generate_series(0, 1) n""",
        [user.pk],
    )
    _sql("ANALYZE")
    return {"now": now}


def test_archiving_reads_the_due_games_and_their_moves_by_index(
    ended_games: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(archive, "GAMES_PER_RANGE", 20)
    with CaptureQueriesContext(connection) as queries:
        archived = moves_archive(budget=Budget(), now=ended_games["now"])
    statements = [q["sql"] for q in queries if q["sql"].startswith(("SELECT", "UPDATE", "DELETE"))]

    assert archived == Pruned(DUE * MOVES, done=True)
    assert MoveArchive.objects.count() == DUE
    used = indexes_used(statements)
    assert {"game_to_archive_idx", "move_seq_unique", "games_game_pkey"} <= used, used
    # The active games keep their rows.
    assert Move.objects.count() == (GAMES // 5) * MOVES


def test_packing_reads_the_due_games_and_their_moves_by_index(
    ended_games: Any, monkeypatch: Any
) -> None:
    """The games with moves a day old are read from `game_cold_moves_idx`, however many games
    are played: DUE of the active games are due, the others moved within the day."""
    monkeypatch.setattr(archive, "GAMES_PER_RANGE", 20)
    now = ended_games["now"]
    _sql(
        """WITH due AS (SELECT id FROM games_game WHERE status = 'active' ORDER BY id LIMIT %s)
        UPDATE games_move SET created_at = %s WHERE game_id IN (SELECT id FROM due)""",
        [DUE, now - timedelta(days=2)],
    )
    _sql(
        """UPDATE games_game g SET moves_cold_since = (
            SELECT min(created_at) FROM games_move m WHERE m.game_id = g.id)
        WHERE g.status = 'active'"""
    )
    _sql("ANALYZE games_game")
    rows, chunks = Move.objects.count(), MoveChunk.objects.count()
    with CaptureQueriesContext(connection) as queries:
        packed = moves_pack_cold(budget=Budget(), now=now)
    statements = [q["sql"] for q in queries if q["sql"].startswith(("SELECT", "UPDATE", "DELETE"))]

    assert packed == Pruned(DUE * MOVES, done=True)
    assert MoveChunk.objects.count() == chunks + DUE
    used = indexes_used(statements)
    assert {"game_cold_moves_idx", "move_seq_unique", "games_game_pkey"} <= used, used
    assert Move.objects.count() == rows - DUE * MOVES  # the others keep their rows
