"""A reply token stored as its 16-byte digest (issue 25, games.fields.DigestField): a reply
to an address issued before is found by the digest of the token it carries, as it was found
by the token.

Going back, a digest cannot give back its token: a row gets its digest in hex, which no
address carries, so a reply to an email sent before the downgrade is refused as an unknown
address (the next email brings a new one).
"""

from typing import Any

from django.db import migrations, models

import games.fields
from games.fields import digest


def digests_fill(apps: Any, schema_editor: Any) -> None:
    token = apps.get_model("mailplay", "ReplyToken")
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            """UPDATE mailplay_replytoken
            SET token_digest = substring(sha256(convert_to(token, 'UTF8')) FROM 1 FOR 16)"""
        )
        return
    for row in token.objects.only("pk", "token").iterator():
        token.objects.filter(pk=row.pk).update(token_digest=digest(row.token))


def digests_unfill(apps: Any, schema_editor: Any) -> None:
    token = apps.get_model("mailplay", "ReplyToken")
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("UPDATE mailplay_replytoken SET token = encode(token_digest, 'hex')")
        return
    for row in token.objects.only("pk", "token_digest").iterator():
        token.objects.filter(pk=row.pk).update(token=bytes(row.token_digest).hex())


class Migration(migrations.Migration):
    dependencies = [
        ("mailplay", "0005_drop_pattern_copies"),
    ]

    operations = [
        migrations.AddField(
            model_name="replytoken",
            name="token_digest",
            field=models.BinaryField(null=True),
        ),
        # Nullable before it goes, so that the way back can add it again and fill it.
        migrations.AlterField(
            model_name="replytoken",
            name="token",
            field=models.CharField(max_length=64, null=True, unique=True),
        ),
        migrations.RunPython(digests_fill, digests_unfill),
        migrations.RemoveField(model_name="replytoken", name="token"),
        migrations.RenameField(model_name="replytoken", old_name="token_digest", new_name="token"),
        migrations.AlterField(
            model_name="replytoken",
            name="token",
            field=games.fields.DigestField(max_length=16, unique=True),
        ),
    ]
