"""Events are written once for everyone at the table (their facts only; each reader's data is
built when read), and webhooks deliver from a cursor instead of an outbox row per event.

The existing feed is converted in place, so feed cursors keep working: of the per-player
copies of one event the first (lowest id) is kept as the shared event; a reader's cursor
past their own copy is past the kept one too. `your_turn` rows keep their recipient. A hook
with deliveries still waiting in the outbox resumes from the first of them (a receiver may
get an event again across the upgrade: it deduplicates on the event id); other hooks start
after the last event. Those outbox rows are closed as skipped.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

FACT_KEYS = {
    "move": ("version", "turn", "status"),
    "your_turn": ("deadline",),
    "hand_over": ("hand_result", "totals"),
    "match_over": ("totals", "winner_side", "reason"),
    "timeout": ("timed_out_seat", "policy", "handed_to_bot", "deadline"),
}
CHUNK = 2000


def _convert(chunk, kept, remap):
    """Facts from payloads; per-player copies are dropped (returned) in favour of the first."""
    updates, drop = [], []
    for event in chunk:
        payload = event.payload or {}
        event.facts = {key: payload.get(key) for key in FACT_KEYS.get(event.kind, ())}
        if event.kind != "your_turn":
            group = (event.game_id, event.kind, event.seq)
            if group in kept:
                drop.append(event.pk)
                remap[event.pk] = kept[group]
                continue
            kept[group] = event.pk
            moves = payload.get("moves") or []
            event.first_seq = moves[0].get("seq", event.seq) if moves else event.seq
            event.recipient_id = None
        updates.append(event)
    return updates, drop


def share_events(apps, schema_editor):
    Event = apps.get_model("clients", "Event")
    Delivery = apps.get_model("clients", "WebhookDelivery")
    Webhook = apps.get_model("clients", "Webhook")
    Outbox = apps.get_model("notifications", "Outbox")
    waiting = Outbox.objects.filter(channel="webhook", status__in=["pending", "sending"])
    first_waiting: dict[int, int] = {}
    for payload in waiting.values_list("payload", flat=True).iterator():
        hook, event = payload.get("webhook"), payload.get("event")
        if hook and event:
            first_waiting[hook] = min(first_waiting.get(hook, event), event)
    kept: dict[tuple, int] = {}
    remap: dict[int, int] = {}
    last = 0
    while chunk := list(Event.objects.filter(pk__gt=last).order_by("pk")[:CHUNK]):
        last = chunk[-1].pk
        updates, drop = _convert(chunk, kept, remap)
        Event.objects.bulk_update(updates, ["facts", "first_seq", "recipient"])
        for delivery, event in Delivery.objects.filter(event_id__in=drop).values_list(
            "pk", "event_id"
        ):
            Delivery.objects.filter(pk=delivery).update(event_id=remap[event])
        Event.objects.filter(pk__in=drop).delete()
    newest = Event.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    now = timezone.now()
    for hook in Webhook.objects.all():
        if hook.pk in first_waiting:
            event = first_waiting[hook.pk]
            hook.cursor, hook.due_at = remap.get(event, event) - 1, now
        else:
            hook.cursor = newest
        hook.save(update_fields=["cursor", "due_at"])
    waiting.update(status="skipped", last_error="delivered from the webhook's cursor instead")


class Migration(migrations.Migration):
    dependencies = [
        ("clients", "0001_initial"),
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
        migrations.RunPython(share_events, elidable=False),
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
            model_name="event",
            index=models.Index(
                condition=models.Q(("recipient__isnull", False)),
                fields=["recipient", "id"],
                name="event_recipient_id_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="webhook",
            index=models.Index(
                condition=models.Q(("active", True)), fields=["due_at"], name="webhook_due_idx"
            ),
        ),
    ]
