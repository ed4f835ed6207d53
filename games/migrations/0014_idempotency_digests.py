"""Idempotency records in fewer bytes (issue 25): the client's key and the request's
fingerprint as 16-byte digests (games.fields.DigestField), the kept headers packed with the
body (format 2, games.services.idempotency.body_pack), no index of `created_at` (the prune
walks the primary key).

Forward, every record keeps answering its retries: its key's digest is what a lookup by the
key computes, and its fingerprint's first 16 bytes are the new fingerprint (both are the
request's SHA-256). Going back, a digest cannot give back the text it was made of: a record
gets its key's digest in hex as its key and its fingerprint's 16 bytes in hex as its
fingerprint, and format 2 answers are unpacked into format 1 and `response_headers`. A retry
after going back of a request from before then does not find its record (its key differs) and
runs again (a move: refused as stale by its expected version). Records last a day.
"""

from typing import Any

from django.db import migrations, models

import games.fields
from games.fields import digest
from games.services.idempotency import body_pack_format_1, record_answer

_HEX_SHA256 = frozenset("0123456789abcdef")


def _fingerprint_digest(text: str) -> bytes:
    if len(text) == 64 and set(text) <= _HEX_SHA256:
        return bytes.fromhex(text[:32])
    return digest(text)


def digests_fill(apps: Any, schema_editor: Any) -> None:
    record = apps.get_model("games", "IdempotencyRecord")
    if schema_editor.connection.vendor == "postgresql":
        # A day's records, one statement: what _fingerprint_digest and digest compute.
        schema_editor.execute(
            """UPDATE games_idempotencyrecord SET
                key_digest = substring(sha256(convert_to(key, 'UTF8')) FROM 1 FOR 16),
                fingerprint_digest = CASE WHEN fingerprint ~ '^[0-9a-f]{64}$'
                    THEN decode(substring(fingerprint FROM 1 FOR 32), 'hex')
                    ELSE substring(sha256(convert_to(fingerprint, 'UTF8')) FROM 1 FOR 16) END"""
        )
        return
    rows = record.objects.only("pk", "key", "fingerprint")
    for row in rows.iterator():
        record.objects.filter(pk=row.pk).update(
            key_digest=digest(row.key), fingerprint_digest=_fingerprint_digest(row.fingerprint)
        )


def digests_unfill(apps: Any, schema_editor: Any) -> None:
    record = apps.get_model("games", "IdempotencyRecord")
    for row in record.objects.iterator():
        changes: dict[str, Any] = {
            "key": bytes(row.key_digest).hex(),
            "fingerprint": bytes(row.fingerprint_digest).hex(),
        }
        if row.response_packed is not None and bytes(row.response_packed)[0] == 2:
            body, headers = record_answer(row)
            changes.update(response_packed=body_pack_format_1(body), response_headers=headers)
        elif row.response_headers is None:
            changes["response_headers"] = {}
        record.objects.filter(pk=row.pk).update(**changes)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_game_archive_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="idempotencyrecord",
            name="key_digest",
            field=models.BinaryField(null=True),
        ),
        migrations.AddField(
            model_name="idempotencyrecord",
            name="fingerprint_digest",
            field=models.BinaryField(null=True),
        ),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="response_headers",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.RemoveConstraint(
            model_name="idempotencyrecord",
            name="idempotency_user_key_unique",
        ),
        # Nullable before they go, so that the way back can add them again and fill them.
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="key",
            field=models.CharField(max_length=255, null=True),
        ),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="fingerprint",
            field=models.CharField(max_length=64, null=True),
        ),
        migrations.RunPython(digests_fill, digests_unfill),
        migrations.RemoveField(model_name="idempotencyrecord", name="key"),
        migrations.RemoveField(model_name="idempotencyrecord", name="fingerprint"),
        migrations.RenameField(
            model_name="idempotencyrecord", old_name="key_digest", new_name="key"
        ),
        migrations.RenameField(
            model_name="idempotencyrecord", old_name="fingerprint_digest", new_name="fingerprint"
        ),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="key",
            field=games.fields.DigestField(max_length=16),
        ),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="fingerprint",
            field=games.fields.DigestField(max_length=16),
        ),
        migrations.AddConstraint(
            model_name="idempotencyrecord",
            constraint=models.UniqueConstraint(
                fields=("user", "key"), name="idempotency_user_key_unique"
            ),
        ),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="created_at",
            field=models.DateTimeField(auto_now_add=True),
        ),
    ]
