"""The reply address of play by email is a credential: it reaches its player's own mailbox and
nothing else. Not the event feed (plain, long poll, stream), not a webhook body, not a stored
payload that feeds those channels, not an API answer, not the admin.

The attack these tests keep closed: a personal token with only the `read` scope read
`data.reply_to` of a `your_turn` event and then played by mail.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core import mail

from clients.models import Event, Webhook
from clients.services import webhook_delivery
from clients.services.webhook_delivery import webhook_run
from clients.services.webhooks import webhook_create
from games.models import Game
from notifications.models import Outbox
from notifications.services.outbox import outbox_sweep
from tests.clients.helpers import FakeReceiver, fake_dns, token_client, whole_turn
from tests.game_fixtures import game, user_at, users  # noqa: F401
from tests.leaks.conftest import reply_tokens

DOMAIN = "canasta.test"
# Any reply address of ours, whatever its token looks like.
ADDRESS = re.compile(rf"play\+[^@\s\"]+@{re.escape(DOMAIN)}", re.IGNORECASE)


@pytest.fixture(autouse=True)
def mail_settings(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.CANASTA_MAIL_DOMAIN = DOMAIN
    settings.CANASTA_EVENTS_STREAM_SECONDS = 0.2
    from notifications import tasks

    monkeypatch.setattr(tasks.deliver_outbox, "delay", lambda pk: None)


@pytest.fixture
def players(users: dict[str, Any]) -> dict[str, Any]:  # noqa: F811
    for name, user in users.items():
        user.email = f"{name}@example.com"
        user.save(update_fields=["email"])
    return users


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> FakeReceiver:
    fake_dns(monkeypatch, {"hooks.example": ["93.184.215.14"]})
    fake = FakeReceiver()
    monkeypatch.setattr(webhook_delivery, "transport", fake)
    return fake


def _tokens() -> list[str]:
    tokens = list(reply_tokens())
    assert tokens, "the turn email was sent, so its player has a reply token"
    return tokens


def _assert_no_reply_address(text: str, where: str) -> None:
    assert not ADDRESS.search(text), f"{where}: a reply address"
    for token in reply_tokens():
        assert token not in text, f"{where}: a reply token"


def _turn_passed(game: Game, players: dict[str, Any]) -> Any:  # noqa: F811
    """A whole turn is played and its mails sent; the player now on turn."""
    # The first turn email goes out as the game starts (once the turn is played it would be
    # dropped as no longer needed, notifications/services/presence.py).
    outbox_sweep()
    game = whole_turn(game)
    outbox_sweep()
    for hook_id in Webhook.objects.values_list("pk", flat=True):
        webhook_run(hook_id)
    return user_at(game, game.turn_seat)


def test_the_turn_email_carries_the_reply_address(players, game):  # noqa: F811
    nxt = _turn_passed(game, players)

    (token,) = [text for text, user_id in reply_tokens().items() if user_id == nxt.pk]
    (turn,) = [m for m in mail.outbox if m.to == [nxt.email]]
    assert turn.reply_to == [f"play+{token}@{DOMAIN}"]
    assert "HOW TO REPLY" in turn.body
    assert turn.extra_headers["Auto-Submitted"] == "auto-generated"
    # Nobody else's mail has it.
    others = [m for m in mail.outbox if m.to != [nxt.email]]
    assert others and not any(token in m.message().as_string() for m in others)


def test_a_read_token_cannot_read_the_reply_address_from_the_feed(players, game):  # noqa: F811
    nxt = _turn_passed(game, players)
    reader = token_client(nxt, ["read"])
    _tokens()

    feed = reader.get("/api/v1/events/")
    long_poll = reader.get("/api/v1/events/?after=0&wait=0.05")

    assert feed.status_code == long_poll.status_code == 200
    kinds = [e["kind"] for e in feed.json()["results"]]
    assert "your_turn" in kinds
    for event in feed.json()["results"]:
        assert "reply_to" not in event["data"]
    _assert_no_reply_address(feed.content.decode(), "GET /events/")
    _assert_no_reply_address(long_poll.content.decode(), "GET /events/?wait=")


def test_the_event_stream_carries_no_reply_address(players, game):  # noqa: F811
    nxt = _turn_passed(game, players)
    reader = token_client(nxt, ["read"])

    response = reader.get(
        "/api/v1/events/stream/", HTTP_ACCEPT="text/event-stream", HTTP_LAST_EVENT_ID="0"
    )

    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    assert "event: your_turn" in text
    _assert_no_reply_address(text, "the event stream")


def test_a_webhook_body_carries_no_reply_address(players, game, receiver):  # noqa: F811
    for user in players.values():
        webhook_create(owner=user, url="https://hooks.example/canasta")

    nxt = _turn_passed(game, players)

    own = [
        json.loads(call["body"])
        for call in receiver.calls
        if call["headers"]["X-Canasta-Event-Kind"] == "your_turn"
    ]
    assert own and all(body["data"]["seat"] == game.seats.get(user=nxt).number for body in own)
    for call in receiver.calls:
        _assert_no_reply_address(call["body"].decode(), "a webhook body")


def test_no_stored_event_or_outbox_payload_holds_a_reply_address(players, game):  # noqa: F811
    _turn_passed(game, players)
    _tokens()

    for event in Event.objects.all():
        _assert_no_reply_address(json.dumps(event.facts), f"event {event.kind}")
    for row in Outbox.objects.all():
        _assert_no_reply_address(json.dumps(row.payload), f"outbox {row.kind}")


def test_a_reply_address_planted_in_a_payload_is_not_used(players, game):  # noqa: F811
    # Whatever a stored payload says (an old row, a tampered one), the Reply-To comes from
    # the recipient's own reply token at sending time, and only on their turn emails.
    from notifications.services.outbox import outbox_enqueue

    outbox_enqueue(
        recipient=players["alice"],
        kind="match_over",
        game=game,
        payload={
            "game": {"id": str(game.pk), "url": "u", "variant": "classic", "players": 4},
            "seat": 0,
            "names": ["alice", "carol", "bob", "dave"],
            "totals": [0, 0],
            "winner_side": None,
            "reason": "aborted",
            "reply_to": "play+stolen@evil.example",
        },
    )
    outbox_sweep()

    (message,) = [m for m in mail.outbox if m.extra_headers["X-Canasta-Kind"] == "match_over"]
    assert message.reply_to == []
    assert "stolen" not in message.message().as_string()
