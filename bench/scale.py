#!/usr/bin/env python
"""Scale benchmark: every beat task, a move and the lobby with N active games in PostgreSQL,
storage per move and the capacity estimate of docs/capacity.md.

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/canasta_scale \\
        .venv/bin/python bench/scale.py [--sizes 1000 10000] [--templates 4] [--moves 60]

1. Template games are played through the service's own API (random legal actions, one per
   request, each with an Idempotency-Key, as bench/load.py plays them), four people a table,
   one of them with a webhook and one reading a daily digest; every email is delivered after
   each move (the locmem backend), so the outbox rows, feed events, reply tokens (one per
   turn email: every seat is an email seat as far as its mail goes) and idempotency records
   are the service's own. The moves themselves all go through the API: no reply is played
   by email and no move through the web form, so the inbound mail table stays empty.
2. They are cloned by SQL to N active games, four new users per clone (every row of every
   table that belongs to a game or to its players, unique keys suffixed, deadlines spread
   over 14 days). One clone in 30 is dated 31 days back: the rows a daily prune finds due.
3. At each size (smallest first: the baseline, taken in the same run; the largest twice, to
   show how far the machine's load moved the figures meanwhile), every beat task's service
   runs once (what is due) and then three times more (warm, nothing due); a move and the
   lobby are timed through the API; each with its statement count. Ratios are the largest
   size's against the baseline; `load` is the 1-minute load average when measured.

CPU is this process's (time.process_time: the request's Python, the ORM); PostgreSQL's own
work on the same machine is in the wall time. The database named in BENCH_DATABASE_URL is
dropped and created afresh (never point it at data you keep).
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import secrets
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _configure() -> None:
    url = os.environ.get("BENCH_DATABASE_URL", "")
    if not url.startswith("postgres"):
        raise SystemExit(
            "bench/scale.py needs BENCH_DATABASE_URL=postgres://... (a database of its own)"
        )
    os.environ["DATABASE_URL"] = url
    os.environ.pop("REDIS_URL", None)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="canasta_site.settings",
        DEBUG="0",
        SECRET_KEY="bench-only-" + "x" * 40,
        CELERY_BROKER_URL="memory://",
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        CANASTA_TURN_EMAIL_DELAY_MINUTES="0",
        CANASTA_WEBHOOKS_ALLOW_PRIVATE="1",
        LOG_LEVEL="ERROR",
        # The API is called in this process (Django's test client), over plain HTTP.
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",
        # Template games are played as fast as this machine answers: a quiet machine went past
        # the players' own request limits (a 429 in the middle of a game).
        THROTTLE_READ_RATE="100000000/min",
        THROTTLE_PLAY_RATE="100000000/min",
    )


_configure()
sys.path.insert(0, str(ROOT / "bench"))
from databases import postgres_database_recreate  # noqa: E402

postgres_database_recreate(os.environ["DATABASE_URL"])

import django  # noqa: E402

django.setup()

from django.apps import apps  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, models  # noqa: E402
from django.db.models import F  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from accounts.services.deletion import account_delete  # noqa: E402
from accounts.services.retention import sessions_prune  # noqa: E402
from clients.services.retention import feed_prune, tokens_prune  # noqa: E402
from clients.services.tokens import account_token_create  # noqa: E402
from clients.services.webhooks import webhook_create, webhooks_sweep  # noqa: E402
from games.fields import DigestField  # noqa: E402
from games.models import Game, Move, Seat  # noqa: E402
from games.services import lobby  # noqa: E402
from games.services.archive import moves_archive  # noqa: E402
from games.services.bots import stale_bot_games  # noqa: E402
from games.services.coldmoves import moves_pack_cold  # noqa: E402
from games.services.retention import Budget, games_retire, idempotency_prune  # noqa: E402
from games.services.timeouts import deadlines_sweep  # noqa: E402
from mailplay.services.retention import inbound_prune  # noqa: E402
from notifications.models import NotificationPreference, Outbox  # noqa: E402
from notifications.services.digests import digest_send_due  # noqa: E402
from notifications.services.outbox import outbox_deliver, outbox_drain, outbox_sweep  # noqa: E402
from notifications.services.retention import outbox_prune  # noqa: E402

User = get_user_model()
# Set on the cloned player whose deletion is timed (a throwaway database), drawn each run.
DELETION_PASSWORD = secrets.token_urlsafe(16)
NAMES = ("ann", "ben", "cat", "dan")
# Tables a game's clone copies, parents first (each row refers only to rows copied before).
CLONED = [
    "games.Game",
    "games.Seat",
    "games.GameState",
    "games.Hand",
    "games.Move",
    "clients.Event",
    "notifications.Outbox",
    "notifications.GamePresence",
    "mailplay.ReplyToken",
    "mailplay.InboundMessage",
]
# Tables of a player, copied for each clone's users.
CLONED_PER_USER = [
    "notifications.NotificationPreference",
    "games.IdempotencyRecord",
    "clients.Webhook",
    "clients.ApiToken",
]
# Dated 31 days back in one clone in 30: what the daily prunes find due.
AGED = {"created_at", "received_at"}
SPREAD = {"deadline", "reminder_at", "turn_started_at"}


# --- templates: games played through the API ------------------------------------------------


def _players() -> tuple[list[Any], dict[int, str]]:
    players = [User.objects.create_user(username=n, email=f"{n}@example.com") for n in NAMES]
    keys = {p.pk: account_token_create(owner=p)[1] for p in players}
    webhook_create(owner=players[0], url="http://127.0.0.1:9/hook")
    NotificationPreference.objects.update_or_create(
        user=players[1], defaults={"email_mode": "digest"}
    )
    return players, keys


def _deliver_pending(after: int = 0) -> None:
    """Send the pending rows written after row `after` (a move's own mail)."""
    for pk in Outbox.objects.filter(status="pending", pk__gt=after).values_list("pk", flat=True):
        outbox_deliver(pk)


def _api_move(client: APIClient, game_id: Any, rng: random.Random) -> tuple[float, float, int, Any]:
    """One random legal action through the API: wall ms, CPU ms and statements of the POST."""
    legal = client.get(f"/api/v1/games/{game_id}/legal/").json()
    measured = _measure(
        lambda: client.post(
            f"/api/v1/games/{game_id}/actions/",
            {"actions": [rng.choice(legal["actions"])], "expected_version": legal["version"]},
            format="json",
            HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
        )
    )
    assert measured[3].status_code == 200, measured[3].content[:300]
    return measured


def _client_to_move(game_id: Any, keys: dict[int, str]) -> APIClient:
    game = Game.objects.get(pk=game_id)
    seat = game.seats.get(number=game.turn_seat)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {keys[seat.user_id]}")
    return client


def _templates(players: list[Any], keys: dict[int, str], count: int, moves: int) -> list[Any]:
    rng = random.Random(1)
    ids = []
    for _ in range(count):
        game = lobby.game_create(
            creator=players[0],
            variant="classic",
            players=4,
            options={"seating": "invitation"},
            turn_seconds=3 * 86400,
            invite=[p.username for p in players[1:]],
        )
        for player in players[1:]:
            game = lobby.game_join(game_id=game.pk, user=player)
        for _ in range(moves):
            if Game.objects.get(pk=game.pk).status != "active":
                break
            _api_move(_client_to_move(game.pk, keys), game.pk, rng)
            _deliver_pending()
        ids.append(game.pk)
    return ids


# --- cloning --------------------------------------------------------------------------------


def _sql(statement: str, params: list[Any] | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])


def _column(field: models.Field, k: str, game_join: bool) -> str:
    """The SELECT expression that copies `field` of row `t` into clone `k`."""
    column = f't."{field.column}"'
    if field.primary_key and isinstance(field, models.UUIDField):
        return "g.new"
    if field.is_relation and field.related_model is Game:
        # The game a row belongs to; a game's own reference to another (rematch_of): none.
        return "g.new" if game_join and field.model is not Game else "NULL"
    if field.is_relation and field.related_model is User:
        return f'(SELECT new FROM clone_user cu WHERE cu.old = t."{field.column}" AND cu.k = {k})'
    if field.is_relation:
        return "NULL"  # a reference inside the copied rows (a token, an event): left out
    if field.unique and isinstance(field, DigestField):
        return f"substring(sha256({column} || convert_to('-' || {k}, 'UTF8')) FROM 1 FOR 16)"
    if field.unique and isinstance(field, models.CharField):
        return "NULL" if field.null else f"left({column}, {field.max_length - 8}) || '-' || {k}"
    if field.column in AGED:
        return (
            f"{column} - CASE WHEN mod({k}, 30) = 0 THEN interval '31 days' ELSE interval '0' END"
        )
    if field.column in SPREAD and game_join:
        return f"{column} + mod({k} * 7919, 1209600) * interval '1 second'"
    return column


def _clone_table(label: str, *, per_user: bool) -> None:
    model = apps.get_model(label)
    fields = [f for f in model._meta.concrete_fields if not (f.primary_key and f.column == "id")]
    if model is Game:
        fields = list(model._meta.concrete_fields)
    k = "cu0.k" if per_user else "g.k"
    columns = ", ".join(f'"{f.column}"' for f in fields)
    values = ", ".join(_column(f, k, not per_user) for f in fields)
    table = model._meta.db_table
    if per_user:
        owner = next(f for f in fields if f.is_relation and f.related_model is User).column
        source = f'{table} t JOIN clone_user cu0 ON cu0.old = t."{owner}"'
    else:
        key = "id" if model is Game else next(f.column for f in fields if f.related_model is Game)
        source = f'{table} t JOIN clone_game g ON g.old = t."{key}"'
    _sql(f"INSERT INTO {table} ({columns}) SELECT {values} FROM {source}")


def _clone(templates: list[Any], first: int, last: int) -> None:
    """Clones first..last (1-based): each copies every template game with four new users."""
    _sql("DROP TABLE IF EXISTS clone_game, clone_user")
    _sql(
        """INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email,
            is_staff, is_active, date_joined)
        SELECT '!', false, u.username || '_' || k, '', '', u.username || k || '@example.com',
            false, true, now()
        FROM auth_user u CROSS JOIN generate_series(%s, %s) k WHERE u.username = ANY(%s)""",
        [first, last, list(NAMES)],
    )
    _sql(
        """CREATE TEMP TABLE clone_user AS SELECT u.id AS old, k, n.id AS new
        FROM auth_user u CROSS JOIN generate_series(%s, %s) k
        JOIN auth_user n ON n.username = u.username || '_' || k WHERE u.username = ANY(%s)""",
        [first, last, list(NAMES)],
    )
    _sql(
        """CREATE TEMP TABLE clone_game AS SELECT old, k, gen_random_uuid() AS new
        FROM unnest(%s::uuid[]) old CROSS JOIN generate_series(%s, %s) k""",
        [[str(t) for t in templates], first, last],
    )
    _sql("CREATE INDEX ON clone_user (old, k)")
    _sql("CREATE INDEX ON clone_game (old)")
    _sql("ANALYZE clone_user, clone_game")
    for label in CLONED:
        _clone_table(label, per_user=False)
    for label in CLONED_PER_USER:
        _clone_table(label, per_user=True)
    _aged_first()
    _sql("ANALYZE")


# Tables whose prune walks the primary key from its start (games.services.retention.walk_prune):
# it relies on ids following creation, which the clones' back-dating does not give.
WALKED = ["clients.Event", "notifications.Outbox", "games.IdempotencyRecord"]


def _aged_first() -> None:
    """The back-dated clones' rows of the walked tables take negative ids, below every other:
    in production the rows a daily prune finds due are the oldest, so the lowest ids (nothing
    refers to a clone's rows: their references are left out)."""
    for label in WALKED:
        table = apps.get_model(label)._meta.db_table
        _sql(
            f"UPDATE {table} SET id = -id WHERE id > 0 AND created_at < now() - interval '30 days'"
        )


# --- measuring ------------------------------------------------------------------------------


def _measure(call: Callable[[], Any]) -> tuple[float, float, int, Any]:
    """Wall ms, CPU ms, statements, result of one call."""
    # The log keeps the last 9,000 statements: a full one would count nothing new.
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as queries:
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return wall * 1000, cpu * 1000, len(queries), result


def _beat_tasks() -> dict[str, Callable[[], Any]]:
    budget = Budget  # a fresh one per run
    return {
        "sweep_deadlines": lambda: (deadlines_sweep(), stale_bot_games()),
        "sweep_outbox": lambda: outbox_sweep(seconds=60),
        "send_digests": digest_send_due,
        "sweep_webhooks": webhooks_sweep,
        "prune_outbox": lambda: outbox_prune(days=30, budget=budget(90)),
        "prune_events": lambda: feed_prune(days=30, budget=budget(90)),
        "prune_idempotency": lambda: idempotency_prune(budget=budget(90)),
        "retire_games": lambda: games_retire(budget=budget(90)),
        "archive_moves": lambda: (
            moves_pack_cold(budget=budget(90)) + moves_archive(budget=budget(90))
        ),
        "prune_inbound": lambda: inbound_prune(budget=budget(90)),
        "prune_tokens": lambda: tokens_prune(budget=budget(90)),
        "prune_sessions": lambda: sessions_prune(budget=budget(90)),
    }


def _moves(templates: list[Any], keys: dict[int, str], count: int) -> dict[str, list[float]]:
    rng = random.Random(2)
    out: dict[str, list[float]] = {"move_wall": [], "move_cpu": [], "move_sql": [], "mail_cpu": []}
    live = [t for t in templates if Game.objects.get(pk=t).status == "active"]
    for n in range(count):
        game_id = live[n % len(live)]
        client = _client_to_move(game_id, keys)
        last = Outbox.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        wall, cpu, statements, _ = _api_move(client, game_id, rng)
        out["move_wall"].append(wall)
        out["move_cpu"].append(cpu)
        out["move_sql"].append(statements)
        out["mail_cpu"].append(_measure(functools.partial(_deliver_pending, last))[1])
    return out


def _mail_burst(count: int = 1000) -> dict[str, float]:
    """Up to `count` turn emails of the clones made due at once and drained by this one process (as
    one worker process drains a backlog): wall and CPU seconds, statements, emails a minute."""
    # Turn emails their player still needs: the game has not moved since (an older one, or
    # one to a digest reader, would be skipped, which is not what a backlog of due mail holds).
    latest = (
        Outbox.objects.filter(
            kind="your_turn", status="sent", game__status="active", move_seq=F("game__last_seq")
        )
        .exclude(recipient__notification_preference__email_mode="digest")
        .order_by("game_id", "-pk")
        .distinct("game_id")
    )
    ids = list(latest.values_list("pk", flat=True)[:count])
    Outbox.objects.filter(pk__in=ids).update(
        status="pending", sent_at=None, claimed_at=None, attempts=0, next_attempt_at=timezone.now()
    )
    wall, cpu, statements, drained = _measure(outbox_drain)
    return {
        "rows": len(ids),
        "sent": drained,
        "wall_s": wall / 1000,
        "cpu_s": cpu / 1000,
        "statements": statements,
        "per_minute": drained / max(wall / 1000, 1e-9) * 60,
    }


def _user_deletion() -> dict[str, float]:
    """A cloned player with active games deletes their account (the service the Settings page
    and the API call): its wall time, with the password check (a deliberate PBKDF2 cost)
    timed apart."""
    seat = Seat.objects.filter(game__status="active").order_by("-pk").first()
    assert seat is not None and seat.user_id is not None
    user = User.objects.get(pk=seat.user_id)
    user.set_password(DELETION_PASSWORD)
    user.save(update_fields=["password"])
    check_ms = _measure(lambda: user.check_password(DELETION_PASSWORD))[0]
    wall, cpu, statements, closed = _measure(
        lambda: account_delete(user=user, password=DELETION_PASSWORD)
    )
    return {
        "wall_ms": wall,
        "cpu_ms": cpu,
        "statements": statements,
        "password_check_ms": check_ms,
        "games_closed": float(sum(v for v in closed.values() if isinstance(v, int))),
    }


def _empty_user_deletion() -> dict[str, float]:
    """An account with no rows anywhere: deleted as its owner would (the service, password
    check apart) and its row deleted outright as an operator's admin would (PostgreSQL then
    checks every foreign key to it: issue 25 measured 25.8 s at 100,000 games)."""
    owner = User.objects.create_user(f"empty-{secrets.token_hex(4)}")
    # The deliberate PBKDF2 cost is left out (timed apart for the player with games).
    owner.check_password = lambda raw: True  # type: ignore[method-assign]
    service = _measure(lambda: account_delete(user=owner, password=DELETION_PASSWORD))[0]
    bare = User.objects.create_user(f"empty-{secrets.token_hex(4)}")
    row = _measure(lambda: User.objects.filter(pk=bare.pk).delete())[0]
    return {"service_ms": service, "row_ms": row}


def _lobby(keys: dict[int, str], count: int) -> list[tuple[float, float, int, Any]]:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {next(iter(keys.values()))}")
    return [_measure(lambda: client.get("/api/v1/games/open/").status_code) for _ in range(count)]


def _storage() -> dict[str, int]:
    tables = [apps.get_model(label)._meta.db_table for label in CLONED + CLONED_PER_USER]
    with connection.cursor() as cursor:
        sizes = {}
        for table in tables:
            cursor.execute("SELECT pg_total_relation_size(%s)", [table])
            sizes[table] = int(cursor.fetchone()[0])
    return sizes


def _size_report(label: str, templates: list[Any], keys: dict[int, str]) -> dict[str, Any]:
    report: dict[str, Any] = {"label": label, "load": os.getloadavg()[0], "tasks": {}}
    for name, call in _beat_tasks().items():
        first = _measure(call)
        warm = [_measure(call) for _ in range(3)]
        report["tasks"][name] = {
            "first": first,
            "warm_wall": statistics.median(w[0] for w in warm),
            "warm_cpu": statistics.median(w[1] for w in warm),
            "warm_sql": statistics.median(w[2] for w in warm),
        }
    report["moves"] = _moves(templates, keys, 12)
    report["lobby"] = _lobby(keys, 10)
    report["mail_burst"] = _mail_burst()
    report["deletion"] = _user_deletion()
    report["empty_deletion"] = _empty_user_deletion()
    report["games"] = Game.objects.filter(status="active").count()
    report["move_rows"] = Move.objects.count()
    report["storage"] = _storage()
    return report


def _print_tasks(reports: list[dict[str, Any]]) -> None:
    base = [reports[0]]
    print(
        "\n| beat task | "
        + " | ".join(r["label"] for r in reports)
        + " | ratio largest / baseline |"
    )
    print("| --- |" + " ---: |" * (len(reports) + 1))
    largest = reports[-2]
    for name in reports[0]["tasks"]:
        cells = []
        for r in reports:
            t = r["tasks"][name]
            cells.append(
                f"{t['warm_wall']:.1f} ms, {t['warm_sql']:.0f} st (first {t['first'][0]:.0f} ms)"
            )
        baseline = statistics.mean(r["tasks"][name]["warm_wall"] for r in base)
        ratio = largest["tasks"][name]["warm_wall"] / max(baseline, 0.001)
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} |")


def _print_requests(reports: list[dict[str, Any]]) -> None:
    print(
        "\n| size | load | move wall ms | move CPU ms | statements | mail CPU ms | lobby ms | lobby st |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in reports:
        m, lob = r["moves"], r["lobby"]
        print(
            f"| {r['label']} | {r['load']:.2f} | {statistics.median(m['move_wall']):.1f} | "
            f"{statistics.median(m['move_cpu']):.1f} | {statistics.median(m['move_sql']):.0f} | "
            f"{statistics.mean(m['mail_cpu']):.1f} | {statistics.median(x[0] for x in lob):.1f} | "
            f"{statistics.median(x[2] for x in lob):.0f} |"
        )


def _print_due_work(reports: list[dict[str, Any]]) -> None:
    print(
        "\n| size | due emails drained by one process | emails a minute | CPU s | statements "
        "| account deletion ms (password check apart) | its statements "
        "| an account with no rows: deleted by the service / its row deleted, ms |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in reports:
        burst, gone = r["mail_burst"], r["deletion"]
        print(
            f"| {r['label']} | {burst['sent']:.0f} of {burst['rows']:.0f} in "
            f"{burst['wall_s']:.1f} s | {burst['per_minute']:,.0f} | {burst['cpu_s']:.1f} | "
            f"{burst['statements']:.0f} | {gone['wall_ms'] - gone['password_check_ms']:.0f} "
            f"(+{gone['password_check_ms']:.0f}) | {gone['statements']:.0f} | "
            f"{r['empty_deletion']['service_ms']:.0f} / {r['empty_deletion']['row_ms']:.0f} |"
        )


def _print_capacity(report: dict[str, Any], turns_per_day: float, peak: float) -> None:
    sizes, moves = report["storage"], report["move_rows"]
    total = sum(sizes.values())
    print(f"\nstorage at {report['label']} ({moves:,} moves in {report['games']:,} active games):")
    for table, size in sorted(sizes.items(), key=lambda item: -item[1]):
        print(f"  {table:<40} {size / moves:8.0f} B/move")
    print(
        f"  {'total':<40} {total / moves:8.0f} B/move, {total / report['games'] / 1024:.0f} KB/game"
    )
    m = report["moves"]
    # A turn: the moves from one "your turn" to the next (draw, melds, discard).
    turns = Outbox.objects.filter(kind="your_turn").count()
    per_turn = moves / max(turns, 1)
    cpu = (statistics.median(m["move_cpu"]) + statistics.mean(m["mail_cpu"])) / 1000 * per_turn
    background = sum(t["warm_cpu"] for t in report["tasks"].values()) / 1000
    games = 2 / cpu / peak * 86400 / turns_per_day  # two cores, nothing else on them
    print(
        f"\ncapacity: {per_turn:.2f} moves per turn; {cpu * 1000:.1f} ms CPU per turn (its "
        f"requests and mail, this process), background {background * 1000:.0f} ms per round "
        f"of every beat task; two cores at a {peak}x peak and {turns_per_day:g} turns per game "
        f"a day hold about {games:,.0f} games"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--templates", type=int, default=4, help="games played through the API")
    parser.add_argument("--moves", type=int, default=60, help="moves per template game")
    parser.add_argument("--turns-per-day", type=float, default=6.0)
    parser.add_argument("--peak", type=float, default=2.5)
    args = parser.parse_args()
    call_command("migrate", verbosity=0, interactive=False)
    players, keys = _players()
    templates = _templates(players, keys, args.templates, args.moves)
    print(f"{len(templates)} template games, {Move.objects.count()} moves through the API")
    reports, clones = [], 0
    for size in sorted(args.sizes):
        wanted = max(1, size // len(templates))
        started = time.perf_counter()
        _clone(templates, clones + 1, wanted)
        clones = wanted
        print(f"cloned to {Game.objects.count():,} games in {time.perf_counter() - started:.0f} s")
        reports.append(_size_report(f"{size:,}", templates, keys))
    # The largest once more: how much the machine's load moved the figures meanwhile.
    reports.append(_size_report(f"{sorted(args.sizes)[-1]:,} (again)", templates, keys))
    _print_tasks(reports)
    _print_requests(reports)
    _print_due_work(reports)
    _print_capacity(reports[-1], args.turns_per_day, args.peak)


if __name__ == "__main__":
    main()
