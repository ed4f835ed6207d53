"""mailplay 0002: mail processed before the upgrade keeps its Message-ID (a late second
delivery is still a duplicate); a stranger's recorded mail takes none."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from mailplay.models import InboundMessage, ReplyToken
from mailplay.services.inbound import dedupe_key

BEFORE = [("mailplay", "0001_initial")]
AFTER = [("mailplay", "0002_reply_tokens_per_email_and_dedupe_per_player")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_the_upgrade_keys_the_mail_that_passed_the_checks(django_user_model):
    apps = _migrate(BEFORE)
    user = django_user_model.objects.create(username="m1", email="m1@example.com")
    game = apps.get_model("games", "Game").objects.create(
        variant="classic", players=2, created_by_id=user.pk
    )
    old_token = apps.get_model("mailplay", "ReplyToken").objects.create(
        game_id=game.pk, user_id=user.pk, seat_number=0, token="a" * 32
    )
    rows = apps.get_model("mailplay", "InboundMessage").objects
    common = {"token_id": old_token.pk, "user_id": user.pk, "game_id": game.pk}
    rows.create(message_key="k-played", status="processed", reason="applied", **common)
    rows.create(message_key="k-too-large", status="refused", reason="too_large", **common)
    rows.create(message_key="k-stranger", status="refused", reason="from_mismatch", **common)
    rows.create(message_key="k-nobody", status="ignored", reason="no_reply_address")

    _migrate(AFTER)
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    token = ReplyToken.objects.get()
    assert (token.hand, token.issued_seq, token.on_turn) == (None, None, None)
    keys = dict(InboundMessage.objects.values_list("message_key", "dedupe_key"))
    assert keys == {
        "k-played": dedupe_key(token, "k-played"),
        "k-too-large": dedupe_key(token, "k-too-large"),
        "k-stranger": None,
        "k-nobody": None,
    }
