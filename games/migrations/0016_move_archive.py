"""A finished game's move log packed into one row (issue 25, games.models.MoveArchive): the
table, the game's `moves_archived_at` and the partial index the archiving task walks
(games.services.archive). Nothing is archived here: the hourly task does it, a game at a time;
going back, 0017 has unpacked every archive into its rows before the table goes."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0015_move_events_packed"),
    ]

    operations = [
        migrations.CreateModel(
            name="MoveArchive",
            fields=[
                (
                    "game",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="move_archive",
                        serialize=False,
                        to="games.game",
                    ),
                ),
                ("packed", models.BinaryField()),
                ("moves", models.PositiveIntegerField()),
            ],
        ),
        migrations.AddField(
            model_name="game",
            name="moves_archived_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(
                    ("finished_at__isnull", False), ("moves_archived_at__isnull", True)
                ),
                fields=["finished_at"],
                name="game_to_archive_idx",
            ),
        ),
    ]
