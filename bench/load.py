#!/usr/bin/env python
"""Load test: many concurrent games played through the HTTP API of the production stack.

    .venv/bin/python bench/load.py                      # full run: the concurrency table
    .venv/bin/python bench/load.py --smoke              # CI: a short run that fails on errors
    .venv/bin/python bench/load.py --steps 1,4,16 --duration 30 --games 200

What it starts (docs/benchmarks.md, "Load test"): gunicorn with the Procfile's `web` line, a Celery worker with
its `worker` line, on PostgreSQL (a database `canasta_load`, or --database / LOAD_DATABASE,
dropped and created afresh; LOAD_PG_URL names the server) and Redis (db 12 of LOAD_REDIS_URL's server, flushed). The
release step (migrate, collectstatic) runs first. Players are created directly in the
database (account creation is not what is measured: its password hashing would dominate);
everything else goes through the API as real clients do it: games are created and joined with
POST /games/ and /join/, and each move is GET /games/G/legal/ (a read) then
POST /games/G/actions/ with one legal action chosen at random, `expected_version` and a fresh
`Idempotency-Key` (a write).

For each concurrency step C, C client loops play for --duration seconds, each taking the next
idle game (so a game never has two requests in flight and no move is ever stale). The table
gives sustained moves per second, p50/p95/p99 latency of moves and reads and errors by status.
The baseline, measured in the same run and on the same server, is GET /api/v1/variants/ (an
anonymous DRF endpoint: throttle check in Redis, no database) one request at a time; the
ratios divide the move and read medians at concurrency 1 by it.

Afterwards: the outbox drains (the worker mails every move's notifications), and
`manage.py verify_games` replays every game of the load database and must find no difference.
Exit status 1 on any non-2xx answer, transport error, server traceback or verify_games
difference (never on latency: performance is measured, not asserted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
DATABASE = "canasta_load"


# --- the stack ---------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return {
        name.strip(): command.strip()
        for name, _, command in (line.partition(":") for line in lines)
        if command and not name.startswith("#")
    }


def _server_env(args: argparse.Namespace, workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    base = args.pg_url.rstrip("/").rsplit("/", 1)[0]
    env.update(
        DJANGO_SETTINGS_MODULE="canasta_site.settings",
        DATABASE_URL=f"{base}/{args.database}",
        REDIS_URL=f"{args.redis_url.rstrip('/').rsplit('/', 1)[0]}/{args.redis_db}",
        DEBUG="0",
        SECRET_KEY="load-test-only-" + "k" * 40,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        # Plain HTTP on the loopback: no TLS proxy in front of gunicorn here.
        SECURE_SSL_REDIRECT="0",
        # The throttles protect the service from one client; here they would cap the load.
        THROTTLE_ANON_RATE="100000000/min",
        THROTTLE_READ_RATE="100000000/min",
        THROTTLE_PLAY_RATE="100000000/min",
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        CANASTA_VAR_DIR=str(workdir / "var"),
        STATIC_ROOT=str(workdir / "static"),
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    env["PATH"] = f"{Path(PY).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _database_name(value: str) -> str:
    # It goes into DROP DATABASE as an identifier: plain names only.
    if not value.isidentifier() or not value.isascii():
        raise argparse.ArgumentTypeError("a plain database name: letters, digits, underscores")
    return value.lower()


def _database_reset(args: argparse.Namespace) -> None:
    import psycopg

    with psycopg.connect(args.pg_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {args.database} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {args.database}")


def _database_drop(args: argparse.Namespace) -> None:
    import psycopg

    with psycopg.connect(args.pg_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {args.database} WITH (FORCE)")


def _redis_flush(env: dict[str, str]) -> None:
    import redis

    redis.Redis.from_url(env["REDIS_URL"], socket_connect_timeout=3).flushdb()


def _manage(env: dict[str, str], *argv: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PY, "manage.py", *argv], cwd=ROOT, env=env, capture_output=True, text=True, check=check
    )


class Stack:
    """gunicorn and a Celery worker started from the Procfile's lines; logs in workdir."""

    def __init__(self, env: dict[str, str], workdir: Path, port: int) -> None:
        self.env, self.workdir, self.port = env, workdir, port
        self.procs: dict[str, subprocess.Popen] = {}

    def _start(self, name: str, command: str) -> None:
        argv = shlex.split(command.replace("${PORT:-8000}", str(self.port)))
        argv = [a.replace("0.0.0.0:", "127.0.0.1:") for a in argv]
        if argv[0] in ("gunicorn", "celery"):
            argv[0] = str(Path(PY).parent / argv[0])
        if name == "worker":
            argv += ["--without-gossip", "--without-mingle"]
        log = open(self.workdir / f"{name}.log", "w")  # noqa: SIM115 (closed with the process)
        self.procs[name] = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start(self) -> None:
        procfile = _procfile()
        self._start("web", procfile["web"])
        self._start("worker", procfile["worker"])

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for proc in self.procs.values():
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def check_alive(self) -> None:
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise SystemExit(f"{name} exited ({proc.returncode}); see {self.log(name)}")

    def log(self, name: str) -> Path:
        return self.workdir / f"{name}.log"

    def tracebacks(self) -> int:
        return sum(
            self.log(name).read_text(errors="replace").count("Traceback") for name in self.procs
        )


_SETUP_USERS = """
import json, sys
from django.contrib.auth import get_user_model
from clients.services.tokens import account_token_create
User = get_user_model()
count = int(sys.argv[1])
users = User.objects.bulk_create(
    [User(username=f"load{i:05d}", email=f"load{i:05d}@example.org", password="!")
     for i in range(count)]
)
keys = [account_token_create(owner=user)[1] for user in users]
print(json.dumps([[u.username, key] for u, key in zip(users, keys)]))
"""


def _setup_users(env: dict[str, str], count: int) -> list[tuple[str, str]]:
    done = subprocess.run(
        [PY, "-c", "import django; django.setup()\n" + _SETUP_USERS, str(count)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [tuple(pair) for pair in json.loads(done.stdout.strip().splitlines()[-1])]


# --- the clients ---------------------------------------------------------------------------


@dataclass
class Game:
    id: str
    tokens: dict[int, str]  # seat number -> token
    turn: int = 0
    version: int = 0
    moves: int = 0
    over: bool = False


@dataclass
class Step:
    concurrency: int
    seconds: float = 0.0
    moves: int = 0
    move_ms: list[float] = field(default_factory=list)
    read_ms: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    load: str = ""


class Api:
    def __init__(self, session: Any, base: str) -> None:
        self.session, self.base = session, base

    async def call(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any, float]:
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"Token {token}"
        start = time.perf_counter()
        async with self.session.request(
            method, self.base + path, json=body, headers=all_headers
        ) as response:
            raw = await response.read()
        elapsed = (time.perf_counter() - start) * 1000
        data = json.loads(raw) if raw and response.content_type == "application/json" else None
        return response.status, data, elapsed


def _turn_of(body: dict[str, Any]) -> int:
    return int(body["table"]["turn"])


async def _create_game(api: Api, players: list[tuple[str, str]], rng: random.Random) -> Game:
    tokens = {name: token for name, token in players}
    status, body, _ = await api.call(
        "POST",
        "/api/v1/games/",
        players[0][1],
        {
            "variant": "classic",
            "players": len(players),
            # A long match: the games outlast the run (hands still end and are dealt again).
            "options": {"seating": "invitation", "target": 100000},
        },
    )
    assert status == 201, (status, body)
    game_id = body["id"]
    for _, token in players[1:]:
        status, body, _ = await api.call("POST", f"/api/v1/games/{game_id}/join/", token)
        assert status in (200, 201), (status, body)
    status, body, _ = await api.call("GET", f"/api/v1/games/{game_id}/", players[0][1])
    assert status == 200 and body["status"] == "active", (status, body)
    seats = {s["seat"]: tokens[s["username"]] for s in body["seats"]}
    return Game(id=game_id, tokens=seats, turn=_turn_of(body), version=body["version"])


async def _one_move(api: Api, game: Game, rng: random.Random, step: Step) -> None:
    token = game.tokens[game.turn]
    status, legal, read_ms = await api.call("GET", f"/api/v1/games/{game.id}/legal/", token)
    step.statuses[f"GET {status}"] += 1
    if status != 200:
        step.errors.append(f"GET legal {game.id}: {status} {str(legal)[:300]}")
        return
    step.read_ms.append(read_ms)
    if not legal["my_turn"] or not legal["actions"]:
        step.errors.append(f"legal {game.id}: seat {game.turn} has no turn: {legal}")
        return
    action = rng.choice(legal["actions"])
    status, body, move_ms = await api.call(
        "POST",
        f"/api/v1/games/{game.id}/actions/",
        token,
        {"actions": [action], "expected_version": legal["version"]},
        {"Idempotency-Key": str(uuid.uuid4())},
    )
    step.statuses[f"POST {status}"] += 1
    if status != 200:
        step.errors.append(f"POST {game.id} {action}: {status} {str(body)[:300]}")
        return
    step.move_ms.append(move_ms)
    step.moves += 1
    game.moves += 1
    game.version = body["version"]
    if body["status"] != "active":
        game.over = True
    else:
        game.turn = _turn_of(body)


async def _run_step(
    api: Api, games: list[Game], concurrency: int, seconds: float, seed: int
) -> Step:
    step = Step(concurrency=concurrency)
    idle: asyncio.Queue[Game] = asyncio.Queue()
    for game in games:
        idle.put_nowait(game)
    stop_at = time.perf_counter() + seconds

    async def client(number: int) -> None:
        rng = random.Random(seed * 1000 + number)
        while time.perf_counter() < stop_at:
            game = await idle.get()
            try:
                await _one_move(api, game, rng, step)
            except Exception as error:  # a transport error counts like a 5xx
                step.statuses[type(error).__name__] += 1
                step.errors.append(f"{game.id}: {error!r}")
            finally:
                if not game.over:
                    idle.put_nowait(game)

    start = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(concurrency)))
    step.seconds = time.perf_counter() - start
    step.load = _loadavg()
    return step


def _loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _baseline(api: Api, path: str, samples: int) -> list[float]:
    times = []
    for _ in range(samples):
        status, body, elapsed = await api.call("GET", path)
        assert status == 200, (path, status, body)
        times.append(elapsed)
    return times


async def _static_check(api: Api) -> None:
    """gunicorn serves the collected static files itself (whitenoise, DEBUG off)."""
    async with api.session.get(api.base + "/static/web/site.css") as response:
        body = await response.read()
        if response.status != 200 or not body:
            raise SystemExit(f"GET /static/web/site.css: {response.status}")
        print(
            f"static files: /static/web/site.css {response.status}, "
            f"Cache-Control {response.headers.get('Cache-Control')!r}",
            flush=True,
        )


async def _wait_ready(api: Api, stack: Stack | None) -> None:
    for _ in range(150):
        if stack:
            stack.check_alive()
        try:
            status, _, _ = await api.call("GET", "/api/v1/health/")
            if status == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.2)
    raise SystemExit("the web server did not answer /api/v1/health/")


async def _drive(
    args: argparse.Namespace, base: str, users: list[tuple[str, str]], stack: Stack | None
) -> tuple[list[Step], dict[str, list[float]], list[Game]]:
    import aiohttp

    connector = aiohttp.TCPConnector(limit=max(args.steps) + 8, force_close=False)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        api = Api(session, base)
        await _wait_ready(api, stack)
        await _static_check(api)
        rng = random.Random(args.seed)
        # Half the tables for 2 players, half for 4 (every seat a human with a token).
        sizes = [2 if n % 2 == 0 else 4 for n in range(args.games)]
        tables, at = [], 0
        for size in sizes:
            tables.append(users[at : at + size])
            at += size
        started = time.perf_counter()
        limiter = asyncio.Semaphore(8)

        async def create(players: list[tuple[str, str]]) -> Game:
            async with limiter:
                return await _create_game(api, players, rng)

        games = list(await asyncio.gather(*(create(t) for t in tables)))
        print(
            f"{len(games)} games created and started through the API in "
            f"{time.perf_counter() - started:.1f} s",
            flush=True,
        )
        # Warm both gunicorn workers and their connections before measuring.
        await _baseline(api, "/api/v1/variants/", 20)
        baselines = {
            "GET /api/v1/variants/": await _baseline(api, "/api/v1/variants/", args.baseline),
            "GET /api/v1/health/": await _baseline(api, "/api/v1/health/", args.baseline),
        }
        steps = []
        for number, concurrency in enumerate(args.steps):
            if stack:
                stack.check_alive()
            step = await _run_step(api, games, concurrency, args.duration, args.seed + number)
            steps.append(step)
            _print_step(step, statistics.median(baselines["GET /api/v1/variants/"]))
        return steps, baselines, games


def _print_step(step: Step, bare: float) -> None:
    errors = sum(n for k, n in step.statuses.items() if not k.endswith(" 200"))
    print(
        f"C={step.concurrency:<4} {step.moves / step.seconds:8.1f} moves/s  "
        f"move p50/p95/p99 {_pct(step.move_ms, 0.5):7.1f} {_pct(step.move_ms, 0.95):7.1f} "
        f"{_pct(step.move_ms, 0.99):7.1f} ms  read p50/p95/p99 {_pct(step.read_ms, 0.5):6.1f} "
        f"{_pct(step.read_ms, 0.95):6.1f} {_pct(step.read_ms, 0.99):6.1f} ms  "
        f"move/bare {_pct(step.move_ms, 0.5) / bare:5.1f}  errors {errors}  load {step.load}",
        flush=True,
    )


def _report(steps: list[Step], baselines: dict[str, list[float]], target_p99: float) -> None:
    bare = statistics.median(baselines["GET /api/v1/variants/"])
    print()
    print("| baseline (one at a time) | p50 ms | p95 ms | p99 ms |")
    print("| --- | ---: | ---: | ---: |")
    for name, times in baselines.items():
        print(
            f"| `{name}` | {_pct(times, 0.5):.2f} | {_pct(times, 0.95):.2f} | {_pct(times, 0.99):.2f} |"
        )
    print()
    print(
        "| clients | moves/s | move p50 | move p95 | move p99 | read p50 | read p95 | read p99 "
        "| move p50 ÷ bare | errors | load avg (1 5 15) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for s in steps:
        errors = {k: n for k, n in s.statuses.items() if not k.endswith(" 200")}
        print(
            f"| {s.concurrency} | {s.moves / s.seconds:.1f} | {_pct(s.move_ms, 0.5):.1f} | "
            f"{_pct(s.move_ms, 0.95):.1f} | {_pct(s.move_ms, 0.99):.1f} | {_pct(s.read_ms, 0.5):.1f} | "
            f"{_pct(s.read_ms, 0.95):.1f} | {_pct(s.read_ms, 0.99):.1f} | "
            f"{_pct(s.move_ms, 0.5) / bare:.1f} | {sum(errors.values()) or 'none'}"
            f"{' ' + str(dict(errors)) if errors else ''} | {s.load} |"
        )
    within = [s for s in steps if s.move_ms and _pct(s.move_ms, 0.99) <= target_p99]
    if within:
        best = max(within, key=lambda s: s.moves / s.seconds)
        print(
            f"\nsustained with move p99 <= {target_p99:.0f} ms: {best.moves / best.seconds:.1f} "
            f"moves/s at {best.concurrency} concurrent clients"
        )
    else:
        print(f"\nno step kept move p99 <= {target_p99:.0f} ms")
    first = steps[0]
    print(
        f"at {first.concurrency} client(s): move p50 ÷ bare p50 = "
        f"{_pct(first.move_ms, 0.5) / bare:.1f}, read p50 ÷ bare p50 = "
        f"{_pct(first.read_ms, 0.5) / bare:.1f}"
    )


def _outbox_drain(env: dict[str, str], seconds: float) -> dict[str, int]:
    import psycopg

    deadline = time.monotonic() + seconds
    while True:
        with psycopg.connect(env["DATABASE_URL"]) as conn:
            rows = conn.execute(
                "SELECT status, count(*) FROM notifications_outbox GROUP BY status"
            ).fetchall()
        counts = {status: n for status, n in rows}
        if not counts.get("pending") and not counts.get("sending"):
            return counts
        if time.monotonic() > deadline:
            return counts
        time.sleep(0.5)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="tables (half 2, half 4 players)")
    parser.add_argument(
        "--steps", default="1,2,4,8,16,32", help="concurrent clients, one step after the other"
    )
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per step")
    parser.add_argument("--baseline", type=int, default=200, help="baseline samples")
    parser.add_argument("--target-p99", type=float, default=250.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="CI: 8 games, 4 clients for 8 s, fewer baseline samples",
    )
    parser.add_argument(
        "--pg-url",
        default=os.environ.get("LOAD_PG_URL", "postgres://postgres@127.0.0.1:5432/postgres"),
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--redis-db", type=int, default=12)
    parser.add_argument(
        "--database",
        default=os.environ.get("LOAD_DATABASE", DATABASE),
        type=_database_name,
        help="the database to drop, create and drop again (two runs side by side need two)",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the canasta_load database and the logs afterwards"
    )
    args = parser.parse_args()
    if args.smoke:
        args.games, args.steps, args.duration, args.baseline = 8, "4", 8.0, 30
    args.steps = [int(s) for s in str(args.steps).split(",")]
    return args


def _prepare(args: argparse.Namespace, env: dict[str, str]) -> list[Any]:
    """A fresh database and Redis db, the release step, and the players' accounts."""
    _database_reset(args)
    _redis_flush(env)
    # The Procfile's release step; collectstatic needs no database, so both run at once.
    collect = subprocess.Popen(
        [PY, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _manage(env, "migrate", "--noinput")
    if collect.wait() != 0:
        raise SystemExit("collectstatic failed: " + collect.stderr.read())
    return _setup_users(env, sum(2 if n % 2 == 0 else 4 for n in range(args.games)))


def _drive_and_report(
    args: argparse.Namespace, env: dict[str, str], port: int, users: list[Any], stack: Stack
) -> list[str]:
    """The steps against the running stack, their report, and what failed."""
    failed: list[str] = []
    cpu_start = time.process_time()
    wall_start = time.perf_counter()
    steps, baselines, games = asyncio.run(_drive(args, f"http://127.0.0.1:{port}", users, stack))
    client_cpu = (time.process_time() - cpu_start) / (time.perf_counter() - wall_start)
    _report(steps, baselines, args.target_p99)
    print(f"client process CPU: {client_cpu * 100:.0f}% of one core (same machine)")
    ended = sum(g.over for g in games)
    print(
        f"moves per game: min {min(g.moves for g in games)}, "
        f"max {max(g.moves for g in games)}; games that ended: {ended}"
    )
    for step in steps:
        for error in step.errors[:5]:
            failed.append(f"C={step.concurrency}: {error}")
        if not step.moves:
            failed.append(f"C={step.concurrency}: no move was played")
    outbox = _outbox_drain(env, 20)
    print(f"outbox after the run: {outbox}")
    if outbox.get("failed"):
        failed.append(f"outbox: {outbox['failed']} rows failed")
    return failed


def _verify(env: dict[str, str]) -> list[str]:
    verify = _manage(env, "verify_games", check=False)
    print(
        f"verify_games: {verify.stdout.strip().splitlines()[-1] if verify.stdout.strip() else ''}"
        f" (exit {verify.returncode})"
    )
    if verify.returncode != 0:
        return ["verify_games: " + (verify.stdout + verify.stderr)[-2000:]]
    return []


def main() -> int:
    args = _arguments()
    workdir = Path(tempfile.mkdtemp(prefix="canasta-load-"))
    env = _server_env(args, workdir)
    port = _free_port()
    print(
        f"load test: {args.games} games, clients {args.steps}, {args.duration:.0f} s each; "
        f"PostgreSQL {args.database}, Redis db {args.redis_db}; logs {workdir}",
        flush=True,
    )
    print(f"load average before: {_loadavg()}", flush=True)
    users = _prepare(args, env)
    stack = Stack(env, workdir, port)
    try:
        stack.start()
        failed = _drive_and_report(args, env, port, users, stack)
    finally:
        stack.stop()
    tracebacks = stack.tracebacks()
    if tracebacks:
        failed.append(f"{tracebacks} tracebacks in {workdir}/web.log or worker.log")
    failed += _verify(env)
    if not args.keep:
        _database_drop(args)
        _redis_flush(env)
    if failed:
        print("\nFAILED:", *failed, sep="\n  ", file=sys.stderr)
        return 1
    print("OK: no errors, verify_games clean")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
