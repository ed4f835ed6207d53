"""Events written once, part 3 of 3: the per-player payload column and the old indexes go."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("clients", "0005_events_shared_data")]

    operations = [
        migrations.RemoveIndex(model_name="event", name="event_recipient_id_idx"),
        migrations.RemoveIndex(model_name="event", name="event_game_kind_seq_idx"),
        # Pruning walks the primary key instead (clients.services.events.events_prune).
        migrations.RemoveIndex(model_name="event", name="event_created_idx"),
        migrations.RemoveField(model_name="event", name="payload"),
        migrations.AddIndex(
            model_name="event",
            index=models.Index(fields=["game", "id"], name="event_game_id_idx"),
        ),
        migrations.AddIndex(
            model_name="webhook",
            index=models.Index(
                condition=models.Q(("active", True)), fields=["due_at"], name="webhook_due_idx"
            ),
        ),
    ]
