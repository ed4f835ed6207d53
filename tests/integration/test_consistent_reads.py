"""One answer, one moment (issue 15, item 10), on real PostgreSQL with real threads.

A game's answer is several queries. A writer that commits between two of them used to show
through: version 13 with the seats of version 14. The test makes that interleaving happen
every time: the reader's thread stops right after the game row is read, a join commits on
another thread, then the reader goes on. And an idempotent replay is the first response byte
for byte (jsonb had reordered its keys).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection

from games.models import Game
from games.services import lobby
from tests.game_fixtures import (  # noqa: F401
    client_for,
    fast_password_hashing,
    make_user,
    play_random,
    start_game,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def cast(transactional_db) -> dict[str, Any]:
    cache.clear()
    return {name: make_user(name) for name in ("alice", "bob", "carol", "dave", "eve")}


def _reads_game_row(sql: str) -> bool:
    return sql.lstrip().upper().startswith("SELECT") and 'FROM "games_game"' in sql


def _read_while_a_writer_commits(read: Callable[[], Any], write: Callable[[], Any]) -> Any:
    """``read()`` on one thread, ``write()`` committing on another right after the reader's
    first query of the game row."""
    game_read, written = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def pause_after_the_game_row(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        result = execute(sql, params, many, context)
        if _reads_game_row(sql) and not game_read.is_set():
            game_read.set()
            assert written.wait(timeout=20), "the writer did not commit"
        return result

    def reader() -> None:
        try:
            with connection.execute_wrapper(pause_after_the_game_row):
                outcome["read"] = read()
        except BaseException as error:
            outcome["read"] = error
        finally:
            game_read.set()
            connection.close()

    def writer() -> None:
        try:
            assert game_read.wait(timeout=20), "the reader did not read the game"
            outcome["write"] = write()
        except BaseException as error:
            outcome["write"] = error
        finally:
            written.set()
            connection.close()

    threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
    for value in outcome.values():
        if isinstance(value, BaseException):
            raise value
    return outcome["read"]


def test_it_runs_on_postgresql(transactional_db):
    assert connection.vendor == "postgresql"


@pytest.mark.parametrize(
    "path",
    ["/api/v1/games/{id}/", "/api/v1/games/", "/api/v1/games/open/"],
)
def test_a_game_answer_is_of_one_moment_while_a_player_joins(cast, path):
    game = lobby.game_create(creator=cast["alice"], variant="classic", players=4)
    reader = cast["carol"] if path.endswith("/open/") else cast["alice"]
    url = path.format(id=game.pk)
    before = client_for(reader).get(url).json()

    answer = _read_while_a_writer_commits(
        lambda: client_for(reader).get(url).json(),
        lambda: lobby.game_join(game_id=game.pk, user=cast["bob"]),
    )

    # The join committed: a new answer shows it, the one read across it does not.
    assert client_for(reader).get(url).json() != before
    assert answer == before


def test_a_page_of_the_move_log_is_of_one_moment(cast):
    game = start_game(cast)
    url = f"/api/v1/games/{game.pk}/moves/"
    before = client_for(cast["alice"]).get(url).json()

    answer = _read_while_a_writer_commits(
        lambda: client_for(cast["alice"]).get(url).json(),
        lambda: play_random(game, 1, random.Random(1)),
    )

    assert answer == before
    assert Game.objects.get(pk=game.pk).last_seq == before["last_seq"] + 1


def test_an_idempotent_replay_is_the_first_response_byte_for_byte(cast):
    client = client_for(cast["alice"])
    body = {"variant": "classic", "players": 4, "bots": ["basic"], "turn_seconds": None}

    first = client.post("/api/v1/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="one")
    again = client.post("/api/v1/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="one")

    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.content == first.content
