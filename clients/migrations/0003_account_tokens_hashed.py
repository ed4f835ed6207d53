"""Account tokens become hashed API tokens (clients.ApiToken, kind "account").

DRF's authtoken kept every account key in clear. Each one is moved here as its sha256 (so the
key a client holds keeps working, and a leaked database leaks no working key), and the clear
row is deleted. Nothing is lost: the same key, the same user, the same powers.
"""

import hashlib
from typing import Any

from django.db import migrations, models

# The first characters kept to tell keys apart in a listing (the rest, 34 hex digits, stays
# secret). Keys made from now on start with "cnsa_".
LEGACY_PREFIX_LENGTH = 6


def hash_account_keys(apps: Any, schema_editor: Any) -> None:
    clear = apps.get_model("authtoken", "Token")
    api_token = apps.get_model("clients", "ApiToken")
    rows = list(clear.objects.all())
    api_token.objects.bulk_create(
        [
            api_token(
                owner_id=row.user_id,
                kind="account",
                name="account token",
                scopes=["read", "play"],
                key_hash=hashlib.sha256(row.key.encode()).hexdigest(),
                prefix=row.key[:LEGACY_PREFIX_LENGTH],
            )
            for row in rows
        ],
        ignore_conflicts=True,
    )
    clear.objects.filter(pk__in=[row.pk for row in rows]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("authtoken", "0004_alter_tokenproxy_options"),
        ("clients", "0002_strip_reply_addresses"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="kind",
            field=models.CharField(
                choices=[
                    ("personal", "personal token: named, scoped, for one client"),
                    (
                        "account",
                        "account token: everything its user may do (POST /auth/token/)",
                    ),
                ],
                default="personal",
                max_length=8,
            ),
        ),
        # Keys move one way: a reversed migration does not put them back in clear.
        migrations.RunPython(hash_account_keys, migrations.RunPython.noop),
    ]
