#!/usr/bin/env python
"""Storage per move of an active game, and of a finished game after retention (issue 25).

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> \\
        .venv/bin/python bench/footprint.py [--templates 4] [--moves 60] [--clones 250]

Uses bench/scale.py's templates and clones (importing it configures Django and drops and
creates the database named in BENCH_DATABASE_URL: never point it at data you keep):

1. Template games are played through the API (one action a request, each with an
   Idempotency-Key; every email delivered after each move: reply tokens, outbox rows, feed
   events and idempotency records are the service's own) and cloned by SQL to
   `templates × clones` active games, so each table's fixed overhead (its first pages) is
   spread as on a host with many games. No clone is dated back.
2. **Active game, within the idempotency window** (every record of the last 24 h kept: the
   worst moment of a game whose moves all happened within a day) and **after 24 h** (the
   hourly prune run a day later): `pg_total_relation_size` (table, TOAST, indexes) of every
   table that grows with play, its live rows copied into a fresh table, per move logged.
3. **Finished game after retention**, twice: a one-hand game played through the API to its
   end with a low target (`--finish-target`), and a long match (`--match-target`, resigned
   through the API after `--match-moves` moves if still on); each cloned like the others, then
   every beat prune runs as if 31 days later (outbox, events, idempotency, retirement,
   inbound) and the tables are measured (the figure without the move archive); then the move
   archive runs as if 32 days later and they are measured again: bytes a game by table, a
   move of the log, the rest a hand, and the ratio of the two in the same run.

Every figure is printed beside the baseline of docs/capacity.md before issue 25 (3,280 B a
move active, 1,820 B after 24 h) with the ratio.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from accounts.services.retention import sessions_prune
from clients.services.retention import feed_prune
from games.models import Game, Hand, Move
from games.services import lobby
from games.services.archive import moves_archive
from games.services.coldmoves import moves_pack_cold
from games.services.retention import Budget, games_retire, idempotency_prune
from mailplay.services.retention import inbound_prune
from notifications.services.retention import outbox_prune, outbox_shared_prune

# docs/capacity.md before issue 25: bytes per move of an active game, by table.
BASELINE = {
    "games_idempotencyrecord": 1461,
    "notifications_outbox": 1012,
    "clients_event": 332,
    "games_move": 287,
    "mailplay_replytoken": 125,
}
BASELINE_ACTIVE, BASELINE_AFTER_DAY = 3280, 1820
# Every table that grows with play (the players' own settings, tokens and hooks do not).
MEASURED = [
    *scale.CLONED,
    "games.IdempotencyRecord",
    "notifications.OutboxShared",
    "games.MoveArchive",
    "games.MoveChunk",
]


def _tables() -> list[str]:
    return [apps.get_model(label)._meta.db_table for label in MEASURED]


# Each table's live rows at the last _sizes(): bytes per row do not move with the games'
# random play (how many emails a move sends), bytes per move do.
ROWS: dict[str, int] = {}


def _sizes() -> dict[str, int]:
    """Each table's bytes as its live rows take them: copied into a fresh table with the same
    indexes (LIKE … INCLUDING ALL), whose `pg_total_relation_size` is measured. Not VACUUM
    FULL: on a shared server, any long transaction (in any database) keeps the rows deleted
    or updated since it began from being freed, and the figure would count them."""
    sizes = {}
    with connection.cursor() as cursor:
        for table in _tables():
            cursor.execute(f"CREATE TEMP TABLE footprint_copy (LIKE {table} INCLUDING ALL)")
            cursor.execute(f"INSERT INTO footprint_copy SELECT * FROM {table}")
            ROWS[table] = cursor.rowcount
            cursor.execute("SELECT pg_total_relation_size('footprint_copy')")
            sizes[table] = int(cursor.fetchone()[0])
            cursor.execute("DROP TABLE footprint_copy")
    return sizes


def _print_sizes(title: str, sizes: dict[str, int], moves: int, baseline: float) -> float:
    total = sum(sizes.values()) / moves
    print(f"\n{title}: {moves:,} moves")
    print("| table | B/move | baseline B/move | ratio | B/row |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for table, size in sorted(sizes.items(), key=lambda item: -item[1]):
        before = BASELINE.get(table)
        ratio = f"{size / moves / before:.2f}" if before else ""
        per_row = f"{size / ROWS[table]:,.0f}" if ROWS.get(table) else ""
        print(f"| {table} | {size / moves:,.0f} | {before or ''} | {ratio} | {per_row} |")
    print(f"| **total** | **{total:,.0f}** | {baseline:,.0f} | {total / baseline:.2f} |")
    return total


def _finished_template(players: list[Any], keys: dict[int, str], target: int, moves: int) -> Any:
    """A game played through the API to its end (a low target: one hand or so), or, when it is
    still on after `moves` moves (a long match), resigned through the API at a turn's end."""
    rng = random.Random(5)
    game = lobby.game_create(
        creator=players[0],
        variant="classic",
        players=4,
        options={"seating": "invitation", "target": target},
        turn_seconds=3 * 86400,
        invite=[p.username for p in players[1:]],
    )
    for player in players[1:]:
        game = lobby.game_join(game_id=game.pk, user=player)
    for _ in range(moves):
        if Game.objects.get(pk=game.pk).status != "active":
            break
        scale._api_move(scale._client_to_move(game.pk, keys), game.pk, rng)
        scale._deliver_pending()
    if Game.objects.get(pk=game.pk).status == "active":
        client = scale._client_to_move(game.pk, keys)
        answer = client.post(
            f"/api/v1/games/{game.pk}/resign/", HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4())
        )
        assert answer.status_code == 200, answer.content[:300]
        scale._deliver_pending()
    return game.pk


def _retention_runs(days: int, *, archive: bool) -> float:
    """Every prune of beat, as it would have run `days` later; the move archive too when
    `archive` (the CPU seconds it took are returned, else 0)."""
    later = timezone.now() + timedelta(days=days)
    budget = Budget()
    idempotency_prune(budget=budget, now=later)
    outbox_prune(days=30, budget=budget, now=later)
    outbox_shared_prune(days=30, budget=budget, now=later)
    feed_prune(days=30, budget=budget, now=later)
    games_retire(budget=budget, now=later)
    inbound_prune(budget=budget, now=later)
    sessions_prune(budget=budget, now=later)
    if not archive:
        return 0.0
    cpu = time.process_time()
    moves_archive(budget=budget, now=later)
    return time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--templates", type=int, default=4, help="active games via the API")
    parser.add_argument("--moves", type=int, default=60, help="moves per active template")
    parser.add_argument("--clones", type=int, default=250, help="copies of each template")
    parser.add_argument("--moves-per-day", type=float, default=13.0)
    parser.add_argument("--finish-target", type=int, default=100)
    parser.add_argument("--finished-only", action="store_true", help="skip the active games")
    parser.add_argument("--match-target", type=int, default=5000, help="the long match's")
    parser.add_argument(
        "--match-moves", type=int, default=1000, help="the long match resigns after these"
    )
    args = parser.parse_args()
    call_command("migrate", verbosity=0, interactive=False)
    players, keys = scale._players()
    active, day = (0.0, 0.0) if args.finished_only else _active_figures(args, players, keys)
    finished = []
    for round_, (name, target, moves) in enumerate(
        (
            ("one-hand game", args.finish_target, 2000),
            ("long match", args.match_target, args.match_moves),
        ),
        start=1,
    ):
        # Each round's clones get players of their own (names numbered past the last round's).
        clones = (round_ * args.clones + 1, (round_ + 1) * args.clones)
        finished.append(_finished_figures(name, players, keys, (target, moves), clones))
    print(
        f"\nsummary: active, every move within the last day {active:,.0f} B/move (with the "
        f"day's idempotency records, kept 24 h); a day later {day:,.0f} B/move (target 600); "
        + "; ".join(
            f"{name} {after / 1024:,.1f} KB/game (without the archive {before / 1024:,.1f}, "
            f"ratio {after / before:.2f})"
            for name, before, after in finished
        )
        + " (target 100 KB)"
    )


def _active_figures(
    args: argparse.Namespace, players: list[Any], keys: dict[int, str]
) -> tuple[float, float]:
    """Active games played through the API and cloned: bytes a move with every move's
    idempotency record, a day later, and at the model's pace. Returns the first two."""
    templates = scale._templates(players, keys, args.templates, args.moves)
    scale._clone(templates, 1, args.clones)
    moves = Move.objects.count()
    sizes = _sizes()
    active = _print_sizes(
        f"active games ({Game.objects.count():,}), every move within the 24 h idempotency window",
        sizes,
        moves,
        BASELINE_ACTIVE,
    )
    records = sizes["games_idempotencyrecord"] / moves
    later = timezone.now() + timedelta(hours=25)
    idempotency_prune(budget=Budget(), now=later)
    rows = _sizes()
    _print_sizes("the same a day later, the moves still rows", rows, moves, BASELINE_AFTER_DAY)
    moves_pack_cold(budget=Budget(), now=later)
    packed = _sizes()
    day = _print_sizes("the same a day later", packed, moves, BASELINE_AFTER_DAY)
    # A game played over days keeps only its last day's records and rows: at the capacity
    # model's pace (docs/capacity.md: 6 turns a day, 2.17 moves a turn), a game of --moves.
    share = min(1.0, args.moves_per_day / args.moves)
    unpacked = (rows["games_move"] - packed["games_move"] - packed["games_movechunk"]) / moves
    print(
        f"\nan active game of {args.moves} moves at {args.moves_per_day:g} moves a day keeps "
        f"{share:.0%} of its moves' idempotency records and rows: "
        f"{day + share * (records + unpacked):,.0f} B/move"
    )
    return active, day


def _finished_figures(
    name: str,
    players: list[Any],
    keys: dict[int, str],
    play: tuple[int, int],
    clones: tuple[int, int],
) -> tuple[str, float, float]:
    """A finished game of `name` played through the API (target, moves at most), cloned, then
    measured 31 days after its end: without the move archive (every other retention run),
    then with it. Returns the name and the bytes a game before and after."""
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE games_game, games_idempotencyrecord, notifications_outboxshared CASCADE"
        )
    template = _finished_template(players, keys, *play)
    scale._clone([template], *clones)
    games, moves, hands = Game.objects.count(), Move.objects.count(), Hand.objects.count()
    print(
        f"\n{name}: {games:,} games, {moves / games:,.0f} moves and {hands / games:.1f} hands a game"
    )
    _retention_runs(days=31, archive=False)
    before = _finished_sizes("without the move archive", _sizes(), games, moves, hands)
    cpu = _retention_runs(days=32, archive=True)
    print(f"archiving: {cpu * 1000 / games:,.1f} ms of CPU a game")
    after = _finished_sizes("with the move archive", _sizes(), games, moves, hands)
    return name, before, after


def _finished_sizes(title: str, sizes: dict[str, int], games: int, moves: int, hands: int) -> float:
    """Print the bytes a finished game takes, by table, and return the total a game."""
    log = sizes["games_move"] + sizes["games_movearchive"]
    whole = sum(sizes.values())
    print(f"\n{title}: bytes a game by table")
    print("| table | B/game | B/move |")
    print("| --- | ---: | ---: |")
    for table, size in sorted(sizes.items(), key=lambda item: -item[1]):
        if size:
            print(f"| {table} | {size / games:,.0f} | {size / moves:,.1f} |")
    print(
        f"| **total** | **{whole / games:,.0f}** | {whole / moves:,.1f} |\n"
        f"the move log {log / moves:,.1f} B a move; the rest {(whole - log) / hands / 1024:,.1f} "
        f"KB a hand; {whole / games / 1024:,.1f} KB a game"
    )
    return whole / games


if __name__ == "__main__":
    main()
