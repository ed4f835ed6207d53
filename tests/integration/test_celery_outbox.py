"""The outbox against real processes: `celery worker` and `celery beat` started here, on the
test database (PostgreSQL), with Redis db 15 as the broker or the embedded filesystem broker.

Emails land in a file-backend folder of the test's own; every check polls with a timeout.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from notifications.models import Outbox, OutboxStatus
from notifications.services.outbox import outbox_enqueue
from tests.integration.processes import (
    ROOT,
    Http,
    Mailbox,
    Processes,
    free_port,
    group_alive,
    process_env,
    running,
    wait_until,
    with_redis_broker,
)


def redis_restart_command(port: int) -> list[str]:
    """How .ci/run starts Redis: no persistence, so a restart loses every queued message."""
    return [
        "redis-server",
        "--daemonize",
        "yes",
        "--bind",
        "127.0.0.1",
        "-::1",
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        "/var/lib/redis",
        "--logfile",
        "/var/log/redis/ci.log",
    ]


@pytest.fixture
def mail_dir(tmp_path: Path) -> Path:
    return tmp_path / "mail"


@pytest.fixture
def mailbox(mail_dir: Path) -> Mailbox:
    return Mailbox(mail_dir)


@pytest.fixture
def base_env(transactional_db: None, tmp_path: Path, mail_dir: Path) -> dict[str, str]:
    return process_env(tmp_path / "var", mail_dir)


@pytest.fixture
def redis_env(base_env: dict[str, str], redis_cache: Any) -> dict[str, str]:
    """Redis db 15 as broker, emptied first."""
    return with_redis_broker(base_env, settings.REDIS_URL)


@pytest.fixture
def processes(base_env: dict[str, str], tmp_path: Path) -> Iterator[Processes]:
    # Depends on transactional_db (through base_env): killed before the tables are flushed.
    with running(base_env, tmp_path) as started:
        yield started


@pytest.fixture
def alice(transactional_db: None) -> Any:
    return get_user_model().objects.create_user(username="alice", email="alice@example.com")


def match_over(marker: str) -> dict[str, Any]:
    """A match_over payload whose subject names `marker` (8 characters)."""
    return {
        "game": {
            "id": marker,
            "url": f"http://127.0.0.1:8000/games/{marker}/",
            "variant": "classic",
            "players": 4,
        },
        "seat": 0,
        "names": ["alice", "bob", "carol", "dave"],
        "totals": [5000, 3000],
        "winner_side": 0,
        "reason": "match_over",
    }


def enqueue(recipient: Any, marker: str) -> Outbox:
    """A notification written in a transaction, as the move service does."""
    with transaction.atomic():
        row = outbox_enqueue(
            recipient=recipient,
            kind="match_over",
            key=f"integration:{marker}",
            payload=match_over(marker),
        )
    assert row is not None
    return row


def subject(marker: str) -> str:
    return f"Canasta: alice, bob, carol, dave (game {marker[:8]})"


def sweeps_done(process: subprocess.Popen[bytes]) -> int:
    log = process.log.read_text(errors="replace")  # type: ignore[attr-defined]
    return sum(
        1
        for line in log.splitlines()
        if "notifications.tasks.sweep_outbox" in line and "succeeded" in line
    )


def settle(process: subprocess.Popen[bytes], sweeps: int = 2) -> None:
    """Let the worker run a few more sweeps: time for a duplicate to show up, if any."""
    start = sweeps_done(process)
    wait_until(
        lambda: sweeps_done(process) >= start + sweeps, timeout=30, what=f"{sweeps} more sweeps"
    )


def status_of(row: Outbox) -> str:
    return Outbox.objects.values_list("status", flat=True).get(pk=row.pk)


def test_a_notification_is_mailed_exactly_once(processes, redis_env, alice, mailbox):
    processes.env = redis_env
    worker = processes.worker()
    processes.beat()
    processes.ready()

    rows = [enqueue(alice, marker) for marker in ("once0001", "once0002", "once0003")]

    wait_until(lambda: len(mailbox.messages()) >= 3, timeout=30, what="three emails")
    settle(worker)
    assert mailbox.subjects() == [subject(m) for m in ("once0001", "once0002", "once0003")]
    assert {status_of(row) for row in rows} == {OutboxStatus.SENT}
    message = mailbox.messages()[0]
    assert message["To"] == "alice@example.com"
    assert message.get_content_type() == "multipart/alternative"


def test_a_worker_killed_in_the_middle_of_a_delivery_loses_no_email_and_sends_none_twice(
    processes, redis_env, alice, mailbox
):
    processes.env = {
        **redis_env,
        "EMAIL_BACKEND": "tests.notifications.backends.SlowFileBackend",
        "CANASTA_TEST_EMAIL_DELAY": "3",
        "CANASTA_OUTBOX_VISIBILITY_SECONDS": "4",
    }
    first = processes.worker()
    processes.beat()
    processes.ready()

    row = enqueue(alice, "killed01")
    wait_until(lambda: status_of(row) == OutboxStatus.SENDING, timeout=30, what="the claim")
    processes.kill(first)  # -9, while the backend is still "talking to the SMTP server"
    assert mailbox.messages() == []

    second = processes.worker()
    processes.ready()
    wait_until(lambda: mailbox.messages(), timeout=40, what="the email after the restart")
    settle(second, sweeps=2)

    assert mailbox.subjects() == [subject("killed01")]
    sent = Outbox.objects.get(pk=row.pk)
    assert (sent.status, sent.attempts) == (OutboxStatus.SENT, 2)


def _redis_port() -> int:
    url = urllib.parse.urlsplit(settings.REDIS_URL)
    if url.hostname not in ("127.0.0.1", "localhost", "::1"):
        pytest.skip(f"stops and restarts a local Redis; REDIS_URL is {settings.REDIS_URL}")
    return url.port or 6379


def _redis_answers(port: int) -> bool:
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


def test_with_redis_stopped_moves_commit_and_their_emails_go_out_once_it_is_back(
    processes, redis_env, alice, mailbox
):
    port = _redis_port()
    processes.env = redis_env
    worker = processes.worker()
    beat = processes.beat()
    processes.ready()
    enqueue(alice, "warmup01")
    wait_until(lambda: mailbox.messages(), timeout=30, what="the first email")

    subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], check=False, timeout=10)
    try:
        wait_until(lambda: not _redis_answers(port), timeout=10, what="Redis to stop")
        started = time.monotonic()
        row = enqueue(alice, "outage01")  # the broker is down when on_commit fires
        assert time.monotonic() - started < 5, "a move waited on the broker"
        assert status_of(row) == OutboxStatus.PENDING
        wait_until(
            lambda: "Couldn't apply scheduled task sweep-outbox" in beat.log.read_text(),
            timeout=15,
            what="a beat tick without a broker",
        )
        assert mailbox.subjects() == [subject("warmup01")]
    finally:
        if not _redis_answers(port):
            Path("/var/lib/redis").mkdir(parents=True, exist_ok=True)
            Path("/var/log/redis").mkdir(parents=True, exist_ok=True)
            subprocess.run(redis_restart_command(port), check=True, timeout=30)
        wait_until(lambda: _redis_answers(port), timeout=30, what="Redis to restart")

    wait_until(lambda: len(mailbox.messages()) >= 2, timeout=60, what="the email after Redis")
    settle(worker)
    assert mailbox.subjects() == [subject("outage01"), subject("warmup01")]
    assert status_of(row) == OutboxStatus.SENT


def test_scripts_serve_delivers_with_the_embedded_broker_and_stops_everything_on_ctrl_c(
    base_env, alice, mailbox, tmp_path
):
    assert "REDIS_URL" not in base_env and "CELERY_BROKER_URL" not in base_env
    port = free_port()
    env = {**base_env, "PORT": str(port), "CELERY_CONCURRENCY": "1"}
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        serve = subprocess.Popen(
            [str(ROOT / "scripts" / "serve")],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:

        def up() -> bool:
            if serve.poll() is not None:
                raise AssertionError(f"scripts/serve exited:\n{log.read_text()[-3000:]}")
            text = log.read_text(errors="replace")
            return " ready." in text and "Sending due task" in text

        wait_until(up, timeout=60, what="worker and beat under scripts/serve")
        wait_until(
            lambda: Http(f"http://127.0.0.1:{port}").answers("/api/v1/health/"),
            timeout=30,
            what="the web server",
        )

        # The web process's path: a row enqueued in a transaction and its task queued on
        # commit, from a process configured as scripts/serve configures runserver.
        script = (
            "import django; django.setup()\n"
            "from django.contrib.auth import get_user_model\n"
            "from tests.integration.test_celery_outbox import enqueue\n"
            f"enqueue(get_user_model().objects.get(pk={alice.pk}), 'embedd01')\n"
        )
        subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True, timeout=60)
        # The sweep's path: a row whose task message never existed.
        Outbox.objects.create(
            recipient=alice,
            kind="match_over",
            key="integration:embedd02",
            payload=match_over("embedd02"),
        )

        wait_until(lambda: len(mailbox.messages()) >= 2, timeout=30, what="both emails")
        assert mailbox.subjects() == [subject("embedd01"), subject("embedd02")]
        assert any((Path(env["CANASTA_VAR_DIR"]) / "celery" / "broker" / "control").iterdir())

        # Ctrl-C reaches the whole foreground process group.
        os.killpg(serve.pid, signal.SIGINT)
        serve.wait(timeout=30)
        wait_until(lambda: not group_alive(serve.pid), timeout=15, what="every process to stop")
    finally:
        if group_alive(serve.pid):
            os.killpg(serve.pid, signal.SIGKILL)
        serve.wait(timeout=10)
