"""The feed's storage: a move is written once (public facts), not once per player, and what
each reader gets is built when read, for their seat. bench/storage.py measures the same on a
longer run (and on PostgreSQL); docs/webhooks-and-events.md has the figures."""

from __future__ import annotations

import random

from django.db import connection

from clients import selectors
from clients.models import Event
from games import engine
from games.models import GameState, Move
from games.services.replay import table_after
from notifications.payloads import turn_payload
from tests.clients.helpers import whole_turn
from tests.game_fixtures import current_table, play_random, play_until_hand_ends, user_at


def _row_bytes(table: str) -> int:
    """The stored length of every column of every row (SQLite; bench/storage.py's measure)."""
    with connection.cursor() as cursor:
        columns = [c.name for c in connection.introspection.get_table_description(cursor, table)]
        lengths = " + ".join(f"coalesce(length(CAST({c} AS BLOB)), 0)" for c in columns)
        cursor.execute(f"SELECT coalesce(sum({lengths}), 0) FROM {table}")
        return int(cursor.fetchone()[0])


def test_the_feed_keeps_about_what_the_move_log_keeps_per_move(users, game):
    """Before: a `move` row per player per move, each with the moves, names and game data
    copied in: about 17 times the move log. The move log then shrank too (its events stored
    without the type and seat they repeat, issue 25): the feed is within a quarter of it."""
    play_random(game, 150, random.Random(3))
    moves = Move.objects.count()
    feed, log = _row_bytes("clients_event") / moves, _row_bytes("games_move") / moves
    print(f"\nbytes per move: feed {feed:.0f}, move log {log:.0f} ({feed / log:.2f}x)")
    assert feed <= 1.25 * log


def test_a_move_is_one_row_for_everyone_at_the_table(users, game):
    before = Event.objects.count()
    game = whole_turn(game)
    rows = list(Event.objects.order_by("pk")[before:])
    assert [(e.kind, e.recipient_id) for e in rows] == [
        ("move", None),
        ("your_turn", user_at(game, game.turn_seat).pk),
    ]
    # No card stored: the moves are read from the log, the view from the table, per reader.
    assert rows[0].facts == {"version": game.version, "turn": game.turn_seat}
    # No time limit: no deadline to keep; the version the turn starts at (issue 29).
    assert rows[1].facts == {"version": game.version}


def test_a_your_turn_read_later_shows_the_table_of_its_moment(users, game):
    seat = current_table(game).turn
    player = user_at(game, seat)
    (turn,) = [e for e in selectors.events_after(user=player, after=0) if e.kind == "your_turn"]
    expected = turn_payload(game=game, table=current_table(game), seat=seat)
    # The game moves on, through the end of the hand.
    game = play_until_hand_ends(game, random.Random(5))
    assert GameState.objects.get(game=game).table != expected["view"]

    (later,) = [e for e in selectors.events_after(user=player, after=0) if e.pk == turn.pk]

    assert later.payload["view"] == expected["view"]
    assert later.payload["legal"] == expected["legal"]
    assert later.payload["seat"] == seat and "reply_to" not in later.payload


def test_the_table_after_any_move_is_the_snapshot_it_had(users, game):
    """table_after replays a hand from its seed; across a hand's end it is the next deal."""
    snapshots = {0: GameState.objects.get(game=game).table}
    rng = random.Random(7)
    hand = current_table(game).hand
    while current_table(game).hand == hand or len(snapshots) < 3:
        game = play_random(game, 1, rng)
        snapshots[game.last_seq] = GameState.objects.get(game=game).table
        if game.status != "active" or len(snapshots) > 400:
            break
    assert current_table(game).hand > hand  # the run crossed the end of a hand

    for seq, table in snapshots.items():
        assert engine.to_json(table_after(game=game, seq=seq)) == table, seq
