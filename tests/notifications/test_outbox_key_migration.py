"""notifications 0014: an outbox row's key becomes its digest, and an event enqueued again
after the upgrade still finds its row; the way back writes the digest in hex."""

from __future__ import annotations

import pytest

from games.fields import digest
from tests.migrations import migrate_latest, migrate_to

BEFORE = [("notifications", "0013_outbox_shared_partial_index")]
AFTER = [("notifications", "0014_outbox_key_digest")]


@pytest.mark.django_db(transaction=True)
def test_keys_become_digests_and_still_dedupe() -> None:
    try:
        apps = migrate_to(BEFORE)
        user = apps.get_model("auth", "User").objects.create(username="o1")
        outbox = apps.get_model("notifications", "Outbox")
        for key in ("g:3:1:your_turn", "digest:1:2026-12-01"):
            outbox.objects.create(recipient_id=user.pk, kind="your_turn", key=key, payload={})

        migrate_to(AFTER)
        from django.contrib.auth import get_user_model

        from notifications.models import Outbox
        from notifications.services.outbox import outbox_enqueue

        assert set(Outbox.objects.values_list("key", flat=True)) == {
            digest("g:3:1:your_turn"),
            digest("digest:1:2026-12-01"),
        }
        recipient = get_user_model().objects.get(pk=user.pk)
        again = outbox_enqueue(
            recipient=recipient, kind="digest", payload={}, key="digest:1:2026-12-01"
        )
        assert again is None and Outbox.objects.count() == 2

        apps = migrate_to(BEFORE)
        keys = set(apps.get_model("notifications", "Outbox").objects.values_list("key", flat=True))
        assert keys == {digest("g:3:1:your_turn").hex(), digest("digest:1:2026-12-01").hex()}
    finally:
        migrate_latest()
