"""The move chunks (games 0018): forward, the games still played are marked as having moves to
pack since they started (the hourly task packs what is a day old); back, every chunk is
unpacked into its Move rows again, a few games per transaction, before 0018's way back drops
the table."""

from typing import Any

from django.db import migrations, transaction
from django.db.models import F

from games.movearchive import moves_unpacked

# Games per transaction on the way back.
CHUNK = 50
_FIELDS = ("seq", "hand", "seat", "actor", "action", "events", "created_at")


def mark(apps: Any, schema_editor: Any) -> None:
    game = apps.get_model("games", "Game")
    game.objects.filter(finished_at__isnull=True, last_seq__gt=0).update(
        moves_cold_since=F("started_at")
    )


def _unpack_games(apps: Any, ids: list[Any]) -> None:
    chunk, move, seat = (apps.get_model("games", name) for name in ("MoveChunk", "Move", "Seat"))
    rows = []
    for stored in chunk.objects.filter(game_id__in=ids):
        for unpacked in moves_unpacked(stored.game_id, stored.packed):
            values = {name: getattr(unpacked, name) for name in _FIELDS}
            rows.append(move(game_id=stored.game_id, **values))
    move.objects.bulk_create(rows, batch_size=1000)
    chunk.objects.filter(game_id__in=ids).delete()
    seat.objects.filter(game_id__in=ids).update(last_packed_seq=None)


def unpack(apps: Any, schema_editor: Any) -> None:
    chunk = apps.get_model("games", "MoveChunk")
    while True:
        ids = list(
            chunk.objects.order_by("game_id").values_list("game_id", flat=True).distinct()[:CHUNK]
        )
        if not ids:
            break
        with transaction.atomic():
            _unpack_games(apps, ids)


class Migration(migrations.Migration):
    # Each batch of games of the way back is its own transaction.
    atomic = False

    dependencies = [
        ("games", "0018_move_chunks"),
    ]

    operations = [
        migrations.RunPython(mark, unpack),
    ]
