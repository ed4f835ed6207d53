"""The event feed's waiting requests on the real web process (the Procfile's `web` line, on a
free port, against the test database and Redis): open streams hold no thread, one user's open
feeds are capped across processes, and a feed ends within seconds of its credentials.
docs/event-streams.md."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import UserSession as Session
from clients.services.tokens import account_tokens_revoke, token_create, token_revoke
from games.services.moves import game_resign
from tests.game_fixtures import make_user, start_game
from tests.integration.processes import Http, process_env, wait_until, web, with_redis_broker

pytestmark = pytest.mark.integration

STREAM = "/api/v1/events/stream/?after=latest"


class Feed:
    """One open HTTP request read as raw bytes (Connection: close, so the end of the response
    is the end of the socket)."""

    def __init__(self, base: str, path: str, headers: dict[str, str]) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Connection: close"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.data = b""
        self.ended = False

    def read_until(self, marker: bytes, timeout: float) -> bool:
        """Reads until ``marker`` arrived or the server closed the response (True), or
        ``timeout`` passed (False)."""
        deadline = time.monotonic() + timeout
        while marker not in self.data and not self.ended:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self.sock.settimeout(min(0.5, remaining))
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                self.ended = True
            self.data += chunk
        return True

    def status(self) -> int:
        return int(self.data.split(b" ", 2)[1])

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def server_env(transactional_db: None, redis_cache: Any, tmp_path: Path) -> dict[str, str]:
    # Redis (emptied first) as in production: the cap is counted there.
    return with_redis_broker(process_env(tmp_path / "var", tmp_path / "mail"), settings.REDIS_URL)


@pytest.fixture
def players(transactional_db: None) -> dict[str, Any]:
    users = {name: make_user(name) for name in ("alice", "bob", "carol", "dave")}
    start_game(users)
    return users


@pytest.fixture
def feeds() -> Iterator[list[Feed]]:
    opened: list[Feed] = []
    yield opened
    for feed in opened:
        feed.close()


def _token(user: Any) -> dict[str, str]:
    return {"Authorization": f"Token {user.api_key}"}


def _open(server: Http, feeds: list[Feed], headers: dict[str, str], path: str = STREAM) -> Feed:
    accept = "text/event-stream" if path.startswith(STREAM) else "application/json"
    feed = Feed(server.base, path, {"Accept": accept, **headers})
    feeds.append(feed)
    return feed


def _streaming(feed: Feed) -> bool:
    return feed.read_until(b"retry: 3000", timeout=10) and feed.status() == 200


def _error_code(feed: Feed) -> str:
    return json.loads(feed.data.split(b"\r\n\r\n", 1)[1])["error"]["code"]


def test_open_streams_hold_no_thread_and_others_are_answered_fast(
    server_env, players, feeds, tmp_path
):
    """24 open streams of one user (more than the 2 × 8 threads the web process had) and
    another player's requests are still answered at once."""
    env = {**server_env, "CANASTA_EVENTS_OPEN_PER_USER": "100"}
    with web(env, tmp_path / "web.log") as server:
        alice = _token(players["alice"])
        opened = [_open(server, feeds, alice) for _ in range(24)]
        assert all(_streaming(feed) for feed in opened)

        server.token = players["bob"].api_key
        for path in ("/api/v1/games/", "/api/v1/me/preferences/", "/api/v1/events/?wait=0"):
            started = time.monotonic()
            status, _ = server.call("GET", path)
            assert status == 200, path
            # Held threads would leave it unanswered for the streams' 300 s; the margin is
            # for a loaded machine.
            assert time.monotonic() - started < 10, path
        assert all(not feed.ended for feed in opened)  # the streams are still open


def test_open_feeds_hold_no_thread_while_they_wait(server_env, players, feeds, tmp_path):
    """20 streams and 20 long polls waiting: the web process has hardly more threads than
    before they opened (a thread each would be 40 more)."""
    env = {**server_env, "CANASTA_EVENTS_OPEN_PER_USER": "100"}
    with web(env, tmp_path / "web.log", workers=1) as server:
        alice = _token(players["alice"])
        server.token = players["alice"].api_key
        for _ in range(5):  # the process's pools of threads and connections are warm
            assert server.call("GET", "/api/v1/events/?wait=0")[0] == 200
        before = server.threads()

        streams = [_open(server, feeds, alice) for _ in range(20)]
        polls = [
            _open(server, feeds, alice, "/api/v1/events/?after=latest&wait=60") for _ in range(20)
        ]
        assert all(_streaming(feed) for feed in streams)
        time.sleep(2)  # each poll has looked a few times
        assert not any(poll.read_until(b"\r\n\r\n", timeout=0.1) for poll in polls)

        assert server.threads() - before < 12, (before, server.threads())


def test_one_users_open_feeds_are_capped_across_processes_with_429(
    server_env, players, feeds, tmp_path
):
    env = {**server_env, "CANASTA_EVENTS_OPEN_PER_USER": "4"}
    with web(env, tmp_path / "web.log") as server:  # two worker processes, one count
        alice = _token(players["alice"])
        opened = [_open(server, feeds, alice) for _ in range(4)]
        assert all(_streaming(feed) for feed in opened)

        refused = _open(server, feeds, alice)
        assert refused.read_until(b"}}", timeout=10)
        assert refused.status() == 429 and _error_code(refused) == "too_many_open_feeds"
        waiting = _open(server, feeds, alice, "/api/v1/events/?after=latest&wait=20")
        assert waiting.read_until(b"}}", timeout=10)
        assert waiting.status() == 429 and _error_code(waiting) == "too_many_open_feeds"
        # A request that does not wait is not one of them; nor are other users' feeds.
        server.token = players["alice"].api_key
        assert server.call("GET", "/api/v1/events/?wait=0")[0] == 200
        assert _streaming(_open(server, feeds, _token(players["bob"])))

        # A closed stream frees its place.
        opened[0].close()

        def reopened() -> bool:
            feed = _open(server, feeds, alice)
            feed.read_until(b"\r\n\r\n", timeout=10)
            return feed.status() == 200

        wait_until(reopened, timeout=10, what="a place among alice's feeds", every=0.5)


def _ends_with_error(feed: Feed, code: str, within: float) -> None:
    started = time.monotonic()
    assert feed.read_until(b"\0never", timeout=within), "the stream is still open"
    assert time.monotonic() - started < within
    assert b"event: error" in feed.data and code.encode() in feed.data, feed.data[-500:]


@pytest.mark.parametrize("credential", ["personal token", "account token"])
def test_a_revoked_tokens_stream_and_long_poll_end_within_seconds(
    server_env, players, feeds, tmp_path, credential
):
    alice = players["alice"]
    if credential == "personal token":
        token, key = token_create(owner=alice, name="feed", scopes=["read"])
        headers = {"Authorization": f"Bearer {key}"}
    else:
        headers = _token(alice)
    env = {**server_env, "CANASTA_EVENTS_AUTH_CHECK_SECONDS": "1"}
    with web(env, tmp_path / "web.log") as server:
        stream = _open(server, feeds, headers)
        poll = _open(server, feeds, headers, "/api/v1/events/?after=latest&wait=60")
        assert _streaming(stream)
        assert not poll.read_until(b"\r\n\r\n", timeout=1.5)  # waiting

        if credential == "personal token":
            token_revoke(owner=alice, token_id=token.pk)
        else:
            account_tokens_revoke(owner=alice)

        _ends_with_error(stream, "authentication_failed", within=5)
        assert poll.read_until(b"}}", timeout=5)
        assert poll.status() == 401 and _error_code(poll) == "authentication_failed"
        again = _open(server, feeds, headers)
        assert again.read_until(b"}}", timeout=10) and again.status() == 401


def test_a_deactivated_users_stream_ends(server_env, players, feeds, tmp_path):
    env = {**server_env, "CANASTA_EVENTS_AUTH_CHECK_SECONDS": "1"}
    with web(env, tmp_path / "web.log") as server:
        stream = _open(server, feeds, _token(players["alice"]))
        assert _streaming(stream)
        players["alice"].is_active = False
        players["alice"].save(update_fields=["is_active"])
        _ends_with_error(stream, "authentication_failed", within=5)


def test_a_sessions_stream_ends_when_the_session_does(server_env, players, feeds, tmp_path):
    browser = Client()
    browser.force_login(players["alice"])
    cookie = browser.cookies[settings.SESSION_COOKIE_NAME].value
    env = {**server_env, "CANASTA_EVENTS_AUTH_CHECK_SECONDS": "1"}
    with web(env, tmp_path / "web.log") as server:
        stream = _open(server, feeds, {"Cookie": f"{settings.SESSION_COOKIE_NAME}={cookie}"})
        assert _streaming(stream)
        Session.objects.filter(session_key=cookie).delete()  # signed out elsewhere
        _ends_with_error(stream, "not_authenticated", within=5)


def test_a_long_poll_answers_as_soon_as_an_event_comes(server_env, players, tmp_path):
    """Served from the event loop, the long poll still wakes up on a move of another process."""
    game = players["alice"].seats.first().game
    with web(server_env, tmp_path / "web.log") as server:
        server.token = players["bob"].api_key
        answer: dict[str, Any] = {}

        def wait() -> None:
            started = time.monotonic()
            answer["body"] = server.call("GET", "/api/v1/events/?after=latest&wait=30")[1]
            answer["took"] = time.monotonic() - started

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(1)
        game_resign(game_id=game.pk, user=players["alice"])
        waiter.join(timeout=35)
        assert answer["took"] < 10
        assert "match_over" in [e["kind"] for e in answer["body"]["results"]]


def test_the_web_process_takes_no_client_address_from_a_header(server_env, tmp_path):
    """uvicorn trusts X-Forwarded-For from the loopback by default; the Procfile's worker does
    not, so the per-address limit of anonymous requests holds against made-up addresses."""
    env = {**server_env, "THROTTLE_ANON_RATE": "3/min"}
    with web(env, tmp_path / "web.log") as server:
        statuses = []
        for n in range(5):
            request = urllib.request.Request(
                server.base + "/api/v1/variants/", headers={"X-Forwarded-For": f"203.0.113.{n}"}
            )
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    statuses.append(answer.status)
            except urllib.error.HTTPError as refused:
                statuses.append(refused.code)
        assert statuses.count(429) >= 1, statuses
