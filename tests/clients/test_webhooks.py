"""Webhooks: registration (secret shown once), signed deliveries through the outbox, the
delivery log, retries with backoff, and disabling after repeated failures."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from clients import signing
from clients.models import Event, Webhook, WebhookDelivery
from clients.payloads import event_entry
from clients.services import webhooks
from clients.services.webhooks import webhook_create
from notifications.models import Outbox, OutboxStatus
from notifications.services.delivery import send_row
from notifications.services.outbox import outbox_claim, outbox_deliver
from tests.api.helpers import code_of, error_of
from tests.clients.helpers import FakeReceiver, fake_dns, token_client, whole_turn

PUBLIC = "93.184.215.14"
URL = "https://hooks.example/canasta"


@pytest.fixture(autouse=True)
def public_dns(monkeypatch):
    fake_dns(monkeypatch, {"hooks.example": [PUBLIC], "other.example": [PUBLIC]})


@pytest.fixture
def receiver(monkeypatch) -> FakeReceiver:
    fake = FakeReceiver()
    monkeypatch.setattr(webhooks, "transport", fake)
    return fake


def _webhook_rows():
    return list(Outbox.objects.filter(channel="webhook").order_by("pk"))


def test_creating_a_webhook_shows_its_secret_once(clients):
    response = clients["alice"].post(
        "/api/v1/webhooks/", {"url": URL, "kinds": ["your_turn", "move"]}, format="json"
    )

    assert response.status_code == 201, response.content
    created = response.json()
    assert created["secret"].startswith("whsec_")
    assert created["kinds"] == ["your_turn", "move"] and created["active"] is True
    listed = clients["alice"].get("/api/v1/webhooks/").json()
    assert [hook["id"] for hook in listed] == [created["id"]]
    assert "secret" not in listed[0]
    assert "secret" not in clients["alice"].get(f"/api/v1/webhooks/{created['id']}/").json()
    # Nobody else sees or touches it.
    assert code_of(clients["bob"].get(f"/api/v1/webhooks/{created['id']}/"), 404) == "not_found"
    assert code_of(clients["bob"].delete(f"/api/v1/webhooks/{created['id']}/"), 404)


def test_rotating_the_secret_signs_the_next_deliveries_with_the_new_one(
    clients, users, game, receiver
):
    hook_id = clients["alice"].post("/api/v1/webhooks/", {"url": URL}, format="json").json()["id"]
    rotated = clients["alice"].post(f"/api/v1/webhooks/{hook_id}/rotate-secret/").json()
    whole_turn(game)

    outbox_deliver(_webhook_rows()[0].pk)

    sent = receiver.calls[0]["headers"]
    body = receiver.calls[0]["body"]
    stamp = sent["X-Canasta-Timestamp"]
    assert signing.verify(rotated["secret"], stamp, body, sent["X-Canasta-Signature"])
    assert Webhook.objects.get(pk=hook_id).secret == rotated["secret"]


def test_kinds_and_game_choose_which_events_are_sent(users, game, queued):
    alice, bob = users["alice"], users["bob"]
    everything, _ = webhook_create(owner=alice, url=URL)
    turns_only, _ = webhook_create(owner=alice, url=URL, kinds=["your_turn"], game_id=game.pk)
    webhook_create(owner=bob, url="https://other.example/", kinds=["hand_over"])

    seen = Event.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    # A round: the turn comes back to alice exactly once.
    for _ in range(4):
        game = whole_turn(game)

    alice_events = list(Event.objects.filter(recipient=alice, pk__gt=seen).order_by("pk"))
    assert [e.kind for e in alice_events].count("your_turn") == 1
    rows = _webhook_rows()
    by_hook = {
        hook.pk: sorted(row.payload["event"] for row in rows if row.payload["webhook"] == hook.pk)
        for hook in (everything, turns_only)
    }
    assert by_hook[everything.pk] == [e.pk for e in alice_events]
    assert by_hook[turns_only.pk] == [e.pk for e in alice_events if e.kind == "your_turn"]
    assert all(row.recipient == alice and row.key.startswith("webhook:") for row in rows)
    # bob wants hand_over only: nothing yet.
    assert not Outbox.objects.filter(channel="webhook", recipient=bob).exists()
    assert len(rows) == len(alice_events) + 1


def test_a_delivery_posts_the_event_signed_and_logs_it(clients, users, game, receiver):
    created = clients["alice"].post("/api/v1/webhooks/", {"url": URL}, format="json").json()
    whole_turn(game)
    row = _webhook_rows()[0]

    assert outbox_deliver(row.pk) == OutboxStatus.SENT

    call = receiver.calls[0]
    event = Event.objects.get(pk=row.payload["event"])
    assert call["target"].host == "hooks.example" and call["target"].address == PUBLIC
    assert json.loads(call["body"]) == json.loads(json.dumps(event_entry(event)))
    headers = call["headers"]
    assert headers["X-Canasta-Event-Id"] == str(event.pk)
    assert headers["X-Canasta-Event-Kind"] == event.kind
    assert signing.verify(
        created["secret"],
        headers["X-Canasta-Timestamp"],
        call["body"],
        headers["X-Canasta-Signature"],
    )
    # The body is the recipient's view only: another player's hand is not in it.
    hands = [c for s, h in enumerate(_hands(game)) if s != 0 for c in h]
    assert "hands" not in call["body"].decode()
    assert Outbox.objects.get(pk=row.pk).status == OutboxStatus.SENT
    log = clients["alice"].get(f"/api/v1/webhooks/{created['id']}/deliveries/").json()
    assert [
        (d["event"], d["attempt"], d["status_code"], d["ok"], d["error"]) for d in log["deliveries"]
    ] == [(event.pk, 1, 200, True, "")]
    assert hands  # the other seats do hold cards


def _hands(game):
    from tests.game_fixtures import current_table

    return current_table(game).hands


def test_a_failed_delivery_is_retried_with_backoff(users, game, receiver, settings):
    settings.CANASTA_OUTBOX_BACKOFF_SECONDS = 60
    settings.CANASTA_OUTBOX_MAX_ATTEMPTS = 3
    webhook_create(owner=users["alice"], url=URL, kinds=["move"])
    whole_turn(game)
    row = _webhook_rows()[0]
    receiver.status = [500, 503, 200]
    start = timezone.now()

    with time_machine.travel(start, tick=False) as clock:
        assert outbox_deliver(row.pk) == OutboxStatus.PENDING
        row.refresh_from_db()
        assert row.next_attempt_at == start + timedelta(seconds=60)
        assert outbox_deliver(row.pk) is None  # not due yet
        clock.shift(61)
        assert outbox_deliver(row.pk) == OutboxStatus.PENDING
        row.refresh_from_db()
        assert row.next_attempt_at == timezone.now() + timedelta(seconds=120)  # doubled
        clock.shift(121)
        assert outbox_deliver(row.pk) == OutboxStatus.SENT

    attempts = WebhookDelivery.objects.order_by("id")
    assert [(a.attempt, a.status_code, a.ok) for a in attempts] == [
        (1, 500, False),
        (2, 503, False),
        (3, 200, True),
    ]
    assert "HTTP 500" in attempts[0].error
    # A success wipes the slate.
    assert Webhook.objects.get().consecutive_failures == 0


def test_a_webhook_that_keeps_failing_is_disabled_and_its_owner_told(
    users, game, receiver, settings
):
    settings.CANASTA_WEBHOOK_MAX_FAILURES = 3
    settings.CANASTA_OUTBOX_MAX_ATTEMPTS = 1
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    alice = users["alice"]
    alice.email = "alice@example.com"
    alice.save()
    hook, _ = webhook_create(owner=alice, url=URL)
    receiver.status = 500
    for _ in range(4):
        game = whole_turn(game)
    rows = _webhook_rows()
    assert len(rows) >= 4

    statuses = [outbox_deliver(row.pk) for row in rows[:4]]

    # Three failures (each a row's last attempt): the hook is off, the fourth is not sent.
    assert statuses == [OutboxStatus.FAILED] * 3 + [OutboxStatus.SKIPPED]
    assert len(receiver.calls) == 3
    hook.refresh_from_db()
    assert not hook.active and hook.disabled_at is not None
    assert hook.consecutive_failures == 3 and "3 failed deliveries" in hook.disabled_reason
    notice = Outbox.objects.get(channel="email", kind="webhook", recipient=alice)
    claimed = outbox_claim(notice.pk)
    assert send_row(claimed) == OutboxStatus.SENT
    assert mail.outbox[-1].to == ["alice@example.com"]
    assert "turned off" in mail.outbox[-1].subject and URL in mail.outbox[-1].body
    # No new deliveries are queued for a disabled hook; turning it on resets it.
    before = len(_webhook_rows())
    whole_turn(game)
    assert len(_webhook_rows()) == before


def test_turning_a_disabled_webhook_on_again_resets_it(clients, users):
    hook, _ = webhook_create(owner=users["alice"], url=URL)
    Webhook.objects.filter(pk=hook.pk).update(
        active=False, consecutive_failures=10, disabled_at=timezone.now(), disabled_reason="x"
    )

    body = (
        clients["alice"]
        .patch(f"/api/v1/webhooks/{hook.pk}/", {"active": True}, format="json")
        .json()
    )

    assert body["active"] is True and body["consecutive_failures"] == 0
    assert body["disabled_at"] is None


def test_a_deleted_webhook_drops_its_queued_deliveries(clients, users, game, receiver):
    hook, _ = webhook_create(owner=users["alice"], url=URL)
    whole_turn(game)
    assert clients["alice"].delete(f"/api/v1/webhooks/{hook.pk}/").status_code == 204

    assert outbox_deliver(_webhook_rows()[0].pk) == OutboxStatus.SKIPPED
    assert receiver.calls == []


def test_webhook_input_is_validated(clients, users, settings):
    settings.CANASTA_WEBHOOKS_PER_USER = 1
    alice = clients["alice"]
    bad_kind = alice.post("/api/v1/webhooks/", {"url": URL, "kinds": ["chat"]}, format="json")
    assert code_of(bad_kind, 400) == "invalid_request"
    no_kinds = alice.post("/api/v1/webhooks/", {"url": URL, "kinds": []}, format="json")
    assert code_of(no_kinds, 400) == "invalid_kinds"
    unknown_game = alice.post(
        "/api/v1/webhooks/",
        {"url": URL, "game": "00000000-0000-4000-8000-000000000000"},
        format="json",
    )
    assert code_of(unknown_game, 404) == "not_found"
    assert alice.post("/api/v1/webhooks/", {"url": URL}, format="json").status_code == 201
    assert code_of(alice.post("/api/v1/webhooks/", {"url": URL}, format="json"), 400) == (
        "too_many_webhooks"
    )


def test_a_read_only_token_cannot_register_webhooks(users):
    reader = token_client(users["alice"], ["read"])
    response = reader.post("/api/v1/webhooks/", {"url": URL}, format="json")
    assert error_of(response, 403)["code"] == "permission_denied"
    assert reader.get("/api/v1/webhooks/").status_code == 200
