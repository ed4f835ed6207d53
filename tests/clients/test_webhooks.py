"""Webhooks: registration (secret shown once), signed deliveries in event order from the
hook's cursor, the delivery log, retries with backoff, disabling only after failures that
span CANASTA_WEBHOOK_DISABLE_AFTER_SECONDS, and a hook turned on again receiving what it
missed."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from clients import selectors, signing
from clients.models import Webhook, WebhookDelivery
from clients.payloads import event_entry
from clients.services import webhook_delivery
from clients.services.webhook_delivery import webhook_run
from clients.services.webhooks import webhook_create, webhook_update, webhooks_sweep
from notifications.models import Outbox, OutboxStatus
from notifications.services.outbox import outbox_claim, outbox_row_send
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
    monkeypatch.setattr(webhook_delivery, "transport", fake)
    return fake


class Down:
    """A receiver that is not there: every connection is refused."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        raise ConnectionRefusedError(111, "Connection refused")


def _delivered(receiver: FakeReceiver) -> list[int]:
    return [int(call["headers"]["X-Canasta-Event-Id"]) for call in receiver.calls]


def _feed_ids(user, kinds=None, after=0) -> list[int]:
    events = selectors.events_after(user=user, after=after, limit=500)
    return [e.pk for e in events if kinds is None or e.kind in kinds]


def _turns(game, count):
    for _ in range(count):
        game = whole_turn(game)
    return game


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

    assert webhook_run(hook_id) == "caught_up"

    sent = receiver.calls[0]["headers"]
    body = receiver.calls[0]["body"]
    stamp = sent["X-Canasta-Timestamp"]
    assert signing.verify(rotated["secret"], stamp, body, sent["X-Canasta-Signature"])
    assert Webhook.objects.get(pk=hook_id).secret == rotated["secret"]


def test_kinds_and_game_choose_which_events_are_sent(users, game, receiver):
    alice, bob = users["alice"], users["bob"]
    everything, _ = webhook_create(owner=alice, url=URL)
    turns_only, _ = webhook_create(owner=alice, url=URL, kinds=["your_turn"], game_id=game.pk)
    bobs, _ = webhook_create(owner=bob, url="https://other.example/", kinds=["hand_over"])
    # A round: the turn comes back to alice exactly once.
    game = _turns(game, 4)

    sent = {}
    for hook in (everything, turns_only, bobs):
        receiver.calls.clear()
        webhook_run(hook.pk)
        sent[hook.pk] = _delivered(receiver)

    alice_events = selectors.events_after(user=alice, after=everything.cursor, limit=500)
    assert [e.kind for e in alice_events].count("your_turn") == 1
    # Every event alice reads, in order, and only those: hooks are woken for her events.
    assert sent[everything.pk] == [e.pk for e in alice_events]
    assert sent[turns_only.pk] == [e.pk for e in alice_events if e.kind == "your_turn"]
    assert sent[bobs.pk] == []  # bob wants hand_over only: nothing yet
    # Caught up, a hook's cursor moves past the events it does not want.
    turns_only.refresh_from_db()
    assert turns_only.cursor == alice_events[-1].pk
    # No outbox row per event and hook.
    assert not Outbox.objects.filter(channel="webhook").exists()


def test_a_delivery_posts_the_event_signed_and_logs_it(clients, users, game, receiver):
    created = clients["alice"].post("/api/v1/webhooks/", {"url": URL}, format="json").json()
    registered = Webhook.objects.get(pk=created["id"]).cursor
    whole_turn(game)

    assert webhook_run(created["id"]) == "caught_up"

    call = receiver.calls[0]
    (event,) = selectors.events_after(user=users["alice"], after=registered)
    assert call["target"].host == "hooks.example" and call["target"].address == PUBLIC
    assert json.loads(call["body"]) == json.loads(json.dumps(event_entry(event)))
    assert json.loads(call["body"])["data"]["seat"] == 0  # alice's own seat
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
    log = clients["alice"].get(f"/api/v1/webhooks/{created['id']}/deliveries/").json()
    assert [
        (d["event"], d["attempt"], d["status_code"], d["ok"], d["error"]) for d in log["deliveries"]
    ][-1] == (event.pk, 1, 200, True, "")
    # The page says where the next one starts: a full page of one gives its cursor.
    assert log["next_before"] is None
    url = f"/api/v1/webhooks/{created['id']}/deliveries/"
    first = clients["alice"].get(url, {"limit": 1}).json()
    assert first["next_before"] == first["deliveries"][0]["id"]
    assert Webhook.objects.get(pk=created["id"]).cursor == _feed_ids(users["alice"])[-1]
    assert hands  # the other seats do hold cards


def _hands(game):
    from tests.game_fixtures import current_table

    return current_table(game).hands


def test_a_failed_delivery_is_retried_with_backoff_and_later_events_wait_their_turn(
    users, game, receiver, settings
):
    settings.CANASTA_OUTBOX_BACKOFF_SECONDS = 60
    hook, _ = webhook_create(owner=users["alice"], url=URL, kinds=["move"])
    game = _turns(game, 2)
    moves = _feed_ids(users["alice"], kinds=["move"], after=hook.cursor)
    assert len(moves) == 2
    receiver.status = [500, 503, 200, 200]
    start = timezone.now()

    with time_machine.travel(start, tick=False) as clock:
        assert webhook_run(hook.pk) == "failed"
        hook.refresh_from_db()
        assert hook.due_at == start + timedelta(seconds=60) and hook.cursor < moves[0]
        assert webhook_run(hook.pk) == "idle"  # not due yet
        clock.shift(61)
        assert webhook_run(hook.pk) == "failed"
        hook.refresh_from_db()
        assert hook.due_at == timezone.now() + timedelta(seconds=120)  # doubled
        clock.shift(121)
        assert webhook_run(hook.pk) == "caught_up"

    # The first event three times, and only then the second: one hook's deliveries in order.
    assert _delivered(receiver) == [moves[0], moves[0], moves[0], moves[1]]
    attempts = WebhookDelivery.objects.order_by("id")
    assert [(a.event_id, a.attempt, a.status_code, a.ok) for a in attempts] == [
        (moves[0], 1, 500, False),
        (moves[0], 2, 503, False),
        (moves[0], 3, 200, True),
        (moves[1], 1, 200, True),
    ]
    assert "HTTP 500" in attempts[0].error
    # A success wipes the slate.
    hook.refresh_from_db()
    assert hook.consecutive_failures == 0 and hook.failing_since is None and hook.active


def test_a_short_outage_costs_one_attempt_and_loses_no_event(users, game, monkeypatch, settings):
    """The issue's case: the receiver stopped while a hand's events pile up. Before, every
    event was a delivery of its own: ten first attempts failed within a second and the hook
    was turned off, its events lost."""
    settings.CANASTA_OUTBOX_BACKOFF_SECONDS = 60
    settings.CANASTA_WEBHOOK_MAX_FAILURES = 10
    hook, _ = webhook_create(owner=users["alice"], url=URL)
    hook.cursor_at_creation = hook.cursor
    down = Down()
    monkeypatch.setattr(webhook_delivery, "transport", down)
    start = timezone.now()

    with time_machine.travel(start, tick=False) as clock:
        for _ in range(12):
            game = whole_turn(game)
            webhook_run(hook.pk)  # what each move's task does
            webhooks_sweep()
        assert down.calls == 1  # the first failure holds the others back for the backoff
        hook.refresh_from_db()
        assert hook.active and hook.consecutive_failures == 1

        clock.shift(61)
        back = FakeReceiver()
        monkeypatch.setattr(webhook_delivery, "transport", back)
        assert webhook_run(hook.pk) == "caught_up"

    # All of them, in order: everything since the hook was registered.
    assert _delivered(back) == _feed_ids(users["alice"], after=hook.cursor_at_creation)
    assert len(back.calls) > 12


def test_a_hook_is_turned_off_only_after_failures_spanning_the_threshold(
    users, game, monkeypatch, settings
):
    settings.CANASTA_OUTBOX_BACKOFF_SECONDS = 60
    settings.CANASTA_WEBHOOK_MAX_BACKOFF_SECONDS = 3600
    settings.CANASTA_WEBHOOK_MAX_FAILURES = 3
    settings.CANASTA_WEBHOOK_DISABLE_AFTER_SECONDS = 24 * 3600
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    alice = users["alice"]
    alice.email = "alice@example.com"
    alice.save()
    hook, _ = webhook_create(owner=alice, url=URL)
    game = whole_turn(game)
    down = Down()
    monkeypatch.setattr(webhook_delivery, "transport", down)
    start = timezone.now()

    with time_machine.travel(start, tick=False) as clock:
        # Failing for just under a day, retried at every due time: still on.
        while timezone.now() < start + timedelta(hours=23, minutes=59):
            webhook_run(hook.pk)
            clock.shift(60)
        hook.refresh_from_db()
        assert hook.active and hook.consecutive_failures >= 3
        tries = down.calls
        assert 20 < tries < 40  # the backoff grew to an hour: retries went on all day

        clock.shift(3600)
        webhook_run(hook.pk)
        notice = Outbox.objects.get(channel="email", kind="webhook", recipient=alice)
        assert outbox_row_send(outbox_claim(notice.pk)) == OutboxStatus.SENT

    hook.refresh_from_db()
    assert not hook.active and hook.disabled_at is not None
    assert "24 hours" in hook.disabled_reason
    assert mail.outbox[-1].to == ["alice@example.com"]
    assert "turned off" in mail.outbox[-1].subject and URL in mail.outbox[-1].body
    # A hook that is off is not woken by new events.
    whole_turn(game)
    hook.refresh_from_db()
    assert hook.due_at is None and webhook_run(hook.pk) == "idle"


def test_a_hook_turned_on_again_receives_what_it_missed_in_order(clients, users, game, receiver):
    hook, _ = webhook_create(owner=users["alice"], url=URL)
    registered = hook.cursor
    game = whole_turn(game)
    webhook_run(hook.pk)
    seen = _delivered(receiver)
    Webhook.objects.filter(pk=hook.pk).update(
        active=False, consecutive_failures=10, disabled_at=timezone.now(), disabled_reason="x"
    )
    game = _turns(game, 5)
    assert webhook_run(hook.pk) == "idle"  # off: nothing is sent

    body = (
        clients["alice"]
        .patch(f"/api/v1/webhooks/{hook.pk}/", {"active": True}, format="json")
        .json()
    )
    assert body["active"] is True and body["consecutive_failures"] == 0
    assert body["disabled_at"] is None
    assert webhook_run(hook.pk) == "caught_up"

    missed = _delivered(receiver)[len(seen) :]
    assert seen + missed == _feed_ids(users["alice"], after=registered)
    assert len(missed) >= 5


def test_a_run_hands_over_after_its_time_and_the_next_run_goes_on(
    users, game, receiver, monkeypatch
):
    hook, _ = webhook_create(owner=users["alice"], url=URL)
    registered = hook.cursor
    _turns(game, 3)
    queued: list[int] = []
    monkeypatch.setattr(webhook_delivery, "webhook_run_soon", queued.append)
    clock = iter(range(0, 10_000))
    # Each look at the clock is a second later: the run's 4 seconds end after a few events.
    monkeypatch.setattr(webhook_delivery.time, "monotonic", lambda: float(next(clock)))

    assert webhook_run(hook.pk, seconds=4) == "more"
    sent = len(receiver.calls)
    assert 0 < sent < len(_feed_ids(users["alice"], after=registered))
    assert queued == [hook.pk]  # the rest goes to a fresh task
    hook.refresh_from_db()
    assert hook.due_at is not None and hook.claimed_until is None

    assert webhook_run(hook.pk, seconds=1000) == "caught_up"
    assert _delivered(receiver) == _feed_ids(users["alice"], after=registered)


def test_a_deleted_webhook_sends_nothing(clients, users, game, receiver):
    hook, _ = webhook_create(owner=users["alice"], url=URL)
    whole_turn(game)
    assert clients["alice"].delete(f"/api/v1/webhooks/{hook.pk}/").status_code == 204

    assert webhook_run(hook.pk) == "idle"
    assert receiver.calls == []


def test_an_owner_turning_a_hook_off_stops_it(users, game, receiver):
    hook, _ = webhook_create(owner=users["alice"], url=URL)
    webhook_update(owner=users["alice"], webhook_id=hook.pk, active=False)
    whole_turn(game)
    assert webhook_run(hook.pk) == "idle" and receiver.calls == []


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
    assert error_of(response, 403)["code"] == "insufficient_scope"
    assert reader.get("/api/v1/webhooks/").status_code == 200
