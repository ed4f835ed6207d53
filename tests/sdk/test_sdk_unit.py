"""The published client's own behaviour, against a scripted local server (no Django): it
waits Retry-After on a 429, paces itself when RateLimit shows an empty bucket, keeps one
Idempotency-Key across a POST's retries, and resumes the stream with Last-Event-ID."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sdk" / "src"))
import canasta_sdk


class Script:
    """Answers, in order, to whatever is asked; records each request's headers."""

    def __init__(self, answers: list[tuple[int, dict[str, str], bytes]]) -> None:
        self.answers = answers
        self.seen: list[tuple[str, str, dict[str, str]]] = []


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script([])

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            self.server_version = "test"
            headers = {name.lower(): value for name, value in self.headers.items()}
            script.seen.append((self.command, self.path, headers))
            status, headers, body = script.answers.pop(0)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    httpd.shutdown()


JSON = {"Content-Type": "application/json"}
ERROR = json.dumps({"error": {"code": "throttled", "message": "slow", "details": {}}}).encode()


def test_a_429_waits_retry_after_and_a_post_keeps_its_key(server):
    url, script = server
    legal = {"version": 3, "seat": 0, "my_turn": True, "phase": "play", "legal": {}, "actions": []}
    game = {"id": "g", "status": "active", "version": 4, "my_turn": False, "your_move": None}
    script.answers += [
        (429, {**JSON, "Retry-After": "7"}, ERROR),
        (200, JSON, json.dumps(game).encode()),
    ]
    slept: list[float] = []
    client = canasta_sdk.Client(url, "cnst_x", sleep=slept.append)

    answer = client.act("g", [{"type": "draw"}], legal["version"])

    assert answer.version == 4 and answer.your_move is None
    assert slept == [7.0]
    keys = [headers["idempotency-key"] for _, _, headers in script.seen]
    assert len(keys) == 2 and keys[0] == keys[1]  # the retry is the same request
    assert script.seen[0][2]["authorization"] == "Bearer cnst_x"


def test_an_empty_bucket_paces_the_next_request(server):
    url, script = server
    limits = {"RateLimit": '"play";r=0;t=60', "RateLimit-Policy": '"play";q=120;w=60', **JSON}
    body = json.dumps({"events": [], "last_id": 5}).encode()
    script.answers += [(200, limits, body), (200, JSON, body)]
    slept: list[float] = []
    client = canasta_sdk.Client(url, "k", sleep=slept.append)

    assert client.latest_event_id() == 5
    assert client.rate_limits[0].remaining == 0 and client.rate_limits[0].interval == 0.5
    client.latest_event_id()
    assert slept == [0.5]  # one interval of the bucket, not a 429


def test_the_stream_resumes_with_last_event_id(server):
    url, script = server

    def entry(n: int) -> str:
        data = {"id": n, "kind": "move", "game": "g", "seq": n, "created_at": "Z", "data": {}}
        return f"id: {n}\nevent: move\ndata: {json.dumps(data)}\n\n"

    sse = {"Content-Type": "text/event-stream"}
    script.answers += [
        (200, sse, ("retry: 3000\n\n" + entry(1) + entry(2)).encode()),  # then the server ends it
        (200, sse, (": keep-alive\n\n" + entry(3)).encode()),
    ]
    client = canasta_sdk.Client(url, "k", sleep=lambda s: None)

    events = client.events(after=0)
    assert [next(events).id for _ in range(3)] == [1, 2, 3]
    assert [headers.get("last-event-id") for _, _, headers in script.seen] == ["0", "2"]


def test_pages_follows_the_cursors_to_the_end_of_a_list(server):
    base, script = server
    pages = [
        {"results": [{"id": 1}, {"id": 2}], "next_cursor": "abc"},
        {"results": [{"id": 3}], "next_cursor": None},
    ]
    script.answers += [(200, JSON, json.dumps(page).encode()) for page in pages]
    client = canasta_sdk.Client(base, token="t")
    assert [item["id"] for item in client.pages("tokens/", {"limit": 2})] == [1, 2, 3]
    assert [path for _, path, _ in script.seen] == [
        "/api/v1/tokens/?limit=2",
        "/api/v1/tokens/?limit=2&cursor=abc",
    ]
