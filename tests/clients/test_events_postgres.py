"""The event feed with real concurrency, on PostgreSQL (the integration pass of scripts/test).

Event ids come from a sequence shared by concurrent transactions: the feed's cursor is only
safe because a writer holds the recipients' row locks until it commits, so two transactions
writing events for the same player commit in id order. And a long poll on a live server wakes
up when another request makes a move. (On SQLite, with its in-memory test database shared
between the live server's threads, neither can be shown.)"""

from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest
from django.db import connection, transaction

from clients.models import Event, EventKind
from clients.services.events import Draft, events_write
from games import engine
from tests.clients.helpers import token_client
from tests.game_fixtures import current_table, start_game, user_at

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _need_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: run by the integration pass of scripts/test")


def test_a_second_writer_for_the_same_player_waits_for_the_first_to_commit(users):
    _need_postgresql()
    first_game = start_game(users)
    second_game = start_game(users)
    ann = users["alice"]
    written = threading.Event()
    release = threading.Event()
    finished: dict[str, float] = {}

    def first() -> None:
        try:
            with transaction.atomic():
                events_write(
                    game=first_game,
                    seq=1,
                    drafts=[Draft(None, EventKind.MOVE, {"n": 1}, readers=[ann.pk])],
                )
                written.set()
                release.wait(10)
            finished["first"] = time.monotonic()
        finally:
            connection.close()

    def second() -> None:
        try:
            written.wait(10)
            with transaction.atomic():
                events_write(
                    game=second_game,
                    seq=1,
                    drafts=[Draft(None, EventKind.MOVE, {"n": 2}, readers=[ann.pk])],
                )
            finished["second"] = time.monotonic()
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    written.wait(10)
    time.sleep(0.5)
    assert "second" not in finished  # blocked on alice's row, not committed ahead
    release.set()
    for thread in threads:
        thread.join(15)

    assert finished["first"] <= finished["second"]
    # A shared event locks every reader, as a your_turn locks its one recipient.
    # (facts are compact JSON text, not jsonb: no JSON lookups in SQL.)
    rows = [facts for facts in Event.objects.order_by("pk").values_list("facts", flat=True)]
    assert [facts["n"] for facts in rows if "n" in facts] == [1, 2]


def _http(live_server, key: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"{live_server.url}/api/v1/{path}",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_a_waiting_request_wakes_up_when_a_move_happens(live_server, users, settings):
    _need_postgresql()
    settings.CANASTA_EVENTS_POLL_SECONDS = 0.05
    game = start_game(users)
    table = current_table(game)
    discard = engine.apply(table, table.turn, {"type": "draw"}).table.hands[table.turn][0]
    mover = token_client(user_at(game, table.turn))
    nxt = token_client(user_at(game, (table.turn + 1) % 4), ["read"])
    cursor = nxt.get("/api/v1/events/", {"after": "latest", "wait": 0}).json()["last_id"]
    answer: dict = {}

    def wait_for_events() -> None:
        started = time.monotonic()
        answer["body"] = _http(live_server, nxt.key, f"events/?after={cursor}&wait=20")
        answer["waited"] = time.monotonic() - started

    waiter = threading.Thread(target=wait_for_events)
    waiter.start()
    time.sleep(0.5)  # the request is waiting now
    assert "body" not in answer
    _http(
        live_server,
        mover.key,
        f"games/{game.pk}/actions/",
        {
            "actions": [{"type": "draw"}, {"type": "discard", "card": discard}],
            "expected_version": game.version,
        },
    )
    waiter.join(timeout=25)

    assert [e["kind"] for e in answer["body"]["results"]] == ["move", "your_turn"]
    assert answer["body"]["results"][1]["data"]["seat"] == (table.turn + 1) % 4
    assert answer["waited"] < 10  # woken by the move, well before the 20 s wait ran out
