"""Drop the varchar_pattern_ops copies PostgreSQL gets of unique text columns (Django makes
one for LIKE queries on every indexed CharField): these columns (keys, tokens, hashes) are only
ever compared whole, through their unique index, so the copy costs writes and space for
nothing (the outbox's key: 69 B a move, the reply tokens': 32 B; docs/operations.md). IF EXISTS:
SQLite never had them."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("mailplay", "0004_storage_indexes")]

    operations = [
        migrations.RunSQL(
            "DROP INDEX IF EXISTS mailplay_replytoken_token_8008a51f_like",
            reverse_sql=migrations.RunSQL.noop,
            elidable=True,
        ),
        migrations.RunSQL(
            "DROP INDEX IF EXISTS mailplay_inboundmessage_message_key_5f21c668_like",
            reverse_sql=migrations.RunSQL.noop,
            elidable=True,
        ),
        migrations.RunSQL(
            "DROP INDEX IF EXISTS mailplay_inboundmessage_dedupe_key_2a905541_like",
            reverse_sql=migrations.RunSQL.noop,
            elidable=True,
        ),
    ]
