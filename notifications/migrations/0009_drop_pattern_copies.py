"""Drop the varchar_pattern_ops copies PostgreSQL gets of unique text columns (Django makes
one for LIKE queries on every indexed CharField): these columns (keys, tokens, hashes) are only
ever compared whole, through their unique index, so the copy costs writes and space for
nothing (the outbox's key: 69 B a move, the reply tokens': 32 B; docs/operations.md). IF EXISTS:
SQLite never had them."""

from django.db import migrations


class Migration(migrations.Migration):
    # After both 0008s: this also joins the two lines of the graph into one leaf.
    dependencies = [
        ("notifications", "0008_merge_digest_due_at_storage_indexes"),
        ("notifications", "0008_outbox_shared_payload"),
    ]

    operations = [
        migrations.RunSQL(
            "DROP INDEX IF EXISTS notifications_outbox_key_d83ebb54_like",
            reverse_sql=migrations.RunSQL.noop,
            elidable=True,
        ),
    ]
