"""The outbox's dedupe key as its 16-byte digest (issue 25, games.fields.DigestField): an
INSERT of the same event's key finds the digest taken, as it found the text.

Going back, a digest cannot give back its text: a row gets its digest in hex as its key. An
event enqueued again after that (a retried request of before) is then written a second time.
"""

from typing import Any

from django.db import migrations, models

import games.fields
from games.fields import digest


def digests_fill(apps: Any, schema_editor: Any) -> None:
    outbox = apps.get_model("notifications", "Outbox")
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            """UPDATE notifications_outbox
            SET key_digest = substring(sha256(convert_to(key, 'UTF8')) FROM 1 FOR 16)"""
        )
        return
    for row in outbox.objects.only("pk", "key").iterator():
        outbox.objects.filter(pk=row.pk).update(key_digest=digest(row.key))


def digests_unfill(apps: Any, schema_editor: Any) -> None:
    outbox = apps.get_model("notifications", "Outbox")
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("UPDATE notifications_outbox SET key = encode(key_digest, 'hex')")
        return
    for row in outbox.objects.only("pk", "key_digest").iterator():
        outbox.objects.filter(pk=row.pk).update(key=bytes(row.key_digest).hex())


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0013_outbox_shared_partial_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="outbox",
            name="key_digest",
            field=models.BinaryField(null=True),
        ),
        # Nullable before it goes, so that the way back can add it again and fill it.
        migrations.AlterField(
            model_name="outbox",
            name="key",
            field=models.CharField(max_length=200, null=True, unique=True),
        ),
        migrations.RunPython(digests_fill, digests_unfill),
        migrations.RemoveField(model_name="outbox", name="key"),
        migrations.RenameField(model_name="outbox", old_name="key_digest", new_name="key"),
        migrations.AlterField(
            model_name="outbox",
            name="key",
            field=games.fields.DigestField(max_length=16, unique=True),
        ),
    ]
