"""Over-long URLs get 414 in the error shape (issue 15, item 6), from Django and through the
Procfile's real web server."""

from __future__ import annotations

import contextlib
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
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.middleware import MAX_URL_LENGTH
from tests.api.helpers import error_of

ROOT = Path(__file__).resolve().parents[2]


def _long_path(length: int, prefix: str = "/api/v1/games/?q=") -> str:
    return prefix + "a" * (length - len(prefix))


@pytest.mark.parametrize("path", ["/api/v1/games/?q=", "/api/v1/games/" + "x" * 10])
def test_a_url_over_the_limit_is_414_in_the_error_shape(clients, path):
    response = clients["alice"].get(_long_path(MAX_URL_LENGTH + 1, path))

    error = error_of(response, 414)
    assert error["code"] == "uri_too_long" and error["details"] == {"limit": MAX_URL_LENGTH}


def test_a_url_at_the_limit_is_served(clients):
    response = clients["alice"].get(_long_path(MAX_URL_LENGTH))

    assert response.status_code == 200


def test_a_long_url_outside_the_api_is_a_plain_414(client):
    response = client.get(_long_path(MAX_URL_LENGTH + 1, "/games/?q="))

    assert response.status_code == 414 and response["Content-Type"].startswith("text/plain")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _procfile_web(port: int) -> list[str]:
    line = next(
        line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:")
    )
    command = re.sub(r"\$\{PORT:-\d+\}|\$PORT", str(port), line.removeprefix("web:"))
    return shlex.split(command.replace("0.0.0.0", "127.0.0.1"))


@contextlib.contextmanager
def _web_server(tmp_path: Path) -> Iterator[str]:
    """The Procfile's web command as it is written, on a free loopback port, in the project
    directory (where gunicorn finds gunicorn.conf.py)."""
    port = _free_port()
    env = {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CANASTA_VAR_DIR": str(tmp_path),
    }
    env.pop("REDIS_URL", None)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    log = (tmp_path / "web.log").open("wb")
    process = subprocess.Popen(
        _procfile_web(port),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, (tmp_path / "web.log").read_text()[-2000:]
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            assert time.monotonic() < deadline, "the web server did not start"
            time.sleep(0.2)
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        log.close()


def _get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def test_the_procfile_web_server_answers_long_urls_in_the_error_shape(tmp_path):
    with _web_server(tmp_path) as base:
        # Just over gunicorn's old limit, and well past its largest fixed one (8190).
        for length in (MAX_URL_LENGTH + 1, 5_000, 20_000):
            status, content_type, body = _get(base + _long_path(length))
            assert (status, content_type) == (414, "application/json"), body[:300]
            assert json.loads(body)["error"]["code"] == "uri_too_long"
