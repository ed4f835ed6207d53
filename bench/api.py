#!/usr/bin/env python
"""API benchmark: the cost of reading a game and of a move, early and late in a long game,
against a bare DRF endpoint measured in the same run (docs/benchmarks.md: ratios, not absolutes).

    .venv/bin/python bench/api.py [--samples 200] [--late 3000]

Runs in-process (Django's test client, token auth, DEBUG off) on a fresh SQLite file unless
BENCH_DATABASE_URL is set. Games are fast-forwarded through the service layer; only the
measured requests go through HTTP handling. Every POST is what a real client sends: a fresh
`Idempotency-Key`, players with email addresses (so the turn email is really queued), one
test client per player built once (a new client per request cost WhiteNoise a rescan of the
static files each time). Prints the statements of one turn-passing move and the load average
(the machine is shared: compare ratios of the same run). Aims (docs/move-path-speed.md): a
move near move 3,000 costs at most 1.2x a move near move 10, and a move at most 5x the bare
endpoint.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _configure() -> None:
    workdir = tempfile.mkdtemp(prefix="canasta-bench-")
    os.environ["DATABASE_URL"] = os.environ.get(
        "BENCH_DATABASE_URL", f"sqlite:///{workdir}/bench.sqlite3"
    )
    os.environ.pop("REDIS_URL", None)
    # Queued deliveries (one per turn email) go to files in the scratch directory, not var/.
    os.environ.setdefault("CANASTA_VAR_DIR", workdir)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="canasta_site.settings",
        DEBUG="0",  # DEBUG keeps every query in memory: not what production runs
        SECRET_KEY="bench-only-" + "x" * 40,
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",  # the test client speaks plain HTTP (settings.py, DEBUG off)
        THROTTLE_ANON_RATE="100000000/min",
        THROTTLE_READ_RATE="100000000/min",
        THROTTLE_PLAY_RATE="100000000/min",
    )


_configure()

import django  # noqa: E402

django.setup()

from bare import install_bare_endpoint  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402

from clients.services.tokens import account_token_create  # noqa: E402
from games import engine  # noqa: E402
from games.engine.randomplay import random_action  # noqa: E402
from games.models import Game, GameState, GameStatus, Seat  # noqa: E402
from games.services import lobby  # noqa: E402
from games.services.moves import moves_submit  # noqa: E402


def _users() -> list[Any]:
    users = []
    for name in ("north", "east", "south", "west"):
        # An address, so that every turn-passing move queues its email as in production.
        user = get_user_model().objects.create_user(
            username=name, password=None, email=f"{name}@example.com"
        )
        users.append(user)
    return users


def _new_game(users: list[Any]) -> Game:
    game = lobby.game_create(
        creator=users[0],
        variant="classic",
        players=4,
        # A match to 100,000 points lasts thousands of moves.
        options={"seating": "invitation", "target": 100000},
    )
    for user in users[1:]:
        game = lobby.game_join(game_id=game.pk, user=user)
    return game


def _next(game: Game, rng: random.Random) -> tuple[Any, dict[str, Any], int]:
    """The user to move, a random legal action for them, and the version to send."""
    game = Game.objects.get(pk=game.pk)
    table = engine.from_json(GameState.objects.get(game=game).table)
    user = Seat.objects.select_related("user").get(game=game, number=table.turn).user
    return user, random_action(table, rng), game.version


def _forward(game: Game, to_move: int, rng: random.Random) -> Game:
    while game.last_seq < to_move and game.status == GameStatus.ACTIVE:
        user, action, version = _next(game, rng)
        game = moves_submit(game_id=game.pk, user=user, actions=[action], expected_version=version)
    return game


_CLIENTS: dict[int, Client] = {}


def _client(user: Any) -> Client:
    # One client per player, made once: account keys are stored hashed (made once, kept here),
    # and a new Client per request rebuilt the WSGI handler and its middleware every time.
    if user.pk not in _CLIENTS:
        key = account_token_create(owner=user)[1]
        _CLIENTS[user.pk] = Client(HTTP_AUTHORIZATION=f"Token {key}")
    return _CLIENTS[user.pk]


def _timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    response = call()
    elapsed = time.perf_counter() - start
    assert response.status_code == 200, (response.status_code, response.content[:300])
    return elapsed


def _gets(game: Game, user: Any, samples: int) -> list[float]:
    client = _client(user)
    url = f"/api/v1/games/{game.pk}/"
    return [_timed(lambda: client.get(url)) for _ in range(samples)]


_KEY_COUNTER = iter(range(1, 10**9))


def _post(game: Game, rng: random.Random) -> Callable[[], Any]:
    """The next move of ``game`` as a request ready to send (fresh Idempotency-Key)."""
    user, action, version = _next(game, rng)
    client = _client(user)
    body = {"actions": [action], "expected_version": version}
    key = f"bench-{next(_KEY_COUNTER)}"
    return lambda: client.post(
        f"/api/v1/games/{game.pk}/actions/",
        body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


def _posts(games: list[Game], per_game: int, rng: random.Random) -> list[float]:
    return [_timed(_post(game, rng)) for game in games for _ in range(per_game)]


class _Statements:
    """Counts the SQL statements sent, transaction control (BEGIN, COMMIT, SAVEPOINT, RELEASE)
    apart: DEBUG is off, so connection.queries keeps nothing."""

    CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")

    def __init__(self) -> None:
        self.sql: list[str] = []
        self.control = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if sql.lstrip().upper().startswith(self.CONTROL):
            self.control += 1
        else:
            self.sql.append(sql)
        return execute(sql, params, many, context)


def _turn_passing_statements(game: Game, rng: random.Random) -> _Statements:
    """The statements of the next move of ``game`` that passes the turn (a discard)."""
    while True:
        send = _post(game, rng)
        table = engine.from_json(GameState.objects.get(game=game).table)
        counter = _Statements()
        with connection.execute_wrapper(counter):
            response = send()
        assert response.status_code == 200, response.content[:300]
        after = engine.from_json(GameState.objects.get(game=game).table)
        if after.turn != table.turn and after.hand == table.hand:
            return counter


def _summary(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p99 * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--early", type=int, default=10)
    parser.add_argument("--late", type=int, default=3000)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    install_bare_endpoint()
    rng = random.Random(2026)
    users = _users()

    print(f"database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}", flush=True)
    print("load average (1, 5, 15 min) at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    per_game = 5
    early_games = [
        _forward(_new_game(users), args.early, rng) for _ in range(max(1, args.samples // per_game))
    ]
    print(f"fast-forwarding a game to move {args.late} ...", flush=True)
    late_game = _forward(_new_game(users), args.late, rng)
    assert late_game.status == GameStatus.ACTIVE, "the long game ended early"

    bare_client = _client(users[0])
    results = {
        "bare DRF endpoint": [
            _timed(lambda: bare_client.get("/bench/bare/")) for _ in range(args.samples)
        ],
        f"GET game near move {args.early}": _gets(early_games[0], users[0], args.samples),
        f"GET game near move {args.late}": _gets(late_game, users[0], args.samples),
        f"POST action near move {args.early}": _posts(early_games, per_game, rng),
        f"POST action near move {args.late}": _posts([late_game], args.samples, rng),
    }
    statements = _turn_passing_statements(early_games[-1], rng)
    bare_median, _ = _summary(results["bare DRF endpoint"])
    print(f"{'request':32} {'median ms':>10} {'p99 ms':>8} {'x bare':>7}")
    medians = {}
    for name, times in results.items():
        median, p99 = _summary(times)
        medians[name] = median
        print(f"{name:32} {median:10.2f} {p99:8.2f} {median / bare_median:7.2f}")
    late_over_early = (
        medians[f"POST action near move {args.late}"]
        / medians[f"POST action near move {args.early}"]
    )
    get_ratio = (
        medians[f"GET game near move {args.late}"] / medians[f"GET game near move {args.early}"]
    )
    print(f"POST move {args.late} / move {args.early}: {late_over_early:.2f} (aim <= 1.2)")
    print(f"GET  move {args.late} / move {args.early}: {get_ratio:.2f}")
    move_ratio = medians[f"POST action near move {args.early}"] / bare_median
    print(f"POST move / bare endpoint: {move_ratio:.2f} (aim <= 5)")
    print(
        f"statements of a turn-passing move with an Idempotency-Key: {len(statements.sql)}"
        f" (+{statements.control} BEGIN/COMMIT/SAVEPOINT/RELEASE; aim <= 8)"
    )
    if os.environ.get("BENCH_SHOW_SQL"):
        for sql in statements.sql:
            print("   ", sql[:160])
    print("load average (1, 5, 15 min) at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
