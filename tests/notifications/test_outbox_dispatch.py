"""Dispatch of the due outbox without a cap per sweep: batches claimed at a time, drained
until nothing is due, fanned out to as many tasks as there are worker processes
(docs/background-work.md, "Dispatch of what is due"). The race of two workers on PostgreSQL
is tests/integration/test_outbox_dispatch.py."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.core.cache import cache

from notifications import tasks
from notifications.models import Outbox, OutboxKind, OutboxStatus
from notifications.services import workers
from notifications.services.outbox import (
    outbox_claim,
    outbox_claim_batch,
    outbox_due_batches,
    outbox_sweep,
)
from tests.notifications.helpers import enqueue, payload

NOON = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


def due_rows(recipients: list[Any], count: int, *, at: datetime = NOON) -> list[Outbox]:
    """`count` pending match-over emails due at `at`, written in one INSERT (as if their
    delivery tasks were lost), spread over the recipients."""
    return Outbox.objects.bulk_create(
        Outbox(
            key=f"due:{n}",
            recipient=recipients[n % len(recipients)],
            kind=OutboxKind.MATCH_OVER,
            payload=payload(totals=[120, 80], winner_side=0, reason="match_over"),
            created_at=at,
            next_attempt_at=at + timedelta(microseconds=n),
        )
        for n in range(count)
    )


def test_one_sweep_sends_a_thousand_due_emails(people, settings):
    settings.CANASTA_OUTBOX_SWEEP_BATCH = 100
    rows = due_rows(list(people.values()), 1000)

    with time_machine.travel(NOON + timedelta(minutes=1), tick=False):
        assert outbox_sweep() == 1000

    assert len(mail.outbox) == 1000
    assert Outbox.objects.filter(status=OutboxStatus.SENT).count() == 1000
    assert set(Outbox.objects.values_list("attempts", flat=True)) == {1}
    assert len({m.extra_headers["Message-ID"] for m in mail.outbox}) == len(rows)


def test_a_batch_claim_takes_due_rows_oldest_first_and_leaves_a_claimed_one(people):
    rows = due_rows(list(people.values()), 5)
    later = NOON + timedelta(minutes=1)
    with time_machine.travel(later, tick=False):
        assert outbox_claim(rows[0].pk) is not None  # a delivery task holds this one

        batch = outbox_claim_batch(limit=3)
        rest = outbox_claim_batch(limit=3)

    assert [row.pk for row in batch] == [row.pk for row in rows[1:4]]
    assert [row.pk for row in rest] == [rows[4].pk]
    assert {row.status for row in batch + rest} == {OutboxStatus.SENDING}
    assert {row.attempts for row in batch + rest} == {1}
    assert outbox_claim(rows[1].pk, now=later) is None


def test_rows_not_yet_due_are_neither_claimed_nor_counted(people, settings):
    settings.CANASTA_OUTBOX_SWEEP_BATCH = 10
    due_rows(list(people.values()), 25, at=NOON)
    with time_machine.travel(NOON - timedelta(seconds=1), tick=False):
        assert outbox_claim_batch(limit=10) == []
        assert outbox_due_batches(most=8) == 0
    with time_machine.travel(NOON + timedelta(seconds=1), tick=False):
        assert outbox_due_batches(most=8) == 3
        assert outbox_due_batches(most=2) == 2


def test_a_drain_out_of_time_gives_back_the_rows_it_did_not_start(people, monkeypatch):
    from notifications.services import outbox

    rows = [enqueue(people["alice"], key=f"budget-{n}") for n in range(4)]
    clock = iter(range(1000))
    monkeypatch.setattr(outbox.time, "monotonic", lambda: float(next(clock)))

    assert outbox.outbox_sweep(seconds=2.5) == 2

    released = Outbox.objects.filter(pk__in=[row.pk for row in rows[2:]])
    assert {(row.status, row.attempts) for row in released} == {(OutboxStatus.PENDING, 0)}
    assert outbox.outbox_sweep() == 2


@pytest.fixture
def helpers(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    queued: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.drain_outbox, "apply_async", lambda **kw: queued.append(kw))
    return queued


@pytest.mark.parametrize(
    ("due", "processes", "queued"), [(0, 4, 0), (5, 4, 0), (25, 4, 2), (25, 2, 1), (90, 4, 3)]
)
def test_the_sweep_task_queues_a_helper_per_worker_process_the_backlog_can_use(
    people, settings, helpers, monkeypatch, due, processes, queued
):
    settings.CANASTA_OUTBOX_SWEEP_BATCH = 10
    monkeypatch.setattr(tasks, "worker_processes", lambda: processes)
    due_rows(list(people.values()), due)

    with time_machine.travel(NOON + timedelta(minutes=1), tick=False):
        assert tasks.sweep_outbox() == due

    assert len(helpers) == queued
    assert all(kw["expires"] == settings.CANASTA_SWEEP_SECONDS for kw in helpers)


def test_a_sweep_that_cannot_queue_helpers_drains_alone(people, settings, monkeypatch, caplog):
    settings.CANASTA_OUTBOX_SWEEP_BATCH = 10
    monkeypatch.setattr(tasks, "worker_processes", lambda: 3)

    def broker_down(**kw: Any) -> None:
        raise OSError("connection refused")

    monkeypatch.setattr(tasks.drain_outbox, "apply_async", broker_down)
    due_rows(list(people.values()), 30)

    with time_machine.travel(NOON + timedelta(minutes=1), tick=False):
        assert tasks.sweep_outbox() == 30
    assert "drains alone" in caplog.text


def test_a_helper_drains_what_is_due(people):
    due_rows(list(people.values()), 7)
    with time_machine.travel(NOON + timedelta(minutes=1), tick=False):
        assert tasks.drain_outbox() == 7
        assert tasks.drain_outbox() == 0


class FakeInspect:
    def __init__(self, answer: dict[str, Any] | None) -> None:
        self.answer = answer
        self.asked = 0

    def stats(self) -> dict[str, Any] | None:
        self.asked += 1
        return self.answer


@pytest.fixture
def inspect(monkeypatch: pytest.MonkeyPatch) -> FakeInspect:
    fake = FakeInspect(
        {
            "celery@web1": {"pool": {"max-concurrency": 2}},
            "celery@worker2": {"pool": {"max-concurrency": 4}},
        }
    )
    monkeypatch.setattr(workers.current_app.control, "inspect", lambda timeout: fake)
    monkeypatch.setitem(workers.current_app.conf, "worker_enable_remote_control", True)
    cache.delete(workers.CACHE_KEY)
    yield fake
    cache.delete(workers.CACHE_KEY)


def test_the_workers_are_asked_how_many_processes_they_run_and_the_answer_is_kept(inspect):
    assert workers.worker_processes() == 6
    assert workers.worker_processes() == 6
    assert inspect.asked == 1


def test_without_an_answer_the_configured_count_is_used(inspect, settings):
    settings.CANASTA_WORKER_PROCESSES = 3
    inspect.answer = None
    assert workers.worker_processes() == 3


def test_the_embedded_broker_uses_the_configured_count(settings, monkeypatch):
    monkeypatch.setitem(workers.current_app.conf, "worker_enable_remote_control", False)
    settings.CANASTA_WORKER_PROCESSES = 5
    assert workers.worker_processes() == 5
