"""The move log and the feed's facts as compact JSON text (games.fields, issue 25): stored
without whitespace, read back as written, and a value stored as jsonb before reads the same."""

from __future__ import annotations

import random

from django.db import connection

from clients.models import Event
from games.models import Move
from tests.game_fixtures import play_random, start_game


def _raw(table: str, column: str, pk: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table} WHERE id = %s", [pk])
        return cursor.fetchone()[0]


def test_a_move_is_stored_as_compact_json_and_read_back_as_written(users):
    game = play_random(start_game(users), 3, random.Random(4))
    move = Move.objects.filter(game=game).order_by("seq").first()

    assert " " not in _raw("games_move", "action", move.pk)
    assert " " not in _raw("games_move", "events", move.pk)
    assert isinstance(move.action, dict) and isinstance(move.events, list)
    assert move.action["type"] in {"draw", "pickup"}
    event = Event.objects.filter(game=game, kind="move").first()
    # A move's facts: the list of their values (clients.fields), read back as the object.
    assert _raw("clients_event", "facts", event.pk).startswith("[")
    assert set(event.facts) >= {"version", "turn"}


def test_a_value_written_as_jsonb_text_reads_the_same(users):
    game = play_random(start_game(users), 1, random.Random(4))
    move = Move.objects.get(game=game)
    # jsonb's text form, as the column's old values read once it is text: spaces after ':'.
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_move SET action = %s WHERE id = %s", ['{"type": "draw"}', move.pk]
        )

    assert Move.objects.get(pk=move.pk).action == {"type": "draw"}
