from typing import Any

from django.db import transaction

from notifications.models import Outbox
from notifications.services.outbox import outbox_enqueue


def payload(game_id: str = "0123456789abcdef", **extra: Any) -> dict[str, Any]:
    return {
        "game": {
            "id": game_id,
            "url": f"http://127.0.0.1:8000/games/{game_id}/",
            "variant": "classic",
            "players": 4,
        },
        "seat": 0,
        "names": ["alice", "carol", "bob", "dave"],
        **extra,
    }


def enqueue(recipient: Any, kind: str = "match_over", key: str | None = None, **kw: Any) -> Outbox:
    with transaction.atomic():
        row = outbox_enqueue(
            recipient=recipient,
            kind=kind,
            payload=kw.pop("payload", None)
            or payload(totals=[120, 80], winner_side=0, reason="match_over"),
            key=key or f"test:{recipient.pk}:{kind}:{Outbox.objects.count()}",
            **kw,
        )
    assert row is not None
    return row
