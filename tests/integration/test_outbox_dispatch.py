"""Dispatch of a backlog on PostgreSQL: workers racing for due outbox rows with
SELECT ... FOR UPDATE SKIP LOCKED take disjoint batches, so each row is mailed exactly once
however many drain at a time; first two threads (one connection each), then two real
`celery worker` processes that the beat sweep sets on the backlog together."""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import connection

from notifications.models import Outbox, OutboxKind, OutboxStatus
from notifications.services.outbox import outbox_drain
from tests.integration.processes import (
    Mailbox,
    Processes,
    process_env,
    running,
    wait_until,
    with_redis_broker,
)

pytestmark = pytest.mark.integration


def backlog(count: int) -> list[Outbox]:
    """`count` due match-over emails whose delivery tasks were lost (one INSERT)."""
    users = [
        get_user_model().objects.create_user(username=f"p{n}", email=f"p{n}@example.com")
        for n in range(4)
    ]
    return Outbox.objects.bulk_create(
        Outbox(
            key=f"backlog:{n}",
            recipient=users[n % len(users)],
            kind=OutboxKind.MATCH_OVER,
            payload={
                "game": {"id": "0123abcd", "url": "http://x/", "variant": "classic", "players": 4},
                "seat": 0,
                "names": ["p0", "p1", "p2", "p3"],
                "totals": [120, 80],
                "winner_side": 0,
            },
        )
        for n in range(count)
    )


def _race(functions: list[Callable[[], Any]]) -> list[Any]:
    barrier = threading.Barrier(len(functions))
    results: list[Any] = [None] * len(functions)

    def run(index: int, function: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = function()
        except BaseException as error:
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, f)) for i, f in enumerate(functions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
        assert not thread.is_alive()
    return results


def row_ids(messages: list[Any]) -> Counter[int]:
    """The outbox row of each message, from its Message-ID (<canasta.<row>.<digest>@...>)."""
    found: Counter[int] = Counter()
    for message_id in messages:
        match = re.match(r"<canasta\.(\d+)\.", str(message_id))
        assert match, message_id
        found[int(match.group(1))] += 1
    return found


def test_two_workers_draining_one_backlog_send_every_row_exactly_once(transactional_db, settings):
    settings.CANASTA_OUTBOX_SWEEP_BATCH = 25
    rows = backlog(600)

    results = _race([lambda: outbox_drain(seconds=90), lambda: outbox_drain(seconds=90)])

    assert not any(isinstance(r, BaseException) for r in results), results
    assert sum(results) == 600
    assert all(r > 0 for r in results), results  # both took their share
    assert row_ids(m.extra_headers["Message-ID"] for m in mail.outbox) == Counter(
        {row.pk: 1 for row in rows}
    )
    assert set(Outbox.objects.values_list("status", "attempts")) == {(OutboxStatus.SENT, 1)}


@pytest.fixture
def processes(transactional_db: None, tmp_path: Path, redis_cache: Any) -> Iterator[Processes]:
    env = process_env(tmp_path / "var", tmp_path / "mail", CANASTA_OUTBOX_SWEEP_BATCH="20")
    with running(with_redis_broker(env, settings.REDIS_URL), tmp_path) as started:
        yield started


def _drained(worker: Any) -> int:
    """Rows a worker sent in its sweeps and helper drains, from its log's task results."""
    log = worker.log.read_text(errors="replace")
    return sum(
        int(n)
        for n in re.findall(
            r"notifications\.tasks\.(?:sweep|drain)_outbox\[[^]]+\] succeeded in [^:]+: (\d+)", log
        )
    )


def test_the_sweep_sets_every_worker_process_on_a_backlog_and_none_sends_a_row_twice(
    processes, tmp_path
):
    rows = backlog(600)
    mailbox = Mailbox(tmp_path / "mail")
    # Prefork, as in production: a worker's main process answers the sweep's question about
    # the pool sizes while its children run tasks.
    workers = [processes.worker("--pool", "prefork", "--concurrency", "2") for _ in range(2)]
    processes.beat()
    processes.ready()

    wait_until(
        lambda: Outbox.objects.filter(status=OutboxStatus.SENT).count() == 600,
        timeout=120,
        what="the backlog to drain",
    )

    assert row_ids(m["Message-ID"] for m in mailbox.messages()) == Counter(
        {row.pk: 1 for row in rows}
    )
    # Each task logs its result just after its last row is recorded.
    wait_until(
        lambda: sum(_drained(worker) for worker in workers) == 600,
        timeout=10,
        what="the tasks' results",
    )
    assert all(_drained(worker) for worker in workers)
    logs = "".join(worker.log.read_text(errors="replace") for worker in workers)
    assert "notifications.tasks.drain_outbox" in logs  # the sweep fanned the backlog out
