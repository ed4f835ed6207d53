"""Remove reply addresses (play by email credentials) from stored `your_turn` events: the feed,
its stream and webhooks served them to any token with the `read` scope."""

from typing import Any

from django.db import migrations

BATCH = 500


def strip(apps: Any, schema_editor: Any) -> None:
    event = apps.get_model("clients", "Event")
    rows = event.objects.filter(payload__has_key="reply_to").only("pk", "payload")
    changed = []
    for row in rows.iterator(chunk_size=BATCH):
        row.payload.pop("reply_to", None)
        changed.append(row)
        if len(changed) >= BATCH:
            event.objects.bulk_update(changed, ["payload"])
            changed = []
    event.objects.bulk_update(changed, ["payload"])


class Migration(migrations.Migration):
    dependencies = [("clients", "0001_initial")]

    operations = [migrations.RunPython(strip, migrations.RunPython.noop)]
