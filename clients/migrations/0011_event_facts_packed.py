"""A move's and a your_turn's facts stored as the list of their values (issue 25,
clients.fields; clients.models.Event.from_db rebuilds them). The column stays compact JSON
text. Forward, the events written before are packed too (they read back the same either
way); going back, every packed event's facts become an object again, as the code before reads
them. Both walk the feed in chunks of the primary key."""

from typing import Any

from django.db import migrations

import clients.fields
from clients.fields import facts_packed, facts_unpacked

CHUNK = 2000


def _rewrite(apps: Any, change: Any) -> None:
    event = apps.get_model("clients", "Event")
    last = 0
    while True:
        rows = list(
            event.objects.filter(pk__gt=last).order_by("pk").only("pk", "kind", "facts")[:CHUNK]
        )
        if not rows:
            return
        changed = []
        for row in rows:
            facts = change(row.facts, row.kind)
            if facts != row.facts:
                row.facts = facts
                changed.append(row)
        # The historical field writes what it is given (no packing on update).
        event.objects.bulk_update(changed, ["facts"])
        last = rows[-1].pk


def pack(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, facts_packed)


def unpack(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, facts_unpacked)


class Migration(migrations.Migration):
    dependencies = [
        ("clients", "0010_event_facts_compact_json"),
    ]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="facts",
            field=clients.fields.EventFactsField(default=dict),
        ),
        migrations.RunPython(pack, unpack),
    ]
