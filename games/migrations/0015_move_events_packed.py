"""A move's engine events stored without the type and seat they repeat from the move
(issue 25, games.fields.MoveEventsField; games.models.Move.from_db rebuilds them).

The column stays compact JSON text. Forward, the moves logged before are packed too (their
events read back the same either way); going back, every packed event gets its type and seat
again, as the code before reads them. Both walk the log in chunks of the primary key."""

from typing import Any

from django.db import migrations

import games.fields
from games.fields import events_packed, events_unpacked

CHUNK = 2000


def _rewrite(apps: Any, change: Any) -> None:
    move = apps.get_model("games", "Move")
    last = 0
    while True:
        rows = list(
            move.objects.filter(pk__gt=last)
            .order_by("pk")
            .only("pk", "action", "seat", "events")[:CHUNK]
        )
        if not rows:
            return
        changed = []
        for row in rows:
            events = change(row.events, row.action, row.seat)
            if events != row.events:
                row.events = events
                changed.append(row)
        # The historical field writes what it is given (no packing on update).
        move.objects.bulk_update(changed, ["events"])
        last = rows[-1].pk


def pack(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, events_packed)


def unpack(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, events_unpacked)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_idempotency_digests"),
    ]

    operations = [
        migrations.AlterField(
            model_name="move",
            name="events",
            field=games.fields.MoveEventsField(default=list),
        ),
        migrations.RunPython(pack, unpack),
    ]
