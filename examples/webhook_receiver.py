#!/usr/bin/env python3
"""A webhook receiver that checks every delivery before trusting it. Standard library only.

Each delivery is a POST with a JSON body (one event, the same as an entry of the event feed)
and these headers:

    X-Canasta-Event-Id     the event's id: the same event may arrive more than once (a retry
                           after a lost answer), so remember the ids you have handled
    X-Canasta-Timestamp    Unix seconds when this attempt was signed
    X-Canasta-Signature    "sha256=" + hex HMAC-SHA256(secret, "<timestamp>.<raw body>")

The receiver recomputes the signature over the raw bytes it received (before parsing any
JSON), compares in constant time, refuses timestamps more than TOLERANCE seconds from its
own clock (a captured request cannot be replayed later), and answers 2xx quickly: anything
else, or no answer within a few seconds, counts as a failure and is retried.

    CANASTA_WEBHOOK_SECRET=whsec_... python examples/webhook_receiver.py --port 8765
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOLERANCE = 300
# How many event ids to remember for deduplication.
REMEMBERED = 10_000


def signature(secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify(
    secret: str,
    timestamp: str | None,
    body: bytes,
    given: str | None,
    *,
    tolerance: int = TOLERANCE,
    now: float | None = None,
) -> bool:
    """True for an authentic, recent delivery."""
    if not timestamp or not given or not timestamp.isdigit():
        return False
    now = time.time() if now is None else now
    if abs(now - int(timestamp)) > tolerance:
        return False
    return hmac.compare_digest(signature(secret, timestamp, body), given.strip())


class Receiver(ThreadingHTTPServer):
    """Holds the secret, the ids already handled and what to do with an event."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        secret: str,
        handle: Callable[[dict[str, Any]], None],
        *,
        tolerance: int = TOLERANCE,
    ) -> None:
        super().__init__(address, _Handler)
        self.secret = secret
        self.handle = handle
        self.tolerance = tolerance
        self.seen: OrderedDict[str, None] = OrderedDict()
        self.lock = threading.Lock()

    def first_time(self, event_id: str) -> bool:
        with self.lock:
            if event_id in self.seen:
                return False
            self.seen[event_id] = None
            if len(self.seen) > REMEMBERED:
                self.seen.popitem(last=False)
            return True


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if not verify(
            self.server.secret,
            self.headers.get("X-Canasta-Timestamp"),
            body,
            self.headers.get("X-Canasta-Signature"),
            tolerance=self.server.tolerance,
        ):
            self._answer(401, "bad signature or stale timestamp")
            return
        event_id = self.headers.get("X-Canasta-Event-Id") or ""
        if not self.server.first_time(event_id):
            self._answer(200, "duplicate, already handled")
            return
        try:
            event = json.loads(body)
        except ValueError:
            self._answer(400, "not JSON")
            return
        # Answer fast: heavy work belongs in a queue of your own.
        self.server.handle(event)
        self._answer(200, "ok")

    def _answer(self, status: int, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write("webhook: " + format % args + "\n")


def print_event(event: dict[str, Any]) -> None:
    data = event.get("data") or {}
    print(f"event {event['id']}: {event['kind']} in game {event['game']} (seat {data.get('seat')})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Receive and verify Canasta webhooks.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--secret", default=os.environ.get("CANASTA_WEBHOOK_SECRET"))
    args = parser.parse_args(argv)
    if not args.secret:
        parser.error("the webhook's secret is needed: --secret or CANASTA_WEBHOOK_SECRET")
    server = Receiver((args.host, args.port), args.secret, print_event)
    print(f"listening on http://{args.host}:{server.server_address[1]}/", file=sys.stderr)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
