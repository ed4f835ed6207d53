"""Production settings pass Django's deployment checklist with no warning (docs/deployment.md)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _check(**env: str) -> subprocess.CompletedProcess[str]:
    dropped = ("DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    environment = {k: v for k, v in os.environ.items() if k not in dropped}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_it_passes_check_deploy_with_production_settings():
    proc = _check(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="canasta.example.org",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no issues" in proc.stdout


def test_development_settings_are_flagged_by_check_deploy():
    # The same check fails on the dev defaults: the test above is not vacuous.
    proc = _check(DEBUG="1")
    assert proc.returncode != 0


def _readme_health_check() -> str:
    """The health check command of docs/deployment.md ("A deploy, step by step")."""
    readme = (ROOT / "docs" / "deployment.md").read_text()
    lines = [line for line in readme.splitlines() if line.startswith("curl -fsS ")]
    assert len(lines) == 1, lines
    return lines[0].split("#")[0].strip()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _production_env(tmp_path: Path, database_url: str) -> dict[str, str]:
    dropped = ("REDIS_URL", "CELERY_BROKER_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="canasta.example.com",
        DATABASE_URL=database_url,
        CANASTA_VAR_DIR=str(tmp_path / "var"),
        STATIC_ROOT=str(tmp_path / "static"),
        PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    )
    return env


def _health_check(command: str, port: int) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(command.replace("127.0.0.1:8000", f"127.0.0.1:{port}"))
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)


def _gunicorn(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    web = next(
        line.split(":", 1)[1]
        for line in (ROOT / "Procfile").read_text().splitlines()
        if line.startswith("web:")
    )
    with log.open("wb") as out:
        return subprocess.Popen(
            ["bash", "-c", web.replace("--workers 2", "--workers 1")],
            cwd=ROOT,
            env={**env, "PORT": str(port)},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def _wait_for_an_answer(command: str, port: int, process: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, "gunicorn exited"
        run = _health_check(command.replace("-fsS", "-sS"), port)
        if run.stdout:
            return run.stdout
        time.sleep(0.2)
    raise AssertionError("gunicorn did not answer")


def test_the_readme_health_check_answers_over_plain_http_and_fails_when_down(tmp_path):
    # Production settings (HTTPS redirect on), the Procfile's gunicorn, the deployment doc's curl.
    command = _readme_health_check()
    port = _free_port()
    env = _production_env(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite3'}")
    process = _gunicorn(env, port, tmp_path / "gunicorn.log")
    try:
        _wait_for_an_answer(command, port, process)
        up = _health_check(command, port)
        assert up.returncode == 0, up.stderr
        assert json.loads(up.stdout)["status"] == "ok"
        # Everything else is still redirected to HTTPS.
        other = subprocess.run(
            [
                "curl",
                "-sS",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-H",
                "Host: canasta.example.com",
                f"http://127.0.0.1:{port}/api/v1/variants/",
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert other.stdout == "301"
    finally:
        _stop(process)

    down = _health_check(command, port)
    assert down.returncode != 0


def test_the_readme_health_check_fails_when_the_database_is_down(tmp_path):
    command = _readme_health_check()
    port = _free_port()
    # PostgreSQL where nothing listens: the health check answers 503, curl -f exits 22.
    env = _production_env(tmp_path, f"postgres://nobody@127.0.0.1:{_free_port()}/none")
    process = _gunicorn(env, port, tmp_path / "gunicorn.log")
    try:
        body = _wait_for_an_answer(command, port, process)
        assert json.loads(body)["status"] == "unavailable"
        run = _health_check(command, port)
        assert run.returncode == 22, (run.returncode, run.stdout, run.stderr)
    finally:
        _stop(process)
