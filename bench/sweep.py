#!/usr/bin/env python
"""Deadline sweep benchmark: what one beat sweep costs with 1,000 and with 100,000 games waiting
on a move, a handful of them due (docs/benchmarks.md: ratios against a baseline of the same run).

    .venv/bin/python bench/sweep.py [--sizes 1000 100000] [--samples 200]

The claim queries (games.services.timeouts.due_deadlines and due_reminders) read the indexed
`deadline` and `reminder_at` columns, so their cost should not depend on how many games wait:
the aim is a ratio near 1 between the sizes (an index range scan, not a table scan). The full
sweep (deadlines_sweep: the same claims, then 5 reminders and 5 timeouts applied, autoplay
moves and emails written) is measured too.

Database: a fresh SQLite file unless BENCH_DATABASE_URL is set; the PostgreSQL database named
there is dropped and created afresh, e.g.
BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/canasta_bench (never point it at data
you keep). The waiting games are bare rows (bulk_create: a game, no seats or state: the claim
reads nothing else); the due ones are real 4-player games started through the services.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DUE = 5  # games whose deadline has passed, and as many more whose reminder is due


def _configure() -> None:
    workdir = tempfile.mkdtemp(prefix="canasta-bench-sweep-")
    os.environ["DATABASE_URL"] = os.environ.get(
        "BENCH_DATABASE_URL", f"sqlite:///{workdir}/sweep.sqlite3"
    )
    os.environ.pop("REDIS_URL", None)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="canasta_site.settings",
        DEBUG="0",  # DEBUG keeps every query in memory: not what production runs
        SECRET_KEY="bench-only-" + "x" * 40,
        # Nothing is delivered: the outbox rows are written, their tasks would go to a broker.
        CELERY_BROKER_URL="memory://",
        # Every sweep applies the same kind of timeout: no bot takes a seat over.
        CANASTA_TIMEOUTS_BEFORE_BOT="1000000",
        LOG_LEVEL="ERROR",
    )


sys.path.insert(0, str(ROOT / "bench"))
from databases import postgres_database_recreate  # noqa: E402

_configure()
if os.environ["DATABASE_URL"].startswith("postgres"):
    postgres_database_recreate(os.environ["DATABASE_URL"])

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from games.models import Game, GameStatus  # noqa: E402
from games.services import lobby  # noqa: E402
from games.services.timeouts import (  # noqa: E402
    SWEEP_BATCH,
    deadlines_sweep,
    due_deadlines,
    due_reminders,
)
from notifications.models import Outbox  # noqa: E402

BATCH = 5000


def _create_tables() -> None:
    call_command("migrate", verbosity=0, interactive=False)


def _waiting_games(creator: Any, count: int, start: int) -> None:
    """``count`` bare active games whose turn clock still runs (deadlines 1 h to 14 days on)."""
    now = timezone.now()
    made = 0
    while made < count:
        size = min(BATCH, count - made)
        rows = []
        for i in range(start + made, start + made + size):
            deadline = now + timedelta(hours=1, seconds=(i * 7919) % (14 * 86400))
            rows.append(
                Game(
                    variant="classic",
                    players=4,
                    status=GameStatus.ACTIVE,
                    turn_seat=i % 4,
                    turn_seconds=86400,
                    turn_started_at=now,
                    deadline=deadline,
                    reminder_at=deadline - timedelta(minutes=30),
                    created_by=creator,
                )
            )
        with transaction.atomic():
            Game.objects.bulk_create(rows, batch_size=BATCH)
        made += size


def _due_games(players: list[Any]) -> tuple[list[Any], list[Any]]:
    """Real games (seats, hands, state): DUE with a deadline to apply, DUE with a reminder."""
    timed_out, reminded = [], []
    for i in range(2 * DUE):
        game = lobby.game_create(
            creator=players[0],
            variant="classic",
            players=4,
            options={"seating": "invitation"},
            turn_seconds=86400,
            invite=[p.username for p in players[1:]],
        )
        for player in players[1:]:
            game = lobby.game_join(game_id=game.pk, user=player)
        (timed_out if i < DUE else reminded).append(game.pk)
    return timed_out, reminded


def _make_due(timed_out: list[Any], reminded: list[Any]) -> None:
    """Put the clocks of the due games back in the past (outside the timed part)."""
    past = timezone.now() - timedelta(minutes=1)
    # Their reminder went out earlier in the turn, as it does.
    Game.objects.filter(pk__in=timed_out).update(deadline=past, reminder_at=None)
    Game.objects.filter(pk__in=reminded).update(deadline=past + timedelta(days=1), reminder_at=past)


def _bare_games_delete() -> None:
    """Remove the bare waiting games (no state: never started through the services)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM games_game WHERE id NOT IN (SELECT game_id FROM games_gamestate)"
        )
        # Dead rows and index entries go too, as autovacuum would do them in production.
        cursor.execute("VACUUM")


def _analyze() -> None:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _times(
    call: Callable[[], Any], samples: int, before: Callable[[], Any] | None = None
) -> list[float]:
    out = []
    for _ in range(samples):
        if before is not None:
            before()
        started = time.perf_counter()
        call()
        out.append((time.perf_counter() - started) * 1000)
    return out


def _claim() -> tuple[int, int]:
    now = timezone.now()
    return len(due_deadlines(now=now)), len(due_reminders(now=now))


def _plan() -> str:
    now = timezone.now()
    query = (
        Game.objects.filter(deadline__lte=now, status="active")
        .order_by("deadline")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    return query.explain()


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--samples", type=int, default=200, help="claim samples per size")
    parser.add_argument("--sweeps", type=int, default=20, help="full sweeps per size")
    args = parser.parse_args()
    sizes = sorted(args.sizes)

    _create_tables()
    user_model = get_user_model()
    players = [
        user_model.objects.create_user(username=name, email=f"{name}@example.com")
        for name in ("ann", "ben", "cat", "dan")
    ]
    timed_out, reminded = _due_games(players)
    print(f"database: {connection.vendor}; {DUE} timeouts and {DUE} reminders due per sweep")

    def measure(label: str) -> None:
        _make_due(timed_out, reminded)
        _analyze()
        assert _claim() == (DUE, DUE), _claim()
        _times(_claim, 20)  # warm-up: caches, the planner's statistics, the connection
        claim = _times(_claim, args.samples)
        before_rows = Outbox.objects.count()
        sweep = _times(deadlines_sweep, args.sweeps, before=lambda: _make_due(timed_out, reminded))
        assert Outbox.objects.count() > before_rows
        results.append((label, claim, sweep))
        print(f"\nEXPLAIN of the deadline claim with {label} waiting games:\n{_plan()}")

    results: list[tuple[str, list[float], list[float]]] = []
    waiting = 0
    for size in sizes:
        _waiting_games(players[0], size - waiting, waiting)
        waiting = size
        measure(f"{size:,}")
    # The smallest size once more, after the others: the machine's load drifts over minutes,
    # so the baseline is taken before and after the large measurement.
    _bare_games_delete()
    _waiting_games(players[0], sizes[0], 0)
    measure(f"{sizes[0]:,} (again)")

    print()
    print("| waiting games | claim median ms | claim p95 ms | full sweep median ms |")
    print("| --- | ---: | ---: | ---: |")
    for label, claim, sweep in results:
        print(
            f"| {label} | {statistics.median(claim):.3f} | {_p95(claim):.3f} | "
            f"{statistics.median(sweep):.1f} |"
        )
    baseline = [results[0], results[-1]]
    largest = results[-2]
    claim_base = statistics.mean(statistics.median(r[1]) for r in baseline)
    sweep_base = statistics.mean(statistics.median(r[2]) for r in baseline)
    print(
        f"\nratio {largest[0]} / {sizes[0]:,} (mean of both runs): claim "
        f"{statistics.median(largest[1]) / claim_base:.2f}, full sweep "
        f"{statistics.median(largest[2]) / sweep_base:.2f} (aim: near 1)"
    )


if __name__ == "__main__":
    main()
