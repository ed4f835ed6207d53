"""The test's side of the multi-host run: a load balancer over the web hosts and the players.

The balancer sends each request to the next live web host (round robin), as a load balancer
with health checks would, and records every failure with the host and the moment it started.
Taking a host out of rotation returns how many requests were in flight on it: only those may
fail when it dies.

A player thread plays one game's human seats through the balancer and keeps the client-side
log of every move the server accepted (and, apart, the moves whose answer was lost with a
killed host: applied or not, the server decides, but never twice).
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


class HostFailed(Exception):
    """The request's host did not answer (refused, reset, timed out)."""


@dataclass(frozen=True)
class Failure:
    host: str
    started: float
    what: str


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str]
    host: str


class Balancer:
    def __init__(self, hosts: dict[str, str]) -> None:
        """``hosts``: name -> base URL of the API (http://10.231.0.11:8000/api/v1)."""
        self.hosts = dict(hosts)
        self.live = list(hosts)
        self.in_flight: Counter[str] = Counter()
        self.served: Counter[str] = Counter()
        self.failures: list[Failure] = []
        self._next = 0
        self._lock = threading.Lock()

    def _pick(self) -> str:
        with self._lock:
            host = self.live[self._next % len(self.live)]
            self._next += 1
            self.in_flight[host] += 1
            return host

    def take_out(self, host: str) -> int:
        """No new request goes to ``host``; the number still in flight on it."""
        with self._lock:
            self.live.remove(host)
            return self.in_flight[host]

    def call(
        self,
        method: str,
        path: str,
        token: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        host = self._pick()
        started = time.monotonic()
        try:
            answer = _send(self.hosts[host] + path, method, token, body, headers or {})
        except (OSError, http.client.HTTPException) as error:
            with self._lock:
                self.failures.append(Failure(host, started, f"{method} {path}: {error!r}"))
            raise HostFailed(host) from error
        finally:
            with self._lock:
                self.in_flight[host] -= 1
        with self._lock:
            self.served[host] += 1
        return Answer(answer[0], answer[1], answer[2], host)


def _send(
    url: str, method: str, token: str, body: Any, headers: dict[str, str]
) -> tuple[int, Any, dict[str, str]]:
    all_headers = {"Accept": "application/json", **headers}
    if token:
        all_headers["Authorization"] = f"Token {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        all_headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None, dict(response.headers)
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw[:500].decode(errors="replace")
        return error.code, parsed, dict(error.headers)


@dataclass
class Table:
    """One game as its player thread knows it."""

    id: str
    humans: dict[int, str]  # seat -> token
    # Every move sent, in order, with what the client learnt: "accepted", or "unknown" when
    # its answer died with a host and a retry could not tell.
    attempts: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    replayed: int = 0  # answers a retry got from the Idempotency-Key record on another host
    problems: list[str] = field(default_factory=list)
    over: bool = False


def _read(balancer: Balancer, path: str, token: str) -> Answer:
    """A read; if its host dies under it, read again from another."""
    try:
        return balancer.call("GET", path, token)
    except HostFailed:
        return balancer.call("GET", path, token)


def _move(
    balancer: Balancer, table: Table, seat: int, action: dict[str, Any], version: int
) -> None:
    token = table.humans[seat]
    path = f"/games/{table.id}/actions/"
    body = {"actions": [action], "expected_version": version}
    key = {"Idempotency-Key": str(uuid.uuid4())}
    try:
        answer = balancer.call("POST", path, token, body, key)
    except HostFailed:
        # The same request again, on another host: the key makes it safe.
        answer = balancer.call("POST", path, token, body, key)
        if answer.status == 409 and _error_code(answer.body) == "request_in_progress":
            # The dead host claimed the key and never finished: the move may or may not
            # have been applied. The next read of the game says which.
            table.attempts.append((seat, action, "unknown"))
            return
        if answer.headers.get("Idempotent-Replayed") == "true":
            table.replayed += 1
    if answer.status != 200:
        table.problems.append(f"{answer.host} POST {path}: {answer.status} {answer.body}")
        return
    table.attempts.append((seat, action, "accepted"))


def table_watch(balancer: Balancer, table: Table, until: float) -> None:
    """A player following the game: polls its move log (from the start: the heavier read)
    and their list of games, as a client between turns does."""
    token = next(iter(table.humans.values()))
    while time.monotonic() < until and not table.problems:
        for path in (f"/games/{table.id}/moves/?after=0&limit=200", "/games/"):
            answer = _read(balancer, path, token)
            if answer.status != 200:
                table.problems.append(f"{answer.host} GET {path}: {answer.status} {answer.body}")
                return


def _error_code(body: Any) -> str | None:
    error = body.get("error") if isinstance(body, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def table_play(balancer: Balancer, table: Table, until: float, seed: int) -> None:
    """Play the humans' turns at random until ``until`` (monotonic); bots play the rest."""
    rng = random.Random(seed)
    any_token = next(iter(table.humans.values()))
    while time.monotonic() < until:
        game = _read(balancer, f"/games/{table.id}/", any_token)
        if game.status != 200:
            table.problems.append(f"{game.host} GET game: {game.status} {game.body}")
            return
        if game.body["status"] != "active":
            table.over = True
            return
        seat = game.body["turn"]
        if seat not in table.humans:
            time.sleep(0.05)  # a bot's turn: a worker host plays it
            continue
        legal = _read(balancer, f"/games/{table.id}/legal/", table.humans[seat])
        if legal.status != 200:
            table.problems.append(f"{legal.host} GET legal: {legal.status} {legal.body}")
            return
        if not legal.body["my_turn"] or not legal.body["actions"]:
            continue  # the turn moved on between the two reads
        action = rng.choice(legal.body["actions"])
        _move(balancer, table, seat, action, legal.body["version"])
        if table.problems:
            return
