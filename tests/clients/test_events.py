"""The event feed: what a move writes for each player, in order, resumable with `after`, and
a long poll that wakes up when a move happens."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from api.clients.views import events as events_view
from api.presenters import move_entry as api_move_entry
from clients import selectors
from clients.models import Event
from clients.payloads import event_entry, move_entry
from games.models import Move
from games.services.moves import game_resign
from games.services.timeouts import timeout_apply
from tests.api.helpers import code_of
from tests.clients.helpers import token_client, whole_turn
from tests.game_fixtures import (
    current_table,
    make_user,
    start_game,
    user_at,
)


def _feed(user, after=0, kinds=None):
    """What `user` reads in the feed (rendered for their seat), oldest first."""
    events = selectors.events_after(user=user, after=after, limit=500)
    return [e for e in events if kinds is None or e.kind in kinds]


def _kinds(user, kinds=None):
    return [e.kind for e in _feed(user, kinds=kinds)]


def _one(user, kind):
    (event,) = _feed(user, kinds=[kind])
    return event


def test_a_turn_writes_a_move_event_for_every_player_and_your_turn_for_the_next(users, game):
    mover = user_at(game, current_table(game).turn)
    before = Event.objects.order_by("-pk").values_list("pk", flat=True).first() or 0

    game = whole_turn(game)

    nxt = user_at(game, game.turn_seat)
    for name in ("alice", "bob", "carol", "dave"):
        expected = ["move", "your_turn"] if users[name] == nxt else ["move"]
        assert [e.kind for e in _feed(users[name], after=before)] == expected
    assert _feed(users["eve"]) == []
    # Written once: one shared move event, one your_turn for the next player.
    assert [(e.kind, e.recipient_id) for e in Event.objects.filter(pk__gt=before)] == [
        ("move", None),
        ("your_turn", nxt.pk),
    ]
    (moved,) = _feed(mover, after=before, kinds=["move"])
    assert [m["action"]["type"] for m in moved.payload["moves"]] == ["draw", "discard"]
    assert moved.seq == game.last_seq and moved.payload["version"] == game.version
    assert moved.payload["turn"] == game.turn_seat


def test_each_player_sees_only_what_their_seat_may_see(users, game):
    mover_seat = current_table(game).turn
    game = whole_turn(game)
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    # The draw may come with red-three events (a red three drawn is laid out and replaced).
    at = next(i for i, e in enumerate(moves[0].events) if e["type"] == "draw")
    drawn = moves[0].events[at]
    assert drawn.get("cards")

    for seat in range(4):
        event = _one(user_at(game, seat), "move")
        # The same entries as GET /games/{id}/moves/ gives that seat.
        assert event.payload["moves"] == [api_move_entry(m, seat) for m in moves]
        assert event.payload["moves"] == [move_entry(m, seat) for m in moves]
        draw = event.payload["moves"][0]["events"][at]
        assert draw["type"] == "draw"
        if seat == mover_seat:
            assert draw["cards"] == drawn["cards"]
        else:
            # Another player's draw shows as a count.
            assert "cards" not in draw
    turn = _one(user_at(game, game.turn_seat), "your_turn")
    assert turn.payload["view"]["hand"] == current_table(game).hands[game.turn_seat]
    assert "hands" not in turn.payload["view"] and "stock" not in turn.payload["view"]


def test_a_resignation_writes_the_move_and_match_over(users, game):
    game_resign(game_id=game.pk, user=users["carol"])
    for name in ("alice", "bob", "carol", "dave"):
        kinds = _kinds(users[name], kinds=["move", "hand_over", "match_over"])
        assert kinds == ["move", "hand_over", "match_over"]
    over = _one(users["alice"], "match_over")
    assert over.payload["reason"] == "resigned" and over.payload["winner_side"] == 0
    move = _one(users["alice"], "move")
    assert move.payload["moves"][0]["action"] == {"type": "resign"}


def test_a_timeout_writes_a_timeout_event_for_everyone(users):
    game = start_game(users, turn_seconds=3600)
    silent = game.turn_seat
    assert timeout_apply(game_id=game.pk, now=game.deadline + timedelta(seconds=1))
    for name in ("alice", "bob", "carol", "dave"):
        timeout = _one(users[name], "timeout")
        assert timeout.payload["timed_out_seat"] == silent
        assert timeout.payload["policy"] == "autoplay"
        assert _kinds(users[name])[-1] == "timeout"


def test_a_bot_table_writes_events_for_its_only_person(db):
    from games.services import lobby

    ann = make_user("ann")
    game = lobby.game_create(creator=ann, variant="classic", players=2, options={}, bots=["basic"])
    assert set(Event.objects.filter(game=game).values_list("recipient", flat=True)) <= {
        ann.pk,
        None,
    }
    seat = game.seats.get(user=ann).number
    # (Nothing yet when the bot was seated to play first: its turn is a task.)
    assert {e.payload["seat"] for e in _feed(ann)} <= {seat}


def test_the_feed_lists_my_events_in_order_and_resumes_after_an_id(users, game):
    for _ in range(3):
        game = whole_turn(game)
    alice = token_client(users["alice"], ["read"])
    mine = _feed(users["alice"])

    first = alice.get("/api/v1/events/", {"wait": 0, "limit": 2}).json()
    assert [e["id"] for e in first["events"]] == [e.pk for e in mine[:2]]
    assert first["last_id"] == mine[1].pk
    rest = alice.get("/api/v1/events/", {"after": first["last_id"], "wait": 0}).json()
    assert [e["id"] for e in rest["events"]] == [e.pk for e in mine[2:]]
    assert rest["events"][0] == json.loads(json.dumps(event_entry(mine[2])))
    done = alice.get("/api/v1/events/", {"after": rest["last_id"], "wait": 0}).json()
    assert (done["results"], done["events"], done["last_id"]) == ([], [], mine[-1].pk)
    latest = alice.get("/api/v1/events/", {"after": "latest", "wait": 0}).json()
    assert (latest["results"], latest["last_id"]) == ([], mine[-1].pk)
    # Only my own your_turn events: bob's are not in mine.
    ids = {e.pk for e in Event.objects.filter(recipient=users["bob"])}
    assert ids and ids.isdisjoint(e["id"] for e in first["events"] + rest["events"])


def test_a_long_poll_with_nothing_new_returns_empty_after_the_wait(users, game):
    alice = token_client(users["alice"])
    start = time.monotonic()
    body = alice.get("/api/v1/events/", {"after": "latest", "wait": 0.3}).json()
    assert body["results"] == [] and time.monotonic() - start >= 0.3


@pytest.mark.parametrize("query", [{"after": "-1"}, {"after": "x"}, {"wait": "-2"}, {"limit": 0}])
def test_bad_feed_parameters_are_400(users, query):
    assert code_of(token_client(users["alice"]).get("/api/v1/events/", query), 400) == (
        "invalid_request"
    )


def test_the_feed_needs_credentials(db):
    from rest_framework.test import APIClient

    assert code_of(APIClient().get("/api/v1/events/"), 401) == "not_authenticated"


def test_the_stream_sends_server_sent_events(users, game, settings):
    settings.CANASTA_EVENTS_STREAM_SECONDS = 0.3
    game = whole_turn(game)
    alice = token_client(users["alice"])
    mine = _feed(users["alice"])

    response = alice.get(
        "/api/v1/events/stream/",
        HTTP_ACCEPT="text/event-stream",
        HTTP_LAST_EVENT_ID=str(mine[0].pk),
    )

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    text = b"".join(response.streaming_content).decode()
    messages = [m for m in text.split("\n\n") if m.startswith("id:")]
    assert [int(m.split("\n")[0][4:]) for m in messages] == [e.pk for e in mine[1:]]
    first = dict(line.split(": ", 1) for line in messages[0].split("\n"))
    assert first["event"] == mine[1].kind
    assert json.loads(first["data"])["id"] == mine[1].pk


def test_a_waiting_request_wakes_up_when_a_move_happens(users, game, monkeypatch):
    """The move lands while the request waits (in its sleep between two looks): the answer
    comes at the next look, not at the end of the wait. tests/clients/test_events_postgres.py
    does the same with real threads on a live server."""
    table = current_table(game)
    waiting = token_client(user_at(game, (table.turn + 1) % 4), ["read"])
    cursor = waiting.get("/api/v1/events/", {"after": "latest", "wait": 0}).json()["last_id"]
    naps: list[float] = []

    async def nap(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 3:
            await sync_to_async(whole_turn)(game)

    monkeypatch.setattr(events_view, "_nap", nap)
    body = waiting.get("/api/v1/events/", {"after": cursor, "wait": 60}).json()

    assert [e["kind"] for e in body["results"]] == ["move", "your_turn"]
    assert len(naps) == 3  # three looks found nothing; the fourth found the move
    assert body["last_id"] == body["results"][-1]["id"]


def test_old_events_are_pruned(users, game):
    from django.core.management import call_command
    from django.utils import timezone

    game = whole_turn(game)
    # Everything so far happened 40 days ago; the next turn is today.
    Event.objects.update(created_at=timezone.now() - timedelta(days=40))
    old = set(Event.objects.values_list("pk", flat=True))
    whole_turn(game)
    kept = set(Event.objects.values_list("pk", flat=True)) - old

    call_command("prune_events", "--days", "30")

    assert kept and set(Event.objects.values_list("pk", flat=True)) == kept


def test_beat_prunes_old_events_daily_with_the_retention_setting(users, game, settings):
    from django.utils import timezone

    from canasta_site.celery import app, beat_schedule
    from clients.tasks import prune_events

    settings.CANASTA_EVENTS_RETENTION_DAYS = 7
    settings.CANASTA_EVENTS_PRUNE_SECONDS = 86400
    entry = beat_schedule()["prune-events"]
    assert entry["task"] == "clients.tasks.prune_events" and entry["schedule"] == 86400
    assert "clients.tasks.prune_events" in app.tasks

    game = whole_turn(game)
    Event.objects.update(created_at=timezone.now() - timedelta(days=8))
    old = Event.objects.count()
    whole_turn(game)
    kept = Event.objects.count() - old

    assert prune_events() == old and Event.objects.count() == kept > 0


@pytest.mark.parametrize(
    "ask",
    [{"HTTP_ACCEPT": "application/x-ndjson"}, {"format": "ndjson"}, {"format": "json"}],
    ids=["accept", "format-ndjson", "format-json"],
)
def test_the_stream_as_ndjson_is_one_event_per_line(users, game, settings, ask):
    settings.CANASTA_EVENTS_STREAM_SECONDS = 0.3
    game = whole_turn(game)
    alice = token_client(users["alice"])
    mine = _feed(users["alice"])
    query = {"after": mine[0].pk, **({"format": ask["format"]} if "format" in ask else {})}
    headers = {k: v for k, v in ask.items() if k.startswith("HTTP_")}

    response = alice.get("/api/v1/events/stream/", query, **headers)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson; charset=utf-8"
    lines = [line for line in b"".join(response.streaming_content).decode().split("\n") if line]
    entries = [json.loads(line) for line in lines]
    assert [entry["id"] for entry in entries] == [e.pk for e in mine[1:]]
    assert entries[0]["kind"] == mine[1].kind and set(entries[0]) == {
        "id", "kind", "game", "seq", "created_at", "data",
    }  # fmt: skip


def test_the_stream_is_in_the_schema_in_both_framings(db):
    from tests.contract import served_schema

    ok = served_schema()["paths"]["/api/v1/events/stream/"]["get"]["responses"]["200"]
    assert set(ok["content"]) == {"text/event-stream", "application/x-ndjson"}
    for media in ok["content"].values():
        assert media["schema"]["x-item-schema"] == {"$ref": "#/components/schemas/Event"}
    assert "`event: <kind>`" in ok["description"] and "one Event per line" in ok["description"]
