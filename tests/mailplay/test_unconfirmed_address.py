"""Play by email from an address that is not confirmed: refused, with the explanation and a
new confirmation link (the one mail such an address may get); turn emails wait for it."""

from games.models import Move
from mailplay.models import InboundMessage
from notifications.models import NotificationPreference, Outbox, OutboxStatus
from tests.game_fixtures import start_game
from tests.mailplay.conftest import deliver, mails_to, receive
from tests.mailplay.helpers import reply

ALICE = "alice@example.com"


def test_a_move_from_an_unconfirmed_address_is_refused_and_explained(game, people):
    deliver()
    turn = mails_to(ALICE)[-1]
    NotificationPreference.objects.update_or_create(
        user=people["alice"], defaults={"email_pending": True}
    )
    status = receive(reply(turn, "draw"))
    assert "refused" in status
    assert InboundMessage.objects.get().reason == "address_unconfirmed"
    assert not Move.objects.filter(game=game).exists()
    deliver()
    explanation = mails_to(ALICE)[-1]
    assert "Confirm your email address" in explanation.subject
    assert "the move was not played" in explanation.body
    assert "/account/confirm/" in explanation.body


def test_no_turn_email_goes_to_an_unconfirmed_address(people):
    NotificationPreference.objects.create(user=people["alice"], email_pending=True)
    start_game(people)
    deliver()
    assert mails_to(ALICE) == []
    row = Outbox.objects.get(recipient=people["alice"])
    assert row.status == OutboxStatus.SKIPPED
    assert row.last_error == "the email address is not confirmed yet"
