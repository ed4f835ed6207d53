"""Real processes for integration tests: `celery worker`, `celery beat` and `scripts/serve`,
started on the test database (pytest-django's test_<name>, so tests using them need
`transactional_db`: the processes see only committed rows), with a file-backend mailbox.

Every process runs in its own process group and is killed with it at the end of its test.
Checks poll with a timeout (wait_until); nothing sleeps for a fixed time to "let it happen".
"""

from __future__ import annotations

import contextlib
import email
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from email.message import Message
from pathlib import Path
from typing import Any

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
MAIL_SEPARATOR = b"\n" + b"-" * 79 + b"\n"
# Variables of the developer's shell that would point the processes elsewhere.
_NOT_INHERITED = {"REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL", "EMAIL_BACKEND", "PORT"}


def wait_until(
    condition: Callable[[], Any], *, timeout: float, what: str, every: float = 0.1
) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


def worker_database_url() -> str:
    """The database pytest-django created (test_<name>), for the other processes."""
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def process_env(var_dir: Path, mail_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of the processes: the test database, the embedded broker unless
    ``extra`` names one (REDIS_URL=...), emails as files in ``mail_dir``, 1-second sweeps."""
    var_dir.mkdir(parents=True, exist_ok=True)
    env = {name: value for name, value in os.environ.items() if name not in _NOT_INHERITED}
    env.update(
        DJANGO_SETTINGS_MODULE="canasta_site.settings",
        DATABASE_URL=worker_database_url(),
        CANASTA_VAR_DIR=str(var_dir),
        EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
        EMAIL_FILE_PATH=str(mail_dir),
        CANASTA_SWEEP_SECONDS="1",
        CANASTA_DEADLINE_SWEEP_SECONDS="1",
        CANASTA_DIGEST_SECONDS="3600",
        CANASTA_OUTBOX_BACKOFF_SECONDS="1",
        # Turn emails at once unless a test is about their delay (notifications presence).
        CANASTA_TURN_EMAIL_DELAY_MINUTES="0",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def _unfolded(header: Any) -> str:
    # A long header is folded over lines (RFC 5322 §2.2.3); unfolding drops the line breaks.
    return re.sub(r"\r?\n(?=[ \t])", "", str(header))


class Mailbox:
    """The messages the file backend wrote to ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def messages(self) -> list[Message]:
        found = []
        for path in sorted(self.folder.glob("*.log")) if self.folder.exists() else []:
            for chunk in path.read_bytes().split(MAIL_SEPARATOR):
                if chunk.strip():
                    found.append(email.message_from_bytes(chunk))
        return found

    def counts(self) -> Counter[tuple[str, str]]:
        """How many messages went to each (recipient, subject)."""
        return Counter((_unfolded(m["To"]), _unfolded(m["Subject"])) for m in self.messages())

    def kinds(self) -> Counter[tuple[str, str]]:
        """How many messages of each kind (X-Canasta-Kind) went to each recipient: every email
        of a game has the game's subject."""
        return Counter((_unfolded(m["To"]), str(m["X-Canasta-Kind"])) for m in self.messages())

    def has_kind(self, to: str, kind: str) -> bool:
        return self.kinds()[(to, kind)] > 0

    def subjects(self) -> list[str]:
        return sorted(str(m["Subject"]) for m in self.messages())

    def has(self, to: str, subject: str) -> bool:
        return self.counts()[(to, subject)] > 0


class Processes:
    """Celery processes for one test; all killed at the end of it (see the fixture)."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env = env
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []
        self.starting: list[tuple[subprocess.Popen[bytes], str, str]] = []

    def _start(self, name: str, args: list[str], ready: str) -> subprocess.Popen[bytes]:
        log = self.logs / f"{len(self.started) + 1}-{name}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "canasta_site", *args],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        process.log = log  # type: ignore[attr-defined]
        self.started.append(process)
        self.starting.append((process, name, ready))
        return process

    def worker(self, *extra: str) -> subprocess.Popen[bytes]:
        return self._start(
            "worker",
            [
                "worker",
                "--pool",
                "solo",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel",
                "INFO",
                "--hostname",
                f"test{len(self.started) + 1}@%h",
                *extra,
            ],
            ready=" ready.",
        )

    def beat(self) -> subprocess.Popen[bytes]:
        var = Path(self.env["CANASTA_VAR_DIR"])
        return self._start(
            "beat",
            [
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(var / "beat-schedule"),
                "--pidfile",
                str(var / "beat.pid"),
            ],
            ready="Sending due task",
        )

    def ready(self) -> None:
        """Wait until every process started so far is up (they start side by side)."""
        for process, name, marker in self.starting:
            wait_until(
                lambda p=process, n=name, m=marker: _log_shows(p, n, m),
                timeout=60,
                what=f"{name} to start",
            )
        self.starting.clear()

    @staticmethod
    def kill(process: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def kill_all(self) -> None:
        for process in self.started:
            self.kill(process)

    def logs_text(self) -> str:
        return "\n".join(
            f"== {p.log.name} ==\n{p.log.read_text(errors='replace')[-4000:]}"  # type: ignore[attr-defined]
            for p in self.started
        )


def _log_shows(process: subprocess.Popen[bytes], name: str, marker: str) -> bool:
    log: Path = process.log  # type: ignore[attr-defined]
    if process.poll() is not None:
        raise AssertionError(f"{name} exited early:\n{log.read_text()[-3000:]}")
    return marker in log.read_text(errors="replace")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


class Http:
    """A tiny JSON client for a running server (the standard library only, like curl)."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, json.loads(raw) if raw else None

    def answers(self, path: str) -> bool:
        try:
            return self.call("GET", path)[0] == 200
        except OSError:
            return False


@contextlib.contextmanager
def serve(env: dict[str, str], log: Path) -> Iterator[Http]:
    """`scripts/serve` as the README starts it, on a free port; Ctrl-C (SIGINT to its process
    group) at the end, then SIGKILL for anything left."""
    port = free_port()
    env = {**env, "PORT": str(port), "CELERY_CONCURRENCY": env.get("CELERY_CONCURRENCY", "1")}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(ROOT / "scripts" / "serve")],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    http = Http(f"http://127.0.0.1:{port}/api/v1")
    try:

        def up() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"scripts/serve exited:\n{log.read_text()[-3000:]}")
            text = log.read_text(errors="replace")
            return " ready." in text and "Sending due task" in text

        wait_until(up, timeout=90, what="worker and beat under scripts/serve")
        wait_until(lambda: http.answers("/health/"), timeout=60, what="the web server")
        yield http
    finally:
        if group_alive(process.pid):
            os.killpg(process.pid, signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        # Gone before the test's tables are flushed.
        with contextlib.suppress(AssertionError):
            wait_until(lambda: not group_alive(process.pid), timeout=10, what="serve to stop")


def procfile_web(port: int, *, workers: int | None = None) -> list[str]:
    """The Procfile's `web` command on the loopback at ``port`` (``workers`` replaces its
    --workers), run by this interpreter."""
    lines = (ROOT / "Procfile").read_text().splitlines()
    command = next(line.partition(":")[2] for line in lines if line.startswith("web:"))
    argv = shlex.split(command.replace("${PORT:-8000}", str(port)))
    argv = [arg.replace("0.0.0.0:", "127.0.0.1:") for arg in argv]
    if workers is not None:
        argv[argv.index("--workers") + 1] = str(workers)
    assert argv[0] == "gunicorn", argv
    return [sys.executable, "-m", "gunicorn", *argv[1:]]


class WebProcess(Http):
    """``Http`` at the root URL of a running web process; ``pid`` is its master's (and its
    process group's) id."""

    def __init__(self, base: str, pid: int) -> None:
        super().__init__(base)
        self.pid = pid

    def threads(self) -> int:
        """The threads of every process of the group (master and workers)."""
        count = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError, ValueError):
                # Fields after the command name, which is in parentheses: state, ppid, pgrp.
                if int(stat.read_text().rsplit(")", 1)[1].split()[2]) == self.pid:
                    count += len(list((stat.parent / "task").iterdir()))
        return count


@contextlib.contextmanager
def web(env: dict[str, str], log: Path, *, workers: int | None = None) -> Iterator[WebProcess]:
    """The Procfile's web process on a free port, until the end of the block (then SIGKILL to
    its process group)."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            procfile_web(port, workers=workers),
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    http = WebProcess(f"http://127.0.0.1:{port}", process.pid)
    try:

        def up() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"the web process exited:\n{log.read_text()[-3000:]}")
            return http.answers("/api/v1/health/")

        wait_until(up, timeout=60, what="the web process to answer")
        yield http
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def with_redis_broker(env: dict[str, str], redis_url: str) -> dict[str, str]:
    """``env`` with Redis at ``redis_url`` as the broker, emptied first (no message left over
    from an earlier run)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()
    return {**env, "REDIS_URL": redis_url}


@contextlib.contextmanager
def running(env: dict[str, str], tmp_path: Path) -> Iterator[Processes]:
    """Processes for one test, all killed when it ends (use it from a fixture that depends on
    transactional_db, so they are gone before the tables are flushed)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    started = Processes(env, logs)
    try:
        yield started
    finally:
        started.kill_all()
