"""mailplay 0002: the old auto_draw switch becomes a choice. On becomes pile_closed (the
public part of what it did), off stays off; the way back turns every choice but off on."""

from __future__ import annotations

import pytest

from tests.migrations import migrate_latest, migrate_to

BEFORE = [("mailplay", "0002_reply_tokens_per_email_and_dedupe_per_player")]
AFTER = [("mailplay", "0003_auto_draw_choice")]


@pytest.mark.django_db(transaction=True)
def test_existing_email_players_keep_a_sensible_choice() -> None:
    try:
        apps = migrate_to(BEFORE)
        user = apps.get_model("auth", "User")
        player = apps.get_model("mailplay", "MailPlayer")
        player.objects.create(user=user.objects.create(username="on"), auto_draw=True)
        player.objects.create(user=user.objects.create(username="off"), auto_draw=False)

        apps = migrate_to(AFTER)
        player = apps.get_model("mailplay", "MailPlayer")
        choices = dict(player.objects.values_list("user__username", "auto_draw"))
        assert choices == {"on": "pile_closed", "off": "off"}

        player.objects.filter(user__username="on").update(auto_draw="always")
        apps = migrate_to(BEFORE)
        player = apps.get_model("mailplay", "MailPlayer")
        switches = dict(player.objects.values_list("user__username", "auto_draw"))
        assert switches == {"on": True, "off": False}
    finally:
        migrate_latest()
