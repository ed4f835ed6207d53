"""Outbox rows that are done are deleted after CANASTA_OUTBOX_RETENTION_DAYS (beat, daily);
open rows never are. Before, every row was kept forever (0.8 KB a move)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from canasta_site.celery import app, beat_schedule
from games.services.retention import Pruned
from notifications.models import Outbox, OutboxStatus
from notifications.services.retention import outbox_prune
from notifications.tasks import prune_outbox
from tests.notifications.helpers import enqueue


def _rows(people, age_days: float, statuses) -> list[int]:
    ids = []
    for status in statuses:
        row = enqueue(people["alice"])
        Outbox.objects.filter(pk=row.pk).update(
            status=status, created_at=timezone.now() - timedelta(days=age_days)
        )
        ids.append(row.pk)
    return ids


def test_done_rows_older_than_the_retention_are_deleted_and_open_ones_kept(people):
    done = [OutboxStatus.SENT, OutboxStatus.SKIPPED, OutboxStatus.FAILED]
    old_done = _rows(people, 31, done)
    old_open = _rows(people, 31, [OutboxStatus.PENDING, OutboxStatus.SENDING])
    recent = _rows(people, 29, done)

    assert outbox_prune(days=30).deleted == 3

    left = set(Outbox.objects.values_list("pk", flat=True))
    assert left == set(old_open + recent) and not left & set(old_done)


def test_beat_prunes_the_outbox_daily_with_the_retention_setting(people, settings):
    settings.CANASTA_OUTBOX_RETENTION_DAYS = 7
    settings.CANASTA_EVENTS_PRUNE_SECONDS = 86400
    entry = beat_schedule()["prune-outbox"]
    assert entry["task"] == "notifications.tasks.prune_outbox" and entry["schedule"] == 86400
    assert "notifications.tasks.prune_outbox" in app.tasks
    _rows(people, 8, [OutboxStatus.SENT])
    kept = _rows(people, 6, [OutboxStatus.SENT])

    assert prune_outbox() == 1
    assert list(Outbox.objects.values_list("pk", flat=True)) == kept


def test_a_large_backlog_is_deleted_in_chunks(people, settings):
    settings.CANASTA_PRUNE_CHUNK = 2
    _rows(people, 40, [OutboxStatus.SENT] * 5)
    assert outbox_prune(days=30) == Pruned(5, done=True) and not Outbox.objects.exists()


def test_old_open_rows_before_the_done_ones_are_walked_over_in_every_run(people, settings):
    """The prune walks the primary key: a chunk of open rows it keeps does not stop it."""
    settings.CANASTA_PRUNE_CHUNK = 2
    kept = _rows(people, 40, [OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.PENDING])
    _rows(people, 35, [OutboxStatus.SENT, OutboxStatus.FAILED, OutboxStatus.SKIPPED])
    recent = _rows(people, 1, [OutboxStatus.SENT])

    assert outbox_prune(days=30) == Pruned(3, done=True)
    assert outbox_prune(days=30) == Pruned(0, done=True)
    assert list(Outbox.objects.order_by("pk").values_list("pk", flat=True)) == kept + recent
