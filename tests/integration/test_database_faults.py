"""The database connection dropped in the middle of a request (issue 10, faults), on a real
PostgreSQL: the server kills the request's backend after the game row is locked and before
the move is written. The client gets a clean 503 in the one error shape, nothing is half
applied (no move, no version change, no notification), and the same request, retried with its
Idempotency-Key, is applied exactly once on a fresh connection; `verify_games` is clean.
"""

from __future__ import annotations

import io
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from clients.models import Event
from games import engine
from games.models import Game, Move
from notifications import tasks
from notifications.models import Outbox
from tests.api.helpers import error_of, url
from tests.game_fixtures import (  # noqa: F401
    account_token_key,
    client_for,
    current_table,
    fast_password_hashing,
    start_game,
    user_at,
    users,
)
from tests.integration.processes import process_env, web

pytestmark = pytest.mark.integration


def _terminate(pid: int) -> None:
    """What a database failover, a restart or a network cut does to one connection."""
    database = settings.DATABASES["default"]
    params = {
        "host": database["HOST"],
        "port": database["PORT"],
        "user": database["USER"],
        "password": database["PASSWORD"],
        "dbname": database["NAME"],
    }
    with psycopg.connect(**{k: v for k, v in params.items() if v}, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])


@pytest.fixture
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks.deliver_outbox, "delay", lambda *_: None)


def _snapshot(game: Game) -> tuple[int, int, int, int]:
    game.refresh_from_db()
    return (
        game.version,
        Move.objects.filter(game=game).count(),
        Outbox.objects.count(),
        Event.objects.count(),
    )


@pytest.mark.django_db(transaction=True)
def test_a_connection_dropped_mid_move_changes_nothing_and_the_retry_applies_once(
    users: dict[str, Any],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    no_broker: None,
) -> None:
    game = start_game(users)
    table = current_table(game)
    player = client_for(user_at(game, table.turn))
    before = _snapshot(game)
    request = {"actions": [{"type": "draw"}], "expected_version": before[0]}
    key = str(uuid.uuid4())

    honest_apply = engine.apply
    dropped: list[int] = []

    def apply_after_losing_the_connection(*args: Any, **kwargs: Any) -> Any:
        # Inside the move's transaction, with the game row locked: the backend goes away.
        if not dropped:
            pid = connection.connection.info.backend_pid
            _terminate(pid)
            dropped.append(pid)
        return honest_apply(*args, **kwargs)

    monkeypatch.setattr(engine, "apply", apply_after_losing_the_connection)
    failed = player.post(url(game, "actions"), request, format="json", HTTP_IDEMPOTENCY_KEY=key)

    assert dropped, "the request never reached the move"
    error = error_of(failed, 503)
    assert error["code"] == "service_unavailable"
    assert failed.headers.get("Retry-After")
    assert str(dropped[0]) not in failed.content.decode()  # no internals in the answer
    assert _snapshot(game) == before  # nothing half applied, nothing queued

    # The database is back (it never left: one connection did); the retry is applied once.
    monkeypatch.setattr(engine, "apply", honest_apply)
    retried = player.post(url(game, "actions"), request, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert retried.status_code == 200, retried.content[:500]
    again = player.post(url(game, "actions"), request, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert again.status_code == 200 and again.json() == retried.json()
    version, moves, outbox, events = _snapshot(game)
    assert (version, moves) == (before[0] + 1, before[1] + 1)
    assert outbox >= before[2] and events > before[3]

    report = io.StringIO()
    call_command("verify_games", stdout=report, stderr=report)
    assert "1 games checked, 0 differ" in report.getvalue(), report.getvalue()


def _terminate_all_but_mine() -> int:
    """Drop every other connection to the test database (the server's): a database restart
    as the server sees it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_a_real_server_answers_again_once_its_database_connections_were_dropped(
    users: dict[str, Any],  # noqa: F811
    no_broker: None,
    tmp_path: Path,
) -> None:
    """The Procfile's web process keeps its connections between requests (in its connection
    pool): when the database drops them (a restart, a failover), the next requests are answered
    on new connections, reads and moves alike, and the move is applied once."""
    game = start_game(users)
    env = process_env(tmp_path / "var", tmp_path / "mail", CONN_MAX_AGE="600")
    player_seat = current_table(game).turn
    player = user_at(game, player_seat)
    moves_before = Move.objects.filter(game=game).count()
    with web(env, tmp_path / "gunicorn.log", workers=1) as server:
        server.token = account_token_key(player)
        for _ in range(4):  # the pool holds connections now
            assert server.call("GET", f"/api/v1/games/{game.pk}/")[0] == 200

        assert _terminate_all_but_mine() >= 1

        status, body = server.call("GET", f"/api/v1/games/{game.pk}/")
        assert status == 200, body
        version = body["version"]
        status, body = server.call(
            "POST",
            f"/api/v1/games/{game.pk}/actions/",
            {"actions": [{"type": "draw"}], "expected_version": version},
        )
        assert status == 200, body
        assert body["version"] == version + 1
        log = (tmp_path / "gunicorn.log").read_text(errors="replace")
        assert "Traceback" not in log, log[-3000:]

    assert Move.objects.filter(game=game).count() == moves_before + 1  # applied once
    report = io.StringIO()
    call_command("verify_games", stdout=report, stderr=report)
    assert "1 games checked, 0 differ" in report.getvalue(), report.getvalue()
