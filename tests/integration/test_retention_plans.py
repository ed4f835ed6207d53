"""The prunes' plans on PostgreSQL: every statement a prune runs reads an index range, never
the whole table (docs/operations.md, "Retention", shows these plans).

Tables are filled with generate_series (tens of thousands of rows, most of them due), analysed,
then each prune runs in small chunks while its statements are captured, and every captured
statement is explained: no sequential scan of the pruned table (or of any other), and the
index the prune is built on is the one used.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import UserSession
from clients.services.retention import feed_prune
from games.models import Game
from games.services import retention
from games.services.retention import Budget, Pruned, games_retire, idempotency_prune
from notifications.services.retention import outbox_prune
from tests.integration.plans import indexes_used

pytestmark = pytest.mark.integration

OLD, RECENT = 40_000, 5_000


def _sql(statement: str, params: list[Any] | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])


@pytest.fixture
def filled(db: Any) -> dict[str, Any]:
    user = get_user_model().objects.create_user(username="owner", email="o@example.com")
    game = Game.objects.create(variant="classic", players=2, created_by=user)
    now = timezone.now()
    old, recent = now - timedelta(days=40), now - timedelta(days=1)
    for when, first, count in ((old, 0, OLD), (recent, OLD, RECENT)):
        # Outbox rows: done but for one in twenty (pending rows are never pruned).
        _sql(
            """INSERT INTO notifications_outbox (recipient_id, address, game_id, move_seq, kind,
                channel, key, payload, status, attempts, next_attempt_at, last_error, created_at)
            SELECT %s, '', %s, n, 'your_turn', 'email',
                substring(sha256(convert_to('k' || n, 'UTF8')) FROM 1 FOR 16), '{}',
                CASE WHEN n %% 20 = 0 THEN 'pending' ELSE 'sent' END, 1,
                %s + n * interval '1 ms', '', %s + n * interval '1 ms'
            FROM generate_series(%s, %s) n""",
            [user.pk, game.pk, when, when, first, first + count - 1],
        )
        _sql(
            """INSERT INTO clients_event (recipient_id, game_id, kind, seq, facts, created_at)
            SELECT CASE WHEN n %% 4 = 0 THEN %s END, %s, 'move', n, '{}',
                %s + n * interval '1 ms'
            FROM generate_series(%s, %s) n""",
            [user.pk, game.pk, when, first, first + count - 1],
        )
        _sql(
            """INSERT INTO games_idempotencyrecord (user_id, key, fingerprint, response_status,
                response_headers, created_at)
            SELECT %s, substring(sha256(convert_to('k' || n, 'UTF8')) FROM 1 FOR 16),
                '\\x00'::bytea, 200, NULL, %s + n * interval '1 ms'
            FROM generate_series(%s, %s) n""",
            [user.pk, now - timedelta(hours=30 if when == old else 1), first, first + count - 1],
        )
    _sql(
        """INSERT INTO clients_webhook (owner_id, url, kinds, secret, active, cursor, claims,
            consecutive_failures, disabled_reason, created_at)
        VALUES (%s, 'http://127.0.0.1:9/', '[]', 's', true, 0, 0, 0, '', now())""",
        [user.pk],
    )
    # A delivery for one event in three, logged recently: its event goes, it stays.
    _sql(
        """INSERT INTO clients_webhookdelivery (webhook_id, event_id, attempt, ok, error,
            created_at)
        SELECT (SELECT max(id) FROM clients_webhook), id, 1, true, '', now()
        FROM clients_event WHERE id %% 3 = 0"""
    )
    _sql("ANALYZE")
    return {"user": user, "now": now}


def _captured(run: Any) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        result = run()
    statements = [q["sql"] for q in queries if q["sql"].startswith(("SELECT", "UPDATE", "DELETE"))]
    return result, statements


def test_the_outbox_prune_walks_the_primary_key(filled, settings):
    """No index on created_at (issue 25): the old rows are the ids below the first recent one,
    the pending ones among them walked over and kept."""
    settings.CANASTA_PRUNE_CHUNK = 1000
    pruned, statements = _captured(lambda: outbox_prune(days=30, budget=Budget()))
    assert pruned == Pruned(OLD - OLD // 20, done=True)
    assert "notifications_outbox_pkey" in indexes_used(statements)


def test_the_feed_prune_walks_the_primary_key_and_clears_the_log_by_its_index(filled, settings):
    settings.CANASTA_PRUNE_CHUNK = 1000
    pruned, statements = _captured(lambda: feed_prune(days=30, budget=Budget()))
    assert pruned == Pruned(OLD, done=True)
    assert any(s.startswith("UPDATE") for s in statements)
    used = indexes_used(statements)
    assert "clients_event_pkey" in used
    assert any(name.startswith("clients_webhookdelivery_event_id") for name in used)


def test_the_idempotency_prune_walks_the_primary_key(filled, settings):
    settings.CANASTA_PRUNE_CHUNK = 1000
    pruned, statements = _captured(lambda: idempotency_prune(budget=Budget()))
    assert pruned == Pruned(OLD, done=True)
    assert "games_idempotencyrecord_pkey" in indexes_used(statements)


def test_deleting_a_user_finds_their_events_by_index(filled):
    """PostgreSQL checks every foreign key to a deleted user: the events' check reads the
    partial index of events with a recipient (before, a scan of every event)."""
    sql = f"SELECT 1 FROM clients_event WHERE recipient_id = {filled['user'].pk}"
    assert "event_recipient_idx" in indexes_used([sql])


def test_deleting_a_user_finds_their_sessions_by_index(db):
    """An account's sessions are deleted along the partial index of signed-in sessions, not
    by reading and decoding every session (as when the account was only in the signed data)."""
    _sql(
        """INSERT INTO accounts_session (session_key, session_data, expire_date, user_id)
        SELECT md5(n::text), 'x', now() + interval '1 day', CASE WHEN n %% 3 > 0 THEN n END
        FROM generate_series(1, 30000) n"""
    )
    _sql("ANALYZE accounts_session")
    with CaptureQueriesContext(connection) as queries:
        UserSession.objects.filter(user_id=12).delete()
    statements = [q["sql"] for q in queries if q["sql"].startswith(("SELECT", "DELETE"))]
    assert indexes_used(statements) == {"session_user_idx"}


def test_no_index_repeats_the_leading_columns_of_another(db):
    """An index whose columns begin another index of the same table (and that is neither
    unique nor partial) costs writes and space and serves nothing the other does not."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, i.indexrelid::regclass::text, i.indkey::text, i.indisunique,
                i.indpred IS NOT NULL, am.amname,
                array_to_string(i.indclass::oid[], ' ')
            FROM pg_index i
            JOIN pg_class c ON c.oid = i.indrelid
            JOIN pg_namespace ns ON ns.oid = c.relnamespace AND ns.nspname = 'public'
            JOIN pg_class ic ON ic.oid = i.indexrelid
            JOIN pg_am am ON am.oid = ic.relam
            WHERE c.relname NOT LIKE 'auth%%' AND c.relname NOT LIKE 'django%%'"""
        )
        rows = cursor.fetchall()
    duplicates = []
    for table, name, keys, unique, partial, method, ops in rows:
        for other_table, other, other_keys, _, other_partial, other_method, other_ops in rows:
            if other_table != table or other == name or unique or partial or other_partial:
                continue
            same_ops = other_ops.split()[: len(ops.split())] == ops.split()
            if (
                method == other_method
                and same_ops
                and other_keys.split()[: len(keys.split())] == keys.split()
            ):
                duplicates.append(f"{name} repeats {other}")
    assert duplicates == []


GAMES, DUE = 30_000, 400


@pytest.fixture
def finished_games(db: Any) -> dict[str, Any]:
    """GAMES finished games, all but DUE of them retired already, each with a seat, a reply
    address, an inbound mail, a presence row and an invitation."""
    user = get_user_model().objects.create_user(username="owner", email="o@example.com")
    now = timezone.now()
    _sql(
        """INSERT INTO games_game (id, variant, players, options, is_public, rated, status,
            version, last_seq, timeout_policy, weekend_pause, bot_turn, seating_seed,
            created_by_id, created_at, end_reason, finished_at, retired_at)
        SELECT gen_random_uuid(), 'classic', 2, '{}', true, true, 'finished', 1, 0,
            'autoplay', false, false, '', %s, %s, 'match_over',
            %s - n * interval '1 minute', CASE WHEN n > %s THEN %s END
        FROM generate_series(1, %s) n""",
        [user.pk, now, now - timedelta(days=31), DUE, now, GAMES],
    )
    per_game = [
        """INSERT INTO games_seat (number, kind, status, created_at, drew, game_id, user_id,
            away, bot_level, bot_memory, timeouts_in_a_row, sheet_seen)
        SELECT 0, 'human', 'joined', now(), '', id, %(user)s, false, '', '{}', 0, 0
        FROM games_game""",
        """INSERT INTO mailplay_replytoken (game_id, user_id, seat_number, token, created_at)
        SELECT id, %(user)s, 0, substring(sha256(convert_to(id::text, 'UTF8')) FROM 1 FOR 16),
            now() FROM games_game""",
        """INSERT INTO mailplay_inboundmessage (message_key, message_id, from_address, source,
            received_at, status, reason, size, game_id, token_id, user_id)
        SELECT encode(t.token, 'hex'), '', '', 'pipe', now(), 'processed', 'applied', 0, t.game_id, t.id,
            %(user)s FROM mailplay_replytoken t""",
        """INSERT INTO notifications_gamepresence (user_id, game_id, last_seen_at)
        SELECT %(user)s, id, now() FROM games_game""",
        """INSERT INTO games_invitation (game_id, inviter_id, email, token, status, created_at,
            expires_at)
        SELECT id, %(user)s, 'friend@example.com', id::text, 'pending', now(), now()
        FROM games_game""",
    ]
    with connection.cursor() as cursor:
        for statement in per_game:
            cursor.execute(statement, {"user": user.pk})
    _sql("ANALYZE")
    return {"now": now}


def test_retiring_games_reads_the_due_games_and_their_rows_by_index(finished_games, monkeypatch):
    # A batch a small part of the tables, as 200 games are of a production install's.
    monkeypatch.setattr(retention, "GAMES_PER_CHUNK", 20)
    pruned, statements = _captured(lambda: games_retire(budget=Budget()))
    assert pruned == Pruned(DUE, done=True)
    used = indexes_used(statements)
    assert {"game_to_retire_idx", "reply_token_game_user", "seat_number_unique"} <= used
    for table in ("mailplay_inboundmessage_game_id", "notifications_gamepresence_game_id"):
        assert any(name.startswith(table) for name in used), (table, used)


def test_keys_and_tokens_have_no_pattern_copy_of_their_unique_index(db):
    """Compared whole only: the varchar_pattern_ops copy Django adds for LIKE is dropped."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT indexname FROM pg_indexes WHERE indexname LIKE '%%\\_like' AND tablename IN
            ('notifications_outbox', 'mailplay_replytoken', 'mailplay_inboundmessage',
             'clients_apitoken', 'games_invitation')"""
        )
        assert cursor.fetchall() == []


def test_every_foreign_key_leads_an_index(db):
    """Deleting a row (a user, a game) makes PostgreSQL look up every foreign key to it: each
    must begin an index, or the delete scans the referring table (25.8 s for a user with no
    rows once, at 100k games, through clients_event.recipient_id)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.conrelid::regclass::text, a.attname
            FROM pg_constraint c
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
            WHERE c.contype = 'f' AND array_length(c.conkey, 1) = 1
            AND NOT EXISTS (SELECT 1 FROM pg_index i
                WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])"""
        )
        assert cursor.fetchall() == []
