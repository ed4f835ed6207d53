"""mailplay 0006: a reply token becomes its digest, and a reply to an address issued before
still finds it; the way back writes the digest in hex."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.fields import digest

BEFORE = [("mailplay", "0005_drop_pattern_copies")]
AFTER = [("mailplay", "0006_reply_token_digest")]
TOKEN = "a" * 32


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_tokens_become_digests_and_are_still_found() -> None:
    try:
        apps = _migrate(BEFORE)
        user = apps.get_model("auth", "User").objects.create(username="r1")
        game = apps.get_model("games", "Game").objects.create(
            variant="classic", players=2, created_by_id=user.pk
        )
        old = apps.get_model("mailplay", "ReplyToken").objects.create(
            game_id=game.pk, user_id=user.pk, seat_number=0, token=TOKEN
        )

        _migrate(AFTER)
        from mailplay.models import ReplyToken

        found = ReplyToken.objects.filter(token__in=[TOKEN]).get()
        assert found.pk == old.pk and found.token == digest(TOKEN)

        apps = _migrate(BEFORE)
        back = apps.get_model("mailplay", "ReplyToken").objects.get(pk=old.pk)
        assert back.token == digest(TOKEN).hex()
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
