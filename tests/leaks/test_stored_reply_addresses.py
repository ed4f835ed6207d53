"""Reply addresses stored before they were kept out of payloads are removed by migrations."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

from django.apps import apps

from notifications.models import Outbox
from tests.game_fixtures import game, users  # noqa: F401

ADDRESS = "play+abcdefghijklmnopqrstuvwxyz234567@canasta.test"


def _migration(app: str) -> object:
    return importlib.import_module(f"{app}.migrations.0002_strip_reply_addresses")


def test_stored_events_keep_no_reply_address_once_they_are_facts():
    # Old per-player events had the reply address in their payload: the conversion to shared
    # facts keeps only the public keys of each kind, so none survives it.
    convert = importlib.import_module("clients.migrations.0005_events_shared_data")._convert
    old = SimpleNamespace(
        pk=1,
        game_id=1,
        kind="your_turn",
        seq=1,
        payload={"seat": 0, "deadline": "2026-06-01T12:00:00+00:00", "reply_to": ADDRESS},
    )

    updates, dropped = convert([old], {}, {})

    assert updates == [old] and dropped == []
    assert old.facts == {"deadline": "2026-06-01T12:00:00+00:00"}
    assert ADDRESS not in repr(vars(old)["facts"])


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
