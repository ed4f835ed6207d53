"""A move's and a your_turn's facts are stored as the list of their values (clients.fields)
and read back as the object they were; clients 0011 packs the feed and unpacks it going
back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from clients.fields import facts_packed, facts_unpacked
from clients.models import Event
from tests.migrations import migrate_latest, migrate_to

FACTS = {
    "move": [{"version": 5, "turn": 0}, {"version": 9, "turn": 1, "status": "finished"}],
    "your_turn": [{"deadline": "2026-12-05T04:34:55.659353Z", "version": 4}, {"version": 4}],
}


def _stored(pk: int) -> Any:
    with connection.cursor() as cursor:
        cursor.execute("SELECT facts FROM clients_event WHERE id = %s", [pk])
        return json.loads(cursor.fetchone()[0])


def test_facts_are_stored_as_their_values_and_read_back_whole(game):
    for kind, cases in FACTS.items():
        for facts in cases:
            event = Event.objects.create(
                game=game, kind=kind, seq=1, facts=facts, created_at=timezone.now()
            )
            assert isinstance(_stored(event.pk), list)
            again = Event.objects.get(pk=event.pk)
            assert again.facts == facts and list(again.facts) == list(facts)


def test_other_facts_are_stored_as_they_are():
    kept = [
        ("move", {"turn": 0, "version": 5}),  # another order
        ("your_turn", {"version": 4, "deadline": None, "extra": 1}),
        ("hand_over", {"hand_result": {}, "totals": [0, 0]}),
    ]
    for kind, facts in kept:
        assert facts_packed(facts, kind) == facts
        assert facts_unpacked(facts, kind) == facts


BEFORE = [("clients", "0010_event_facts_compact_json")]
AFTER = [("clients", "0011_event_facts_packed")]


@pytest.mark.django_db(transaction=True)
def test_the_migration_packs_the_feed_and_unpacks_it_going_back() -> None:
    try:
        apps = migrate_to(BEFORE)
        user = apps.get_model("auth", "User").objects.create(username="e1")
        game = apps.get_model("games", "Game").objects.create(
            variant="classic", players=2, created_by_id=user.pk
        )
        event = apps.get_model("clients", "Event")
        rows = [
            event.objects.create(
                game_id=game.pk, kind=kind, seq=1, facts=facts, created_at=timezone.now()
            )
            for kind, cases in FACTS.items()
            for facts in cases
        ]

        migrate_to(AFTER)
        assert all(isinstance(_stored(row.pk), list) for row in rows)
        assert [Event.objects.get(pk=row.pk).facts for row in rows] == [r.facts for r in rows]

        migrate_to(BEFORE)
        assert [_stored(row.pk) for row in rows] == [row.facts for row in rows]
        assert [list(_stored(row.pk)) for row in rows] == [list(row.facts) for row in rows]
    finally:
        migrate_latest()
