"""Reply addresses stored before they were kept out of payloads are removed by migrations."""

from __future__ import annotations

import importlib

from django.apps import apps

from clients.models import Event
from notifications.models import Outbox
from tests.game_fixtures import game, users  # noqa: F401

ADDRESS = "play+abcdefghijklmnopqrstuvwxyz234567@canasta.test"


def _migration(app: str) -> object:
    return importlib.import_module(f"{app}.migrations.0002_strip_reply_addresses")


def test_stored_events_lose_their_reply_address(users, game):  # noqa: F811
    old = Event.objects.create(
        recipient=users["alice"],
        game=game,
        kind="your_turn",
        seq=1,
        payload={"seat": 0, "reply_to": ADDRESS},
        created_at=game.created_at,
    )

    _migration("clients").strip(apps, None)

    old.refresh_from_db()
    assert old.payload == {"seat": 0}


def test_stored_outbox_rows_lose_their_reply_address(users, game):  # noqa: F811
    def row(kind: str, key: str) -> Outbox:
        return Outbox.objects.create(
            recipient=users["alice"],
            game=game,
            kind=kind,
            key=key,
            payload={"seat": 0, "reply_to": ADDRESS},
        )

    turn, answer = row("your_turn", "a"), row("email_reply", "b")

    _migration("notifications").strip(apps, None)

    turn.refresh_from_db()
    answer.refresh_from_db()
    assert turn.payload == {"seat": 0}
    # An answer that offered the address still gets it when it is sent.
    assert answer.payload == {"seat": 0, "reply_by_email": True}
