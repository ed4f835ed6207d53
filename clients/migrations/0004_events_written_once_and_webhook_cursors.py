"""Events written once and webhook cursors, part 1 of 3: the new columns (0003 converts the
feed, 0004 drops what it replaced). Three migrations, so each runs in its own transaction:
PostgreSQL refuses to alter a table in the transaction that changed its rows."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("clients", "0003_account_tokens_hashed"),
        ("games", "0002_background_work"),
        ("notifications", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="event",
            name="facts",
            field=models.JSONField(default=dict),
        ),
        migrations.AddField(
            model_name="event",
            name="first_seq",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="event",
            name="recipient",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="client_events",
                to=settings.AUTH_USER_MODEL,
                db_index=False,
            ),
        ),
        migrations.AlterField(
            model_name="event",
            name="game",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="client_events",
                to="games.game",
            ),
        ),
        migrations.AddField(
            model_name="webhook",
            name="claimed_until",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="webhook",
            name="claims",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="webhook",
            name="cursor",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="webhook",
            name="due_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="webhook",
            name="failing_since",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
