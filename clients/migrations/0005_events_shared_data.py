"""Events are written once for everyone at the table (their facts only; each reader's data is
built when read), and webhooks deliver from a cursor instead of an outbox row per event.

The existing feed is converted in place, so feed cursors keep working: of the per-player
copies of one event the first (lowest id) is kept as the shared event; a reader's cursor
past their own copy is past the kept one too. `your_turn` rows keep their recipient. A hook
with deliveries still waiting in the outbox resumes from the first of them (a receiver may
get an event again across the upgrade: it deduplicates on the event id); other hooks start
after the last event. Those outbox rows are closed as skipped.
"""

from django.db import migrations
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
        # As events are written now: an active status and a missing deadline go unsaid.
        if event.facts.get("status") == "active":
            del event.facts["status"]
        if event.kind == "your_turn" and event.facts.get("deadline") is None:
            event.facts = {}
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
        ("clients", "0004_events_written_once_and_webhook_cursors"),
        ("notifications", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(share_events, elidable=False),
    ]
