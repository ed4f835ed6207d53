import pytest
from django.core import mail

from games.services.errors import GameError
from notifications.models import NotificationPreference, OutboxStatus
from notifications.services.outbox import outbox_deliver
from notifications.services.preferences import email_skip_reason, preference_update
from tests.notifications.helpers import enqueue


def test_a_user_without_preferences_gets_every_turn_mail(people):
    alice = people["alice"]
    assert email_skip_reason(recipient=alice, kind="your_turn") is None
    assert email_skip_reason(recipient=alice, kind="digest") is not None


def test_mode_none_writes_the_row_as_skipped_and_sends_nothing(people, queued):
    alice = people["alice"]
    preference_update(user=alice, email_mode="none")

    row = enqueue(alice, kind="your_turn")

    assert row.status == OutboxStatus.SKIPPED
    assert "email_mode=none" in row.last_error
    assert outbox_deliver(row.pk) is None
    assert queued == []
    assert len(mail.outbox) == 0


@pytest.mark.parametrize(
    ("kind", "sent"),
    [
        ("your_turn", False),
        ("reminder", False),
        ("hand_over", False),
        ("timeout", True),
        ("match_over", True),
        ("digest", True),
    ],
)
def test_mode_digest_replaces_the_per_turn_mails(people, kind, sent):
    bob = people["bob"]
    preference_update(user=bob, email_mode="digest")
    row = enqueue(bob, kind=kind)
    assert (row.status == OutboxStatus.PENDING) is sent


def test_a_preference_changed_after_the_event_is_respected_at_delivery(people):
    carol = people["carol"]
    row = enqueue(carol, kind="your_turn")
    preference_update(user=carol, email_mode="none")

    assert outbox_deliver(row.pk) == OutboxStatus.SKIPPED
    assert len(mail.outbox) == 0


def test_a_user_without_an_email_address_is_skipped(people):
    dave = people["dave"]
    dave.email = ""
    dave.save()
    row = enqueue(dave)
    assert row.status == OutboxStatus.SKIPPED
    assert "no email address" in row.last_error


def test_preference_update_checks_its_values(people):
    alice = people["alice"]
    with pytest.raises(GameError) as mode_error:
        preference_update(user=alice, email_mode="sometimes")
    with pytest.raises(GameError) as hour_error:
        preference_update(user=alice, digest_hour=24)
    assert mode_error.value.code == "invalid_email_mode"
    assert hour_error.value.code == "invalid_digest_hour"

    preference_update(user=alice, email_mode="digest", digest_hour=18)
    saved = NotificationPreference.objects.get(user=alice)
    assert (saved.email_mode, saved.digest_hour) == ("digest", 18)
