#!/usr/bin/env python
"""Storage per move: what the event feed and the outbox keep for each move, against the move
log itself (docs/webhooks-and-events.md, "Storage").

    .venv/bin/python bench/storage.py [--moves 400] [--games 2] [--seed 1]

Plays 4-player classic games of four people (random legal actions, one per request, as
tests.game_fixtures.play_random does) through the services, with one webhook registered by
one of them, then prints the bytes each table keeps per move logged:

- "row bytes": the stored size of the rows (PostgreSQL: `pg_column_size` of each row, its
  header included; SQLite: the length of every column's value);
- on PostgreSQL also "with indexes": `pg_total_relation_size` (table, TOAST and indexes).

The feed's tables are every table of clients.models that holds events (not webhooks or
tokens); the outbox is notifications_outbox (emails and webhook deliveries); the move log is
games_move. Database: a fresh SQLite file unless BENCH_DATABASE_URL is set; the PostgreSQL
database named there is dropped and created afresh (never point it at data you keep).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _configure() -> None:
    workdir = tempfile.mkdtemp(prefix="canasta-bench-storage-")
    os.environ["DATABASE_URL"] = os.environ.get(
        "BENCH_DATABASE_URL", f"sqlite:///{workdir}/storage.sqlite3"
    )
    os.environ.pop("REDIS_URL", None)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="canasta_site.settings",
        DEBUG="0",
        SECRET_KEY="bench-only-" + "x" * 40,
        # Nothing is delivered: rows are written, their tasks would go to a broker.
        CELERY_BROKER_URL="memory://",
        CANASTA_WEBHOOKS_ALLOW_PRIVATE="1",
        LOG_LEVEL="ERROR",
    )


sys.path.insert(0, str(ROOT / "bench"))
from databases import postgres_database_recreate  # noqa: E402

_configure()
if os.environ["DATABASE_URL"].startswith("postgres"):
    postgres_database_recreate(os.environ["DATABASE_URL"])

import django  # noqa: E402

django.setup()

from django.apps import apps  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from clients.services.webhooks import webhook_create  # noqa: E402
from games import engine  # noqa: E402
from games.engine.randomplay import random_action  # noqa: E402
from games.models import Game, GameState, Move  # noqa: E402
from games.services import lobby  # noqa: E402
from games.services.moves import moves_submit  # noqa: E402

# The feed: every clients table that is not a webhook's or a token's.
NOT_FEED = {"clients_webhook", "clients_webhookdelivery", "clients_apitoken"}


def feed_tables() -> list[str]:
    return sorted(
        model._meta.db_table
        for model in apps.get_app_config("clients").get_models()
        if model._meta.db_table not in NOT_FEED
    )


def row_bytes(table: str) -> int:
    """The stored size of a table's rows (see the module's docstring)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM {table} t")
        else:
            columns = [
                c.name for c in connection.introspection.get_table_description(cursor, table)
            ]
            lengths = " + ".join(f"coalesce(length(CAST({c} AS BLOB)), 0)" for c in columns)
            cursor.execute(f"SELECT coalesce(sum({lengths}), 0) FROM {table}")
        return int(cursor.fetchone()[0])


def total_bytes(table: str) -> int | None:
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size(%s)", [table])
        return int(cursor.fetchone()[0])


def _play(players: list[Any], moves: int, rng: random.Random) -> None:
    game = lobby.game_create(
        creator=players[0],
        variant="classic",
        players=4,
        options={"seating": "invitation"},
        invite=[p.username for p in players[1:]],
    )
    for player in players[1:]:
        game = lobby.game_join(game_id=game.pk, user=player)
    by_seat = {s.number: s.user for s in game.seats.select_related("user")}
    for _ in range(moves):
        table = engine.from_json(GameState.objects.get(game=game).table)
        game = moves_submit(
            game_id=game.pk,
            user=by_seat[table.turn],
            actions=[random_action(table, rng)],
            expected_version=game.version,
        )
        if game.status != "active":
            break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=400, help="moves per game at most")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    call_command("migrate", verbosity=0, interactive=False)
    user_model = get_user_model()
    players = [
        user_model.objects.create_user(username=name, email=f"{name}@example.com")
        for name in ("ann", "ben", "cat", "dan")
    ]
    webhook_create(owner=players[0], url="http://127.0.0.1:9/hook")
    rng = random.Random(args.seed)
    for _ in range(args.games):
        _play(players, args.moves, rng)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")

    moves = Move.objects.count()
    groups = {
        "move log (games_move)": ["games_move"],
        "event feed (" + ", ".join(feed_tables()) + ")": feed_tables(),
        "outbox (notifications_outbox)": ["notifications_outbox"],
    }
    print(
        f"database: {connection.vendor}; {Game.objects.count()} games, {moves} moves, "
        "4 people per table, one webhook"
    )
    print()
    print(
        "| what | row bytes per move | with indexes per move | × move log (row bytes) "
        "| × move log (with indexes) |"
    )
    print("| --- | ---: | ---: | ---: | ---: |")
    base = sum(row_bytes(t) for t in ["games_move"]) / moves
    base_total = total_bytes("games_move")
    for label, tables in groups.items():
        rows = sum(row_bytes(t) for t in tables) / moves
        totals = [total_bytes(t) for t in tables]
        if base_total is None or None in totals:
            total = ratio = "n/a"
        else:
            whole = sum(t or 0 for t in totals)
            total, ratio = f"{whole / moves:,.0f}", f"{whole / base_total:.2f}"
        print(f"| {label} | {rows:,.0f} | {total} | {rows / base:.2f} | {ratio} |")


if __name__ == "__main__":
    main()
