"""Remove reply addresses (play by email credentials) from stored outbox payloads.

They are added when an email is sent now (notifications/services/delivery.py); a stored one
would show in the admin. An answer to an emailed move that offered its address keeps asking
for it with `reply_by_email`.
"""

from typing import Any

from django.db import migrations

BATCH = 500


def strip(apps: Any, schema_editor: Any) -> None:
    outbox = apps.get_model("notifications", "Outbox")
    rows = outbox.objects.filter(payload__has_key="reply_to").only("pk", "kind", "payload")
    changed = []
    for row in rows.iterator(chunk_size=BATCH):
        if row.payload.pop("reply_to", None) and row.kind == "email_reply":
            row.payload["reply_by_email"] = True
        changed.append(row)
        if len(changed) >= BATCH:
            outbox.objects.bulk_update(changed, ["payload"])
            changed = []
    outbox.objects.bulk_update(changed, ["payload"])


class Migration(migrations.Migration):
    dependencies = [("notifications", "0001_initial")]

    operations = [migrations.RunPython(strip, migrations.RunPython.noop)]
