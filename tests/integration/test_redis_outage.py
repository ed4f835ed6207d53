"""Redis down or racing: a real redis-server of the test's own (a free port, killed mid-test)
under real gunicorn (the Procfile's web line), and concurrent threads against the shared Redis.

- With Redis gone, moves, sign-ups, the lobby page and the health check still answer (the
  rate limits are let through with one log line per process, the outbox rows wait for the
  sweep); once Redis is back, a worker and beat send what waited.
- The per-address and per-user limits count atomically in Redis: 16 threads get exactly the
  limit through, not more.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from notifications.models import Outbox, OutboxStatus
from tests.clients.test_rate_limits import concurrent_statuses
from tests.integration.processes import (
    ROOT,
    Mailbox,
    free_port,
    process_env,
    running,
    wait_until,
)

PASSWORD = "a-long-password-1"


def example_client() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "canasta_client", ROOT / "examples" / "canasta_client.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def procfile_command(name: str) -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {name} line in the Procfile")


@contextlib.contextmanager
def redis_server(
    tmp_path: Path, port: int | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = port or free_port()
    process = subprocess.Popen(
        [
            *("redis-server", "--port", str(port), "--bind", "127.0.0.1"),
            *("--save", "", "--appendonly", "no", "--dir", str(tmp_path)),
        ],
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_until(lambda: _pong(port), timeout=10, what="redis-server to start")
        yield process, port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _pong(port: int) -> bool:
    run = subprocess.run(
        ["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True, check=False
    )
    return run.stdout.strip() == "PONG"


@contextlib.contextmanager
def gunicorn(env: dict[str, str], log: Path) -> Iterator[str]:
    """The Procfile's web line on a free port; its base URL."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["bash", "-c", procfile_command("web")],
            cwd=ROOT,
            env={**env, "PORT": str(port), "PATH": f"{Path(sys.executable).parent}:{env['PATH']}"},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        client = example_client().CanastaClient(base)
        wait_until(lambda: _answers(client), timeout=60, what="gunicorn to answer")
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=15)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def _answers(client: Any) -> bool:
    try:
        client.request("GET", "health/")
    except Exception:
        return False
    return True


def _status(base: str, path: str) -> tuple[int, bytes]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(base + path, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_with_redis_killed_moves_pages_and_health_answer_and_mail_waits_for_the_sweep(
    transactional_db, tmp_path
):
    client_kit = example_client()
    mailbox = Mailbox(tmp_path / "mail")
    with redis_server(tmp_path) as (redis_process, port):
        env = process_env(
            tmp_path / "var",
            tmp_path / "mail",
            REDIS_URL=f"redis://127.0.0.1:{port}/0",
            THROTTLE_ANON_RATE="1000/min",
            THROTTLE_AUTH_RATE="1000/min",
        )
        with gunicorn(env, tmp_path / "gunicorn.log") as base:
            for name in ("ann", "ben"):
                client_kit.CanastaClient(base).request(
                    "POST",
                    "auth/register/",
                    {"username": name, "password": PASSWORD, "email": f"{name}@example.com"},
                )
            players = {
                name: client_kit.CanastaClient(
                    base, client_kit.personal_token(base, name, PASSWORD, "test")
                )
                for name in ("ann", "ben")
            }
            body = {"variant": "classic", "players": 2, "invite": ["ben"]}
            game = players["ann"].request("POST", "games/", body)
            players["ben"].join(game["id"])

            os.killpg(redis_process.pid, signal.SIGKILL)
            redis_process.wait(timeout=10)
            assert not _pong(port)

            status, raw = _status(base, "/api/v1/health/")
            assert status == 200, raw
            health = json.loads(raw)
            assert health["status"] == "degraded"
            assert health["components"] == {
                "database": "ok",
                "cache": "unavailable",
                "broker": "unavailable",
            }
            assert _status(base, "/")[0] == 200  # the lobby page
            assert _status(base, "/api/v1/variants/")[0] == 200
            client_kit.CanastaClient(base).request(
                "POST", "auth/register/", {"username": "cat", "password": PASSWORD}
            )
            turns = 0
            for _ in range(4):  # two turns each: every move commits and answers
                mover = next(c for c in players.values() if c.game(game["id"])["my_turn"] is True)
                assert client_kit.play_turn(mover, game["id"], log=lambda _: None) >= 1
                turns += 1
            assert turns == 4
            waiting = Outbox.objects.filter(status=OutboxStatus.PENDING).count()
            assert waiting >= 1, "the moves' emails should wait in the outbox"
            assert mailbox.messages() == []

        log = (tmp_path / "gunicorn.log").read_text()
        assert "Traceback" not in log, log[-4000:]
        # One line per gunicorn worker process (2), not one per request (dozens).
        assert 1 <= log.count("rate limits are off") <= 2, log[-4000:]

    # Redis back (a new server on the same port): worker and beat send what waited.
    with redis_server(tmp_path, port), running(env, tmp_path) as processes:
        assert _pong(port)
        processes.worker()
        processes.beat()
        processes.ready()
        wait_until(
            # Sent, not merely claimed: a row being sent is `sending` until its mail is out.
            lambda: (
                not Outbox.objects.filter(
                    status__in=[OutboxStatus.PENDING, OutboxStatus.SENDING]
                ).exists()
            ),
            timeout=90,
            what="the sweep to send the waiting emails",
        )
        assert len(mailbox.messages()) >= waiting, list(
            Outbox.objects.values_list("kind", "status", "last_error")
        )


@pytest.fixture
def redis_limits(redis_cache: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    redis_cache.clear()
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {"anon": "120/min", "auth": "30/min", "read": "100/min", "play": "100/min"},
    )
    # One fixed window for the whole test, whatever the wall clock says.
    with time_machine.travel("2026-12-01 12:00:10Z", tick=False):
        yield
    redis_cache.clear()


def test_concurrent_anonymous_requests_get_exactly_the_limit_in_redis(redis_limits, db):
    codes = concurrent_statuses(lambda: APIClient().get("/api/v1/variants/").status_code, 480)

    assert codes.count(200) == 120, codes
    assert codes.count(429) == 360


def test_concurrent_sign_ups_get_exactly_the_limit_in_redis(redis_limits, db):
    def sign_up() -> int:
        # An empty body is refused by the view, after the limit has counted it.
        return APIClient().post("/api/v1/auth/register/", {}, format="json").status_code

    codes = concurrent_statuses(sign_up, 48)

    assert codes.count(429) == 18, codes
    assert codes.count(400) == 30


def test_the_redis_bucket_expires_when_it_is_full_again(redis_limits, redis_cache, db):
    answer = APIClient().get("/api/v1/variants/")
    client = redis_cache._cache.get_client(write=False)
    keys = client.keys("*throttle:anon:*")
    assert len(keys) == 1
    # One request of 120 a minute is half a second of the bucket (+1 s of slack).
    assert 0 < client.pttl(keys[0]) <= 1500
    assert answer["RateLimit"] == '"anon";r=119;t=1'
    assert answer["RateLimit-Policy"] == '"anon";q=120;w=60'


def test_the_redis_bucket_gives_one_back_per_interval_not_per_minute(redis_limits, db):
    with time_machine.travel("2026-12-01 12:00:59.9Z", tick=False) as clock:
        codes = [APIClient().get("/api/v1/variants/").status_code for _ in range(121)]
        assert codes.count(200) == 120 and codes[-1] == 429
        clock.move_to("2026-12-01 12:01:00.1Z")  # a fixed window would let 120 more through
        refused = APIClient().get("/api/v1/variants/")
        assert refused.status_code == 429 and refused["Retry-After"] == "1"
        clock.move_to("2026-12-01 12:01:00.4Z")  # half a second after the burst: one back
        assert APIClient().get("/api/v1/variants/").status_code == 200
        assert APIClient().get("/api/v1/variants/").status_code == 429
