"""Races on real PostgreSQL with real threads (one connection each): the game row lock must
let exactly one of two racing writers win, and the log must have no gap and no duplicate."""

import functools
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection, transaction

from games.engine.randomplay import random_action
from games.models import Game, GameStatus, Hand, IdempotencyRecord, Move, Seat
from games.services import lobby
from games.services.common import game_lock
from games.services.errors import GameError
from games.services.replay import game_verify
from tests.game_fixtures import (  # noqa: F401
    client_for,
    current_table,
    fast_password_hashing,
    make_user,
    play_random,
    start_game,
    user_at,
)

pytestmark = pytest.mark.integration


def _race(functions: list[Callable[[], Any]]) -> list[Any]:
    """Start every function at the same moment on its own thread; results or exceptions."""
    barrier = threading.Barrier(len(functions))
    results: list[Any] = [None] * len(functions)

    def run(index: int, function: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = function()
        except BaseException as error:
            results[index] = error
        finally:
            connection.close()  # or the test database cannot be dropped

    threads = [threading.Thread(target=run, args=(i, f)) for i, f in enumerate(functions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive()
    return results


@pytest.fixture
def cast(transactional_db) -> dict[str, Any]:
    cache.clear()
    return {name: make_user(name) for name in ("alice", "bob", "carol", "dave", "eve")}


def _assert_log_is_whole(game: Game) -> None:
    seqs = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    game.refresh_from_db()
    assert game.last_seq == len(seqs)


def test_it_runs_on_postgresql(transactional_db):
    assert connection.vendor == "postgresql"


def test_two_clients_racing_to_move_one_wins_the_other_gets_409(cast):
    game = start_game(cast)
    table = current_table(game)
    mover = user_at(game, table.turn)
    body = {"actions": [{"type": "draw"}], "expected_version": game.version}
    url = f"/api/v1/games/{game.pk}/actions/"

    def post(client: Any) -> tuple[int, str]:
        response = client.post(url, body, format="json")
        return response.status_code, response.json().get("error", {}).get("code", "")

    # Two devices of the mover, signed in before the race.
    devices = [client_for(mover) for _ in range(2)]
    results = _race([functools.partial(post, client) for client in devices])

    assert sorted(results) == [(200, ""), (409, "stale_version")]
    assert Move.objects.filter(game=game).count() == 1
    _assert_log_is_whole(game)


def test_many_racing_movers_leave_a_log_without_gaps_or_duplicates(cast):
    game = start_game(cast)
    rng = random.Random(1)
    outcomes: list[str] = []

    def attempt() -> None:
        # Each thread reads the state and races to play the next move on it, repeatedly.
        for _ in range(15):
            current = Game.objects.get(pk=game.pk)
            if current.status != GameStatus.ACTIVE:
                return
            table = current_table(current)
            action = random_action(table, random.Random(rng.random()))
            seat = Seat.objects.select_related("user").get(game=game, number=table.turn)
            try:
                from games.services.moves import moves_submit

                moves_submit(
                    game_id=game.pk,
                    user=seat.user,
                    actions=[action],
                    expected_version=current.version,
                )
                outcomes.append("ok")
            except GameError as error:
                outcomes.append(error.code)

    _race([attempt, attempt, attempt, attempt])

    assert outcomes.count("ok") >= 15
    assert set(outcomes) <= {"ok", "stale_version"}
    _assert_log_is_whole(game)
    assert game_verify(game=Game.objects.get(pk=game.pk)).ok


def test_racing_for_the_last_seat_seats_one_and_starts_once(cast):
    game = lobby.game_create(creator=cast["alice"], variant="classic", players=2)

    def join(name: str) -> Callable[[], str]:
        def run() -> str:
            try:
                lobby.game_join(game_id=game.pk, user=cast[name])
                return "joined"
            except GameError as error:
                return error.code

        return run

    results = _race([join("bob"), join("carol"), join("dave"), join("eve")])

    assert sorted(results) == ["game_not_open"] * 3 + ["joined"]
    assert Seat.objects.filter(game=game).count() == 2
    assert Hand.objects.filter(game=game).count() == 1
    assert Game.objects.get(pk=game.pk).status == GameStatus.ACTIVE


def test_a_concurrent_duplicate_with_one_idempotency_key_applies_once(cast):
    game = start_game(cast)
    mover = user_at(game, current_table(game).turn)
    body = {"actions": [{"type": "draw"}], "expected_version": game.version}
    url = f"/api/v1/games/{game.pk}/actions/"

    def post(client: Any) -> tuple[int, str]:
        response = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="dup")
        return response.status_code, response.json().get("error", {}).get("code", "")

    # Three devices of the mover, signed in before the race.
    devices = [client_for(mover) for _ in range(3)]
    results = _race([functools.partial(post, client) for client in devices])

    assert (200, "") in results
    # The later ones queue on the game lock, are refused (stale), are rolled back when the
    # stored answer turns out to exist, and send it: every device gets the first answer.
    assert set(results) == {(200, "")}
    assert Move.objects.filter(game=game).count() == 1
    assert IdempotencyRecord.objects.get(key="dup").response_status == 200
    # Once the first has finished, a retry gets its response.
    status, _ = post(devices[0])
    assert status == 200 and Move.objects.filter(game=game).count() == 1


def test_a_concurrent_duplicate_without_a_lock_to_wait_on_creates_one_table(cast):
    """Creating a table takes no game lock: the duplicates do their work side by side, and
    the stored answer's INSERT decides. The later ones wait on the key's unique index for the
    first to commit, are rolled back (no second table) and answer with the first response."""
    body = {"variant": "classic", "players": 2}

    def post(client: Any) -> tuple[int, str]:
        response = client.post("/api/v1/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="t")
        return response.status_code, response.json().get("id", "")

    devices = [client_for(cast["alice"]) for _ in range(3)]
    results = _race([functools.partial(post, client) for client in devices])

    assert Game.objects.count() == 1
    assert set(results) == {(201, str(Game.objects.get().pk))}
    assert IdempotencyRecord.objects.get(key="t").response_status == 201


def test_a_writer_that_queued_for_the_game_lock_sees_the_seats_as_the_first_left_them(cast):
    """PostgreSQL (READ COMMITTED) re-reads after a lock wait only the rows a statement locks:
    the locked game's statement locks its seat rows too, so the second writer does not get
    the seats as they were before the first writer's changes."""
    game = start_game(cast)
    seat = Seat.objects.get(game=game, number=0)
    holding = threading.Event()
    seen: dict[str, int] = {}

    def first() -> None:
        with transaction.atomic():
            game_lock(game_id=game.pk)
            Seat.objects.filter(pk=seat.pk).update(timeouts_in_a_row=5)
            holding.set()
            time.sleep(1.0)  # the second writer queues behind this lock meanwhile

    def second() -> None:
        assert holding.wait(timeout=10)
        time.sleep(0.2)
        with transaction.atomic():
            locked = game_lock(game_id=game.pk)
            seen["timeouts"] = next(
                s for s in locked.seats.all() if s.pk == seat.pk
            ).timeouts_in_a_row

    results = _race([first, second])

    assert results == [None, None]
    assert seen == {"timeouts": 5}


def test_services_play_and_verify_on_postgresql(cast):
    game = start_game(cast, options={"target": 100})
    rng = random.Random(9)
    while game.status == GameStatus.ACTIVE:
        game = play_random(game, 60, rng)

    assert game.status == GameStatus.FINISHED
    report = game_verify(game=game)
    assert report.ok, report.problems
    _assert_log_is_whole(game)


def test_resign_racing_a_move_is_serialised(cast):
    game = start_game(cast)
    table = current_table(game)
    mover = user_at(game, table.turn)
    other = user_at(game, (table.turn + 1) % 4)

    def move() -> str:
        from games.services.moves import moves_submit

        try:
            moves_submit(
                game_id=game.pk,
                user=mover,
                actions=[{"type": "draw"}],
                expected_version=game.version,
            )
            return "moved"
        except GameError as error:
            return error.code

    def resign() -> str:
        from games.services.moves import game_resign

        game_resign(game_id=game.pk, user=other)
        return "resigned"

    results = _race([move, resign])

    assert "resigned" in results
    assert results[0] in ("moved", "game_not_active")
    _assert_log_is_whole(game)
    assert game_verify(game=Game.objects.get(pk=game.pk)).ok


def test_concurrent_sign_ins_each_get_a_key_that_works(cast):
    """Several devices of one player signing in at once: every new key works at once."""
    alice = cast["alice"]

    def sign_in_and_read() -> int:
        return client_for(alice).get("/api/v1/games/").status_code

    for _ in range(5):
        assert _race([sign_in_and_read] * 4) == [200] * 4
