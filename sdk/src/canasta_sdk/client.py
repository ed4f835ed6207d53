"""The API client: one `Client` per token.

What it does for you (docs/clients.md):
- every POST carries an `Idempotency-Key`, the same across its retries, so a retry after a
  lost answer is the first answer replayed (`Idempotent-Replayed: true`), never a second move;
- a 429 or 503 waits `Retry-After` and tries again; when the `RateLimit` header says no request
  is left, the next request first waits one interval of the bucket instead of meeting a 429;
- a lost connection is retried (GETs, and POSTs thanks to their key);
- `events()` follows the server-sent-event stream and resumes it with `Last-Event-ID` after the
  server ends it or the connection drops, so no event is lost or seen twice;
- `pages()` reads any list of the API to its end with its cursors (`cursor`, `next_cursor`).
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.client import HTTPResponse
from typing import Any

from canasta_sdk.models import Action, Event, Game, Legal, RateLimit, YourTurn

Strategy = Callable[[Legal], list[Action]]


class ApiError(Exception):
    """An error answer: `{"error": {"code", "message", "details"}}`."""

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


@dataclass
class Stats:
    """What the client did: requests sent, retries, waits (for the figures in docs/clients.md)."""

    requests: int = 0
    # Requests by operation, ids left out: {"POST games/{id}/actions/": 26, ...}.
    by_operation: Counter[str] = field(default_factory=Counter)
    retries: int = 0
    paced_seconds: float = 0.0
    replays: int = 0


@dataclass
class MatchSummary:
    game_id: str
    hands: int
    totals: list[int]
    winner_side: int | None
    turns: int
    batches: int
    requests: int
    latencies: list[float] = field(default_factory=list)  # your_turn received -> accepted move

    @property
    def requests_per_turn(self) -> float:
        return self.requests / self.turns if self.turns else 0.0


RETRIED_STATUSES = (429, 503)
_GAME_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Client:
    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        retries: int = 5,
        timeout: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retries = retries
        self.timeout = timeout
        self.sleep = sleep
        self.stats = Stats()
        self.rate_limits: list[RateLimit] = []
        # When the current turn's first batch was accepted (the latency figure).
        self.first_accepted_at: float | None = None

    # -- transport -------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """One API call, JSON in and out, with the retries and pacing described above."""
        headers = {"Accept": "application/json"}
        if method == "POST":
            headers["Idempotency-Key"] = str(uuid.uuid4())
        data = json.dumps(body).encode() if body is not None else None
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(self.retries + 1):
            try:
                with self._open(method, path, data, headers, params, timeout) as response:
                    raw = response.read()
                    if response.headers.get("Idempotent-Replayed") == "true":
                        self.stats.replays += 1
                    return json.loads(raw) if raw else None
            except urllib.error.HTTPError as error:
                raw = error.read()
                self._note_limits(error.headers)
                if error.code in RETRIED_STATUSES and attempt < self.retries:
                    self._retry_wait(float(error.headers.get("Retry-After") or 1))
                    continue
                raise _api_error(error.code, raw) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if attempt >= self.retries:
                    raise
                self._retry_wait(min(2**attempt, 30))
        raise AssertionError("unreachable")

    def _open(
        self,
        method: str,
        path: str,
        data: bytes | None,
        headers: dict[str, str],
        params: dict[str, Any] | None,
        timeout: float | None,
    ) -> HTTPResponse:
        self._pace()
        url = f"{self.base_url}/api/v1/{path.lstrip('/')}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        sent = dict(headers)
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        self.stats.requests += 1
        self.stats.by_operation[f"{method} {_GAME_ID.sub('{id}', path)}"] += 1
        request = urllib.request.Request(url, data=data, headers=sent, method=method)
        response = urllib.request.urlopen(request, timeout=timeout or self.timeout)
        self._note_limits(response.headers)
        return response

    def _note_limits(self, headers: Any) -> None:
        limits = RateLimit.parse(headers.get("RateLimit"), headers.get("RateLimit-Policy"))
        if limits:
            self.rate_limits = limits

    def _pace(self) -> None:
        """No request left in a bucket: wait until one is back instead of meeting a 429."""
        empty = [limit for limit in self.rate_limits if limit.remaining <= 0]
        if empty:
            wait = max(limit.interval for limit in empty)
            self.stats.paced_seconds += wait
            self.sleep(wait)
            self.rate_limits = []

    def _retry_wait(self, seconds: float) -> None:
        self.stats.retries += 1
        self.sleep(seconds)

    # -- calls -----------------------------------------------------------------------------

    def create_game(
        self,
        *,
        variant: str = "classic",
        players: int = 4,
        bots: list[str] | None = None,
        options: dict[str, Any] | None = None,
    ) -> Game:
        body: dict[str, Any] = {"variant": variant, "players": players, "bots": bots or []}
        if options:
            body["options"] = options
        return Game.from_json(self.request("POST", "games/", body))

    def join(self, game_id: str) -> Game:
        return Game.from_json(self.request("POST", f"games/{game_id}/join/"))

    def game(self, game_id: str) -> Game:
        return Game.from_json(self.request("GET", f"games/{game_id}/"))

    def legal(self, game_id: str) -> Legal:
        return Legal.from_json(self.request("GET", f"games/{game_id}/legal/"))

    def act(self, game_id: str, actions: list[Action], version: int) -> Game:
        """A batch, all or nothing (a draw from the stock stands: docs/fair-play.md)."""
        body = {"actions": actions, "expected_version": version}
        return Game.from_json(self.request("POST", f"games/{game_id}/actions/", body))

    def pages(self, path: str, params: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Every item of a list (`games/`, `games/{id}/moves/`, `tokens/`, ...), page by page
        with its cursors: each item once, in order, even while items are added. A list that
        grows at its end (moves, events, chat) ends when a page comes back empty."""
        cursor: str | None = None
        while True:
            query = {**(params or {}), **({"cursor": cursor} if cursor else {})}
            page = self.request("GET", path, params=query)
            yield from page["results"]
            cursor = page["next_cursor"]
            if cursor is None or not page["results"]:
                return

    def latest_event_id(self) -> int:
        """The feed's cursor now: take it before reading a game, so nothing is missed."""
        return int(self.request("GET", "events/", params={"after": "latest", "wait": 0})["last_id"])

    # -- the event stream ------------------------------------------------------------------

    def events(
        self, after: int = 0, *, transport: str = "stream", reconnects: int = 100_000
    ) -> Iterator[Event]:
        """Every event after `after`, oldest first, for ever (break out of the loop).

        `transport="stream"`: the server-sent-event stream; the server ends it after a while,
        or the connection drops: it is opened again with `Last-Event-ID`, so the iteration
        goes on without a gap or a repeat. `transport="poll"`: long polls of GET /events/
        (one open request at a time, answered when something happens), for networks that cut
        streams."""
        last = after
        once = self._stream_once if transport == "stream" else self._poll
        for _ in range(reconnects):
            try:
                for event in once(last):
                    last = event.id
                    yield event
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                self._retry_wait(1.0)
        raise ApiError(0, "stream_gave_up", f"the stream ended {reconnects} times", {})

    def _poll(self, after: int) -> Iterator[Event]:
        """Long polls, from the event id `after` (as the stream's Last-Event-ID), then each
        from the `next_cursor` of the one before, until a connection fails."""
        where: dict[str, Any] = {"after": after}
        while True:
            body = self.request("GET", "events/", params={**where, "wait": 25}, timeout=60)
            for entry in body["results"]:
                yield Event.from_json(entry)
            where = {"cursor": body["next_cursor"]}

    def _stream_once(self, after: int) -> Iterator[Event]:
        headers = {"Accept": "text/event-stream", "Last-Event-ID": str(after)}
        try:
            response = self._open("GET", "events/stream/", None, headers, None, 60)
        except urllib.error.HTTPError as error:
            raw = error.read()
            if error.code in RETRIED_STATUSES:
                self._retry_wait(float(error.headers.get("Retry-After") or 1))
                return
            raise _api_error(error.code, raw) from None
        with response:
            yield from _sse_events(response)

    # -- playing ---------------------------------------------------------------------------

    def play_turn(self, turn: YourTurn, strategy: Strategy) -> tuple[Game | None, int]:
        """Play a turn from its `your_turn` event: one POST per batch, the next batch chosen
        from the answer's `your_move`. Returns the last answer and the batches played."""
        if turn.version is None:  # an event from before the server stored the version
            legal = self.legal(turn.game_id)
        else:
            legal = Legal(turn.version, turn.seat or 0, True, None, turn.legal or {}, turn.actions)
        game, batches = None, 0
        self.first_accepted_at = None
        while legal.my_turn:
            batch = strategy(legal)
            if not batch:
                break
            try:
                game = self._submit(turn.game_id, batch, legal.version)
            except ApiError as error:
                if error.status == 409 or error.details.get("applied"):
                    # The game moved (a timeout), or a draw stood before a refusal: look again.
                    legal = self.legal(turn.game_id)
                    continue
                if error.code in ("game_not_active", "not_your_turn"):
                    break
                raise
            batches += 1
            if self.first_accepted_at is None:
                self.first_accepted_at = time.monotonic()
            if game.your_move is None:
                break
            legal = game.your_move
        return game, batches

    def _submit(self, game_id: str, batch: list[Action], version: int) -> Game:
        try:
            return self.act(game_id, batch, version)
        except ApiError as error:
            if error.status != 422 or len(batch) < 2 or error.details.get("applied"):
                raise
        # The batch was refused whole (say, its discard would go out unasked): its first
        # action alone, then the strategy chooses again from the answer's your_move.
        return self.act(game_id, batch[:1], version)

    def play_match(
        self,
        game_id: str,
        strategy: Strategy,
        *,
        after: int | None = None,
        transport: str = "stream",
    ) -> MatchSummary:
        """Play our seat of `game_id` to the end of the match, driven by the event stream."""
        cursor = self.latest_event_id() if after is None else after
        summary = MatchSummary(game_id, 0, [], None, 0, 0, 0)
        start = self.stats.requests
        game = self.game(game_id)
        if game.my_turn:  # our turn already: the your_turn event was before the cursor
            self._play_from_legal(game_id, strategy, summary)
        for event in self.events(cursor, transport=transport):
            if event.game != game_id:
                continue
            if event.kind == "your_turn":
                received = time.monotonic()
                _, batches = self.play_turn(YourTurn.from_event(event), strategy)
                if batches and self.first_accepted_at is not None:
                    summary.latencies.append(self.first_accepted_at - received)
                summary.turns += 1
                summary.batches += batches
            elif event.kind == "hand_over":
                summary.hands += 1
                summary.totals = list(event.data.get("totals") or [])
            elif event.kind == "match_over":
                summary.totals = list(event.data.get("totals") or summary.totals)
                summary.winner_side = event.data.get("winner_side")
                break
        summary.requests = self.stats.requests - start
        return summary

    def _play_from_legal(self, game_id: str, strategy: Strategy, summary: MatchSummary) -> None:
        legal = self.legal(game_id)
        turn = YourTurn(game_id, legal.seat, legal.version, legal.actions, legal.legal, None)
        _, batches = self.play_turn(turn, strategy)
        summary.turns += 1
        summary.batches += batches


def _sse_events(response: HTTPResponse) -> Iterator[Event]:
    """The `message` events of a text/event-stream body (comments and `retry:` skipped; an
    `error` message is raised)."""
    kind, data = "message", []
    for raw in response:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                payload = json.loads("\n".join(data))
                if kind == "error":
                    error = payload.get("error", {})
                    raise ApiError(
                        401, error.get("code", "stream_error"), error.get("message", ""), {}
                    )
                yield Event.from_json(payload)
            kind, data = "message", []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())


def _api_error(status: int, raw: bytes) -> ApiError:
    try:
        error = json.loads(raw)["error"]
        return ApiError(status, error["code"], error["message"], error.get("details") or {})
    except (ValueError, KeyError, TypeError):
        return ApiError(status, "http_error", raw[:200].decode(errors="replace"), {})


def simple_strategy(legal: Legal) -> list[Action]:
    """Go out if possible, else draw (or take the pile); then lay the first meld or addition
    and discard, in one batch: a turn is two requests. The example client's choices."""
    options = legal.legal
    if not options:
        return legal.actions[:1]
    if options.get("going_out"):
        return list(options["going_out"])
    if options.get("answers"):
        return [options["answers"][0]]
    if options.get("draw"):
        return [{"type": "draw"}]
    if options.get("pickups"):
        return [options["pickups"][0]]
    lay = next((options[key][0] for key in ("melds", "adds") if options.get(key)), None)
    batch = [lay] if lay is not None else []
    used = _cards_of(lay) if lay is not None else []
    for card in options.get("discards") or []:
        if card in used:
            used.remove(card)  # that copy goes into the meld
            continue
        return [*batch, {"type": "discard", "card": card}]
    return batch or legal.actions[:1]


def _cards_of(action: Any) -> list[str]:
    """Every card an action names (its melds, additions, card)."""
    if isinstance(action, str):
        return [action]
    if isinstance(action, dict):
        return [card for key, value in action.items() if key != "type" for card in _cards_of(value)]
    if isinstance(action, list):
        return [card for item in action for card in _cards_of(item)]
    return []
