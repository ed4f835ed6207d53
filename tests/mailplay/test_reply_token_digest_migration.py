"""mailplay 0006: a reply token becomes its digest, and a reply to an address issued before
still finds it; the way back writes the digest in hex."""

from __future__ import annotations

import pytest

from games.fields import digest
from tests.migrations import migrate_latest, migrate_to

BEFORE = [("mailplay", "0005_drop_pattern_copies")]
AFTER = [("mailplay", "0006_reply_token_digest")]
TOKEN = "a" * 32


@pytest.mark.django_db(transaction=True)
def test_tokens_become_digests_and_are_still_found() -> None:
    try:
        apps = migrate_to(BEFORE)
        user = apps.get_model("auth", "User").objects.create(username="r1")
        game = apps.get_model("games", "Game").objects.create(
            variant="classic", players=2, created_by_id=user.pk
        )
        old = apps.get_model("mailplay", "ReplyToken").objects.create(
            game_id=game.pk, user_id=user.pk, seat_number=0, token=TOKEN
        )

        migrate_to(AFTER)
        from mailplay.models import ReplyToken

        found = ReplyToken.objects.filter(token__in=[TOKEN]).get()
        assert found.pk == old.pk and found.token == digest(TOKEN)

        apps = migrate_to(BEFORE)
        back = apps.get_model("mailplay", "ReplyToken").objects.get(pk=old.pk)
        assert back.token == digest(TOKEN).hex()
    finally:
        migrate_latest()
