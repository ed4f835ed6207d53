"""The move log stores a move's events without the type and seat they repeat from the move
(games.fields.MoveEventsField) and gives them back as the engine wrote them; games 0015 packs
the moves logged before and unpacks them on the way back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection

from games.fields import events_packed, events_unpacked
from games.models import Move
from tests.migrations import migrate_latest, migrate_to

DRAW = {"type": "draw"}
DRAWN = [
    {"type": "draw", "seat": 2, "private": 2, "cards": ["5H"]},
    {"type": "red_three", "seat": 2, "card": "3H"},
]


def _stored(move: Move) -> Any:
    with connection.cursor() as cursor:
        cursor.execute("SELECT events FROM games_move WHERE id = %s", [move.pk])
        return json.loads(cursor.fetchone()[0])


def test_events_are_stored_without_what_the_move_says_and_read_back_whole(game):
    move = Move.objects.create(game=game, seq=1, hand=1, seat=2, action=DRAW, events=DRAWN)

    assert move.events == DRAWN  # the object keeps what the engine wrote
    assert _stored(move) == [{"private": 2, "cards": ["5H"]}, DRAWN[1]]
    again = Move.objects.get(pk=move.pk)
    assert again.events == DRAWN
    assert [list(event) for event in again.events] == [list(event) for event in DRAWN]
    deferred = Move.objects.only("events").get(pk=move.pk)
    assert deferred.events == DRAWN


def test_only_an_event_that_begins_with_the_moves_type_and_seat_is_packed():
    others = [
        {"seat": 1, "type": "draw"},  # another order: kept
        {"type": "draw", "seat": 3, "cards": []},  # another seat
        {"type": "hand_over", "scores": [1, 2]},  # no seat
    ]
    assert events_packed(others, DRAW, 1) == others
    assert events_unpacked(events_packed(others, DRAW, 1), DRAW, 1) == others
    assert events_unpacked(others, DRAW, 1) == others  # a move logged before: as it is


BEFORE = [("games", "0014_idempotency_digests")]
AFTER = [("games", "0015_move_events_packed")]


@pytest.mark.django_db(transaction=True)
def test_the_migration_packs_the_log_and_unpacks_it_going_back() -> None:
    try:
        apps = migrate_to(BEFORE)
        user = apps.get_model("auth", "User").objects.create(username="m1")
        game = apps.get_model("games", "Game").objects.create(
            variant="classic", players=2, created_by_id=user.pk
        )
        move = apps.get_model("games", "Move")
        old = move.objects.create(game_id=game.pk, seq=1, hand=1, seat=2, action=DRAW, events=DRAWN)

        migrate_to(AFTER)
        assert _stored(old) == [{"private": 2, "cards": ["5H"]}, DRAWN[1]]
        assert Move.objects.get(pk=old.pk).events == DRAWN

        migrate_to(BEFORE)
        assert _stored(old) == DRAWN
        assert [list(event) for event in _stored(old)] == [list(event) for event in DRAWN]
    finally:
        migrate_latest()
