"""Going back from the move archive (games 0016): every archive is unpacked into its Move rows
again, a chunk of games per transaction (a large log is not one transaction), before 0016's
way back drops the table. Forward there is nothing to do: the hourly task archives."""

from typing import Any

from django.db import migrations, transaction

from games.movearchive import moves_unpacked

# Games per chunk: a long match is about a thousand moves.
CHUNK = 50
_FIELDS = ("seq", "hand", "seat", "actor", "action", "events", "created_at")


def _unpack_chunk(apps: Any, ids: list[Any]) -> None:
    archive, move, game = (
        apps.get_model("games", name) for name in ("MoveArchive", "Move", "Game")
    )
    rows = []
    for stored in archive.objects.filter(pk__in=ids):
        for unpacked in moves_unpacked(stored.pk, stored.packed):
            values = {name: getattr(unpacked, name) for name in _FIELDS}
            # The historical field packs the events against the move as it writes the row.
            rows.append(move(game_id=stored.pk, **values))
    move.objects.bulk_create(rows, batch_size=1000)
    archive.objects.filter(pk__in=ids).delete()
    game.objects.filter(pk__in=ids).update(moves_archived_at=None)


def unpack(apps: Any, schema_editor: Any) -> None:
    archive, game = apps.get_model("games", "MoveArchive"), apps.get_model("games", "Game")
    while True:
        ids = list(archive.objects.order_by("pk").values_list("pk", flat=True)[:CHUNK])
        if not ids:
            break
        with transaction.atomic():
            _unpack_chunk(apps, ids)
    # Games marked archived without an archive had no moves.
    game.objects.filter(moves_archived_at__isnull=False).update(moves_archived_at=None)


class Migration(migrations.Migration):
    # Each chunk of the way back is its own transaction.
    atomic = False

    dependencies = [
        ("games", "0016_move_archive"),
    ]

    operations = [
        migrations.RunPython(migrations.RunPython.noop, unpack),
    ]
