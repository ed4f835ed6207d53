"""Open feeds (long polls that wait, streams): the per-user cap, its failing open without
Redis, and the credentials checked again while a feed is open. The same through a real server:
tests/integration/test_event_streams.py."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from api.clients import streams
from api.clients.views import events as events_view
from api.errors import ApiError
from clients.models import ApiToken, TokenKind
from clients.services.tokens import token_revoke
from tests.api.helpers import code_of, error_of
from tests.clients.helpers import token_client
from tests.integration.processes import free_port


@pytest.fixture(autouse=True)
def no_open_feeds(settings: Any) -> Iterator[None]:
    settings.REDIS_URL = ""  # the per-process count (the Redis one: the integration tests)
    streams._local_slots.clear()
    yield
    streams._local_slots.clear()


def _fill(user: Any, settings: Any) -> list[streams.FeedSlot]:
    return [streams.feed_slot_take(user.pk) for _ in range(settings.CANASTA_EVENTS_OPEN_PER_USER)]


def test_a_user_has_at_most_the_cap_of_open_feeds(users, settings):
    settings.CANASTA_EVENTS_OPEN_PER_USER = 3
    slots = _fill(users["alice"], settings)
    with pytest.raises(ApiError) as refused:
        streams.feed_slot_take(users["alice"].pk)
    assert refused.value.status_code == 429 and refused.value.error_code == "too_many_open_feeds"
    streams.feed_slot_take(users["bob"].pk)  # another user's count

    streams.feed_slot_release(slots[0])
    streams.feed_slot_take(users["alice"].pk)


def test_a_slot_nobody_renews_lapses(users, settings, monkeypatch):
    settings.CANASTA_EVENTS_OPEN_PER_USER = 1
    slot = streams.feed_slot_take(users["alice"].pk)
    now = streams.time.time()
    monkeypatch.setattr(streams.time, "time", lambda: now + streams.FEED_SLOT_TTL_SECONDS - 1)
    with pytest.raises(ApiError):
        streams.feed_slot_take(users["alice"].pk)
    streams.feed_slot_renew(slot)  # renewed now: good for another TTL
    monkeypatch.setattr(streams.time, "time", lambda: now + 2 * streams.FEED_SLOT_TTL_SECONDS - 2)
    with pytest.raises(ApiError):
        streams.feed_slot_take(users["alice"].pk)
    monkeypatch.setattr(streams.time, "time", lambda: now + 3 * streams.FEED_SLOT_TTL_SECONDS)
    streams.feed_slot_take(users["alice"].pk)  # the process holding it died: it lapsed


def test_without_redis_the_cap_fails_open_with_a_log_line(users, settings, monkeypatch, caplog):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    monkeypatch.setattr(streams, "_client", None)
    settings.CANASTA_EVENTS_OPEN_PER_USER = 1
    with caplog.at_level(logging.WARNING, logger="api.clients.streams"):
        slots = [streams.feed_slot_take(users["alice"].pk) for _ in range(3)]
        for slot in slots:
            streams.feed_slot_release(slot)
    assert "Redis unavailable" in caplog.text
    monkeypatch.setattr(streams, "_client", None)


def test_a_long_poll_that_would_wait_beyond_the_cap_is_429(users, settings):
    alice = token_client(users["alice"], ["read"])
    _fill(users["alice"], settings)

    refused = alice.get("/api/v1/events/", {"after": "latest", "wait": 5})
    error = error_of(refused, 429)
    assert error["code"] == "too_many_open_feeds"
    assert error["details"] == {
        "limit": settings.CANASTA_EVENTS_OPEN_PER_USER,
        "retry_after": streams.FEEDS_RETRY_AFTER_SECONDS,
    }
    assert refused["Retry-After"] == str(streams.FEEDS_RETRY_AFTER_SECONDS)
    # One that answers at once is not an open feed.
    assert alice.get("/api/v1/events/", {"after": "latest", "wait": 0}).status_code == 200


def test_a_stream_beyond_the_cap_is_429(users, settings):
    _fill(users["alice"], settings)
    refused = token_client(users["alice"]).get(
        "/api/v1/events/stream/", HTTP_ACCEPT="text/event-stream"
    )
    assert refused.status_code == 429
    # The error shape, labelled as the JSON it is (not as the negotiated stream), and when
    # to try again.
    assert refused["Content-Type"] == "application/json"
    assert refused["Retry-After"] == str(streams.FEEDS_RETRY_AFTER_SECONDS)
    assert json.loads(refused.content)["error"]["code"] == "too_many_open_feeds"


def test_a_finished_long_poll_gives_its_place_back(users, settings):
    settings.CANASTA_EVENTS_OPEN_PER_USER = 1
    alice = token_client(users["alice"], ["read"])
    for _ in range(3):
        assert alice.get("/api/v1/events/", {"after": "latest", "wait": 0.05}).status_code == 200
    assert not any(streams._local_slots.get(users["alice"].pk, {}))


def _revoke_on_second_nap(
    monkeypatch: pytest.MonkeyPatch, settings: Any, revoke: Any
) -> list[float]:
    settings.CANASTA_EVENTS_AUTH_CHECK_SECONDS = 0
    naps: list[float] = []

    async def nap(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 2:
            await sync_to_async(revoke)()

    monkeypatch.setattr(events_view, "_nap", nap)
    return naps


def test_a_long_poll_ends_with_401_once_its_token_is_revoked(users, settings, monkeypatch):
    alice = token_client(users["alice"], ["read"])
    token = ApiToken.objects.get(owner=users["alice"], kind=TokenKind.PERSONAL)
    naps = _revoke_on_second_nap(
        monkeypatch, settings, lambda: token_revoke(owner=users["alice"], token_id=token.pk)
    )

    answer = alice.get("/api/v1/events/", {"after": "latest", "wait": 60})

    assert code_of(answer, 401) == "authentication_failed"
    assert len(naps) == 2  # the look after the revocation ended it
    assert not any(streams._local_slots.get(users["alice"].pk, {}))


def test_a_long_poll_ends_once_the_user_is_deactivated(users, settings, monkeypatch):
    alice = token_client(users["alice"], ["read"])

    def deactivate() -> None:
        users["alice"].is_active = False
        users["alice"].save(update_fields=["is_active"])

    _revoke_on_second_nap(monkeypatch, settings, deactivate)
    answer = alice.get("/api/v1/events/", {"after": "latest", "wait": 60})
    assert code_of(answer, 401) == "authentication_failed"


def test_a_session_long_poll_ends_when_the_session_does(users, settings, monkeypatch):
    browser = Client()
    browser.force_login(users["alice"])
    _revoke_on_second_nap(monkeypatch, settings, lambda: browser.logout())
    answer = browser.get("/api/v1/events/", {"after": "latest", "wait": 60})
    assert code_of(answer, 401) == "not_authenticated"


def test_a_stream_ends_with_an_error_message_once_its_token_is_revoked(
    users, settings, monkeypatch
):
    """Under WSGI (the test client) the stream waits in its thread; it checks the same way."""
    settings.CANASTA_EVENTS_AUTH_CHECK_SECONDS = 0
    settings.CANASTA_EVENTS_STREAM_SECONDS = 60
    alice = token_client(users["alice"], ["read"])
    token = ApiToken.objects.get(owner=users["alice"], kind=TokenKind.PERSONAL)
    naps: list[float] = []

    def sleep(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 2:
            token_revoke(owner=users["alice"], token_id=token.pk)

    monkeypatch.setattr(events_view.time, "sleep", sleep)
    response = alice.get("/api/v1/events/stream/", HTTP_ACCEPT="text/event-stream")
    text = b"".join(response.streaming_content).decode()

    assert len(naps) == 2
    last = text.strip().split("\n\n")[-1].split("\n")
    assert last[0] == "event: error"
    assert json.loads(last[1].removeprefix("data: "))["error"]["code"] == ("authentication_failed")
    assert not any(streams._local_slots.get(users["alice"].pk, {}))
