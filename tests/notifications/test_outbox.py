from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail
from django.db import transaction
from kombu.exceptions import OperationalError

from notifications import tasks
from notifications.models import Outbox, OutboxStatus
from notifications.services.outbox import (
    backoff_seconds,
    outbox_claim,
    outbox_deliver,
    outbox_enqueue,
    outbox_key,
    outbox_mark_sent,
    outbox_sweep,
)
from tests.notifications.backends import FailingBackend
from tests.notifications.helpers import enqueue, payload

NOON = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


def test_the_default_key_names_the_game_the_move_the_recipient_and_the_kind(people, table_game):
    alice = people["alice"]
    key = outbox_key(recipient=alice, kind="your_turn", game=table_game, move_seq=7)
    assert key == f"{table_game.pk}:7:{alice.pk}:your_turn"
    assert outbox_key(recipient=alice, kind="digest") == f"-:-:{alice.pk}:digest"


def test_it_writes_one_row_per_key_however_often_the_event_is_enqueued(people, table_game):
    alice = people["alice"]
    with transaction.atomic():
        first = outbox_enqueue(
            recipient=alice, kind="your_turn", game=table_game, move_seq=3, payload=payload()
        )
        again = outbox_enqueue(
            recipient=alice, kind="your_turn", game=table_game, move_seq=3, payload=payload()
        )
    assert first is not None
    assert again is None
    assert first.key == f"{table_game.pk}:3:{alice.pk}:your_turn"
    assert Outbox.objects.filter(key=first.key).count() == 1
    assert first.status == OutboxStatus.PENDING


def test_a_duplicate_key_leaves_the_callers_transaction_usable(people):
    alice = people["alice"]
    with transaction.atomic():
        enqueue(alice, key="same")
        assert outbox_enqueue(recipient=alice, kind="timeout", payload={}, key="same") is None
        enqueue(alice, key="other")  # the transaction still works
    assert Outbox.objects.count() == 2


def test_delivery_is_queued_only_after_the_transaction_commits(
    people, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        row = enqueue(people["alice"])
        assert queued == []
    assert len(callbacks) == 1
    assert queued == [row.pk]


def test_a_rolled_back_transaction_leaves_no_row_and_queues_nothing(
    people, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        try:
            with transaction.atomic():
                enqueue(people["alice"])
                raise RuntimeError("the move failed")
        except RuntimeError:
            pass
    assert Outbox.objects.count() == 0
    assert queued == []


def test_a_broker_that_is_down_does_not_fail_the_commit(
    people, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    def broker_down(outbox_id):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.deliver_outbox, "delay", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        row = enqueue(people["alice"])

    assert Outbox.objects.get(pk=row.pk).status == OutboxStatus.PENDING
    assert "the sweep will send it" in caplog.text


def test_of_two_claims_on_one_row_only_the_first_wins(people):
    row = enqueue(people["alice"])

    first = outbox_claim(row.pk)
    second = outbox_claim(row.pk)

    assert first is not None
    assert first.status == OutboxStatus.SENDING
    assert first.attempts == 1
    assert second is None


def test_a_claimed_row_is_claimable_again_only_after_the_visibility_timeout(people, settings):
    settings.CANASTA_OUTBOX_VISIBILITY_SECONDS = 300
    with time_machine.travel(NOON, tick=False) as clock:
        row = enqueue(people["alice"])
        assert outbox_claim(row.pk) is not None
        clock.shift(timedelta(seconds=299))
        assert outbox_claim(row.pk) is None
        clock.shift(timedelta(seconds=2))
        again = outbox_claim(row.pk)
    assert again is not None
    assert again.attempts == 2


def test_a_worker_whose_claim_was_taken_over_cannot_finish_the_row(people, settings):
    settings.CANASTA_OUTBOX_VISIBILITY_SECONDS = 60
    with time_machine.travel(NOON, tick=False) as clock:
        row = enqueue(people["alice"])
        stale = outbox_claim(row.pk)
        clock.shift(timedelta(seconds=61))
        current = outbox_claim(row.pk)

        assert outbox_mark_sent(stale) is False
        assert Outbox.objects.get(pk=row.pk).status == OutboxStatus.SENDING
        assert outbox_mark_sent(current) is True
    assert Outbox.objects.get(pk=row.pk).status == OutboxStatus.SENT


def test_delivery_sends_exactly_one_email_and_marks_the_row_sent(people):
    row = enqueue(people["alice"], kind="match_over")

    assert outbox_deliver(row.pk) == OutboxStatus.SENT
    assert outbox_deliver(row.pk) is None  # a second message for the same row: nothing

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["alice@example.com"]
    assert message.subject == "Canasta: alice, carol, bob, dave (game 01234567)"
    assert message.body.startswith("The match classic game 01234567 is over")
    assert "http://127.0.0.1:8000/games/0123456789abcdef/" in message.body
    assert message.alternatives[0].mimetype == "text/html"
    row.refresh_from_db()
    assert row.status == OutboxStatus.SENT
    assert row.sent_at is not None
    assert row.claimed_at is None


def test_the_deliver_task_calls_the_service(people):
    row = enqueue(people["bob"])
    assert tasks.deliver_outbox.run(row.pk) == OutboxStatus.SENT
    assert len(mail.outbox) == 1


def test_a_failing_send_is_retried_after_a_growing_backoff_then_marked_failed(people, settings):
    settings.EMAIL_BACKEND = "tests.notifications.backends.FailingBackend"
    settings.CANASTA_OUTBOX_MAX_ATTEMPTS = 3
    settings.CANASTA_OUTBOX_BACKOFF_SECONDS = 10
    FailingBackend.calls = 0
    with time_machine.travel(NOON, tick=False) as clock:
        row = enqueue(people["alice"])

        assert outbox_deliver(row.pk) == OutboxStatus.PENDING
        row.refresh_from_db()
        assert row.attempts == 1
        assert row.next_attempt_at == NOON + timedelta(seconds=10)
        assert "SMTPServerDisconnected: 421" in row.last_error

        clock.shift(timedelta(seconds=9))
        assert outbox_sweep() == 0  # not due yet
        assert FailingBackend.calls == 1

        clock.shift(timedelta(seconds=1))
        assert outbox_sweep() == 0
        row.refresh_from_db()
        assert (row.status, row.attempts) == (OutboxStatus.PENDING, 2)
        assert row.next_attempt_at == NOON + timedelta(seconds=10 + 20)

        clock.shift(timedelta(seconds=20))
        outbox_sweep()
        row.refresh_from_db()
        assert (row.status, row.attempts) == (OutboxStatus.FAILED, 3)

        clock.shift(timedelta(days=1))
        outbox_sweep()
    assert FailingBackend.calls == 3
    assert len(mail.outbox) == 0


def test_backoff_doubles_from_the_base(settings):
    settings.CANASTA_OUTBOX_BACKOFF_SECONDS = 60
    assert [backoff_seconds(n) for n in (1, 2, 3, 4)] == [60, 120, 240, 480]


def test_the_sweep_sends_rows_whose_task_message_was_lost(people):
    rows = [enqueue(people[name]) for name in ("alice", "bob", "carol")]

    assert outbox_sweep() == 3
    assert outbox_sweep() == 0

    assert sorted(m.to[0] for m in mail.outbox) == [
        "alice@example.com",
        "bob@example.com",
        "carol@example.com",
    ]
    assert {r.status for r in Outbox.objects.filter(pk__in=[r.pk for r in rows])} == {"sent"}


def test_the_sweep_resends_the_rows_of_a_worker_that_died_while_sending(people, settings):
    settings.CANASTA_OUTBOX_VISIBILITY_SECONDS = 120
    with time_machine.travel(NOON, tick=False) as clock:
        row = enqueue(people["alice"])
        assert outbox_claim(row.pk) is not None  # ... and the worker is killed here
        assert outbox_sweep() == 0
        clock.shift(timedelta(seconds=121))
        assert outbox_sweep() == 1
    assert len(mail.outbox) == 1
    row.refresh_from_db()
    assert (row.status, row.attempts) == (OutboxStatus.SENT, 2)


def test_a_row_whose_worker_died_on_the_last_attempt_is_marked_failed(people, settings):
    settings.CANASTA_OUTBOX_VISIBILITY_SECONDS = 60
    settings.CANASTA_OUTBOX_MAX_ATTEMPTS = 1
    with time_machine.travel(NOON, tick=False) as clock:
        row = enqueue(people["alice"])
        assert outbox_claim(row.pk) is not None
        clock.shift(timedelta(seconds=61))
        assert outbox_sweep() == 0
    row.refresh_from_db()
    assert row.status == OutboxStatus.FAILED
    assert "last attempt" in row.last_error
    assert len(mail.outbox) == 0


def test_the_sweep_sends_every_due_row_a_batch_at_a_time_oldest_first(people, settings):
    settings.CANASTA_OUTBOX_SWEEP_BATCH = 2
    with time_machine.travel(NOON, tick=True):
        rows = [enqueue(people[name], key=f"batch-{name}") for name in ("alice", "bob", "carol")]

    assert outbox_sweep() == 3
    assert [m.to[0] for m in mail.outbox] == [row.recipient.email for row in rows]
    assert outbox_sweep() == 0


@pytest.mark.parametrize("channel", ["webhook"])
def test_a_channel_without_delivery_yet_is_skipped(people, channel):
    row = enqueue(people["alice"], channel=channel)
    assert outbox_deliver(row.pk) == OutboxStatus.SKIPPED
    assert len(mail.outbox) == 0
