#!/usr/bin/env python
"""CPU of a turn: the requests that play it, the emails it causes, the background work.

    .venv/bin/python bench/turn.py [--turns 200]

Plays `--turns` whole turns of 4-player classic games through the HTTP API (Django's test
client, token auth, DEBUG off, one POST per move as a client sends them: a draw, melds when the
random player has some, a discard; players with addresses, so every turn email is written),
then delivers the emails those turns wrote with the outbox drain (notifications.services.outbox,
Django's locmem email backend: rendering and the backend's work, no network), then runs one
outbox sweep, the digest sweep and the deadline sweep as beat would. Prints the CPU
(time.process_time) and the SQL statements (transaction control apart) of each part per turn,
and the load average (the machine is shared: compare runs made together).

Database: a fresh SQLite file unless BENCH_DATABASE_URL is set; the PostgreSQL database named
there is dropped and created afresh (never point it at data you keep).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import itertools
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _configure() -> None:
    workdir = tempfile.mkdtemp(prefix="canasta-bench-turn-")
    os.environ["DATABASE_URL"] = os.environ.get(
        "BENCH_DATABASE_URL", f"sqlite:///{workdir}/turn.sqlite3"
    )
    os.environ.pop("REDIS_URL", None)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="canasta_site.settings",
        DEBUG="0",
        SECRET_KEY="bench-only-" + "x" * 40,
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",
        THROTTLE_ANON_RATE="100000000/min",
        THROTTLE_READ_RATE="100000000/min",
        THROTTLE_PLAY_RATE="100000000/min",
        # Deliveries are not queued anywhere: this bench drains the outbox itself.
        CELERY_BROKER_URL="memory://",
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        # The site's default (3 minutes): a turn email waits for the player to look first and
        # is sent by the outbox sweep's batches, so a move queues no task. --immediate: 0, each
        # email queued as a delivery task when the move commits (a request pays for queueing).
        CANASTA_TURN_EMAIL_DELAY_MINUTES="0" if "--immediate" in sys.argv else "3",
        LOG_LEVEL="ERROR",
    )


sys.path.insert(0, str(ROOT / "bench"))
from databases import postgres_database_recreate  # noqa: E402

_configure()
if os.environ["DATABASE_URL"].startswith("postgres"):
    postgres_database_recreate(os.environ["DATABASE_URL"])

import django  # noqa: E402

django.setup()

from bare import BARE_PATH, install_bare_endpoint  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core import mail  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from clients.services.tokens import account_token_create  # noqa: E402
from games import engine  # noqa: E402
from games.engine.randomplay import random_action  # noqa: E402
from games.models import Game, GameState, GameStatus, Seat  # noqa: E402
from games.services import lobby  # noqa: E402
from games.services.timeouts import deadlines_sweep  # noqa: E402
from notifications.services.digests import digest_send_due  # noqa: E402
from notifications.services.outbox import outbox_sweep  # noqa: E402

try:
    from notifications.services.outbox import outbox_drain
except ImportError:  # a commit before the drain (for a before/after run): the sweep sent all
    outbox_drain = outbox_sweep


class Statements:
    CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not sql.lstrip().upper().startswith(self.CONTROL):
            self.count += 1
        return execute(sql, params, many, context)


PROFILES: dict[str, cProfile.Profile] = {}


def measured(call: Callable[[], Any], part: str = "") -> tuple[float, int, Any]:
    """(CPU seconds, statements, result) of one call; profiled into PROFILES[part] if asked."""
    counter = Statements()
    profile = PROFILES.get(part)
    start = time.process_time()
    with connection.execute_wrapper(counter):
        if profile is not None:
            profile.enable()
        result = call()
        if profile is not None:
            profile.disable()
    return time.process_time() - start, counter.count, result


def new_game(n: int) -> tuple[Game, dict[int, Client]]:
    users = [
        get_user_model().objects.create_user(username=f"p{n}x{i}", email=f"p{n}x{i}@example.com")
        for i in range(4)
    ]
    game = lobby.game_create(
        creator=users[0],
        variant="classic",
        players=4,
        options={"seating": "invitation", "target": 100000},
    )
    for user in users[1:]:
        game = lobby.game_join(game_id=game.pk, user=user)
    clients = {}
    for user in users:
        key = account_token_create(owner=user)[1]
        clients[user.pk] = Client(HTTP_AUTHORIZATION=f"Token {key}")
    return game, clients


KEYS = iter(range(1, 10**9))


class Tally:
    """CPU seconds, statements and requests of the POSTs alone (the bench's own reads of the
    table, to pick a random legal action, are the client's work, not the server's)."""

    def __init__(self) -> None:
        self.cpu, self.statements, self.requests = 0.0, 0, 0


def _post(
    clients: dict[int, Client], game: Game, seat: int, actions: list[Any], tally: Tally
) -> None:
    """One measured POST of `actions` by the player of `seat`."""
    version = Game.objects.values_list("version", flat=True).get(pk=game.pk)
    user_id = Seat.objects.values_list("user_id", flat=True).get(game=game, number=seat)
    body = {"actions": actions, "expected_version": version}
    seconds, statements, response = measured(
        lambda: clients[user_id].post(
            f"/api/v1/games/{game.pk}/actions/",
            body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"turn-{next(KEYS)}",
        ),
        "requests",
    )
    assert response.status_code == 200, response.content[:300]
    tally.cpu += seconds
    tally.statements += statements
    tally.requests += 1


def play_turn(
    game: Game, clients: dict[int, Client], rng: random.Random, tally: Tally, batch: bool = False
) -> None:
    """Random moves until the turn passes: one POST each, or (batch) the turn's in one POST."""
    table = engine.from_json(GameState.objects.get(game=game).table)
    mover = table.turn
    if batch:
        # The bench sees the whole table (stock included), so it plays the turn ahead locally.
        actions = []
        while table.turn == mover and not table.over:
            actions.append(random_action(table, rng))
            table = engine.apply(table, mover, actions[-1]).table
        _post(clients, game, mover, actions, tally)
        return
    while table.turn == mover and not table.over:
        _post(clients, game, mover, [random_action(table, rng)], tally)
        table = engine.from_json(GameState.objects.get(game=game).table)


def drain() -> int:
    """Send every email the turns wrote, as the sweep does once they are due: the delayed ones
    are read as if the delay had passed."""
    due = timezone.now() + timedelta(minutes=settings.CANASTA_TURN_EMAIL_DELAY_MINUTES, seconds=1)
    return int(outbox_drain(now=due))


def bare_cpu(client: Client, count: int) -> float:
    """CPU seconds of one GET of the bare endpoint, the mean of `count` (the same run's
    baseline: the figures are also printed as multiples of it, which the machine's load moves
    much less than the milliseconds)."""
    start = time.process_time()
    for _ in range(count):
        assert client.get(BARE_PATH).status_code == 200
    return (time.process_time() - start) / count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--batch", action="store_true", help="send each turn's actions in one POST")
    parser.add_argument(
        "--immediate",
        action="store_true",
        help="turn emails without the default delay: each queued as a task when the move commits",
    )
    parser.add_argument(
        "--profile", metavar="DIR", help="write cProfile stats of each part to DIR/<part>.prof"
    )
    args = parser.parse_args()
    if args.profile:
        PROFILES.update(
            (part, cProfile.Profile(time.process_time)) for part in ("requests", "emails")
        )
    call_command("migrate", verbosity=0)
    install_bare_endpoint()
    # The same deals and the same moves in every run, so that two commits play the same turns.
    seeds = (hashlib.sha256(f"bench-turn-{n}".encode()).hexdigest() for n in itertools.count())
    engine.new_seed = lambda: next(seeds)
    rng = random.Random(11)
    games = [new_game(n) for n in range(4)]
    # Warm up: imports, URL resolver, catalogues, the first emails.
    for game, clients in games:
        play_turn(game, clients, rng, Tally())
    drain()
    bare_client = next(iter(games[0][1].values()))
    bare_cpu(bare_client, 50)  # warm up
    # The baseline is taken between the turns as well as around them, so that a change of the
    # machine's speed during the run (other jobs, the CPU's clock) moves both alike.
    bare_samples = [bare_cpu(bare_client, 200)]
    load = os.getloadavg()[0]
    cpu = {"requests": 0.0, "emails": 0.0, "background": 0.0}
    sql = {"requests": 0, "emails": 0, "background": 0}
    tally, emails = Tally(), 0
    for turn in range(args.turns):
        game, clients = games[turn % len(games)]
        if Game.objects.get(pk=game.pk).status != GameStatus.ACTIVE:
            continue
        play_turn(game, clients, rng, tally, args.batch)
        mail.outbox.clear()
        seconds, statements, sent = measured(drain, "emails")
        cpu["emails"] += seconds
        sql["emails"] += statements
        emails += sent
        bare_samples.append(bare_cpu(bare_client, 4))
    # Beat's work: a sweep of each kind every minute, charged to the minute's turns as if the
    # bench's turns were a minute of a busy host (the sweeps find little: it is their floor).
    for sweep in (outbox_sweep, digest_send_due, lambda: deadlines_sweep()):
        seconds, statements, _ = measured(sweep)
        cpu["background"] += seconds
        sql["background"] += statements
    cpu["requests"], sql["requests"], requests = tally.cpu, tally.statements, tally.requests
    # The baseline before and after the turns, so that a load that changed meanwhile is split.
    bare_samples.append(bare_cpu(bare_client, 200))
    # Each sample weighs by its number of GETs: the first and last 200, four a turn between.
    weights = [200] + [4] * (len(bare_samples) - 2) + [200]
    bare = sum(w * b for w, b in zip(weights, bare_samples, strict=True)) / sum(weights)
    turns = args.turns
    print(
        f"{'batch: one POST a turn' if args.batch else 'one POST a move'}; database: {connection.vendor}; load average at start {load:.2f}, at end {os.getloadavg()[0]:.2f}"
    )
    print(
        f"{turns} turns, {requests} requests ({requests / turns:.2f} a turn), {emails} emails ({emails / turns:.2f} a turn)"
    )
    print(f"baseline: a GET of a bare DRF endpoint, {bare * 1000:.3f} ms CPU")
    for part in cpu:
        print(
            f"{part:>10}: {cpu[part] * 1000 / turns:6.2f} ms CPU a turn "
            f"({cpu[part] / turns / bare:5.1f} x bare), {sql[part] / turns:6.2f} statements a turn"
        )
    total = sum(cpu.values()) / turns
    print(f"{'total':>10}: {total * 1000:6.2f} ms CPU a turn ({total / bare:5.1f} x bare)")
    for part, profile in PROFILES.items():
        profile.dump_stats(str(Path(args.profile) / f"{part}.prof"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
