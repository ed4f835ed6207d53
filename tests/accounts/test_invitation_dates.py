"""An invitation's expiry in the zone its reader lives in, as their language writes it: the
email to an address without an account in the inviter's zone and language, and the
invitation page for a visitor in the zone of the page language's country (docs/i18n.md)."""

from __future__ import annotations

import re
from datetime import UTC
from typing import Any

from django.test import Client

from games import l10n
from games.models import Invitation
from notifications.services.preferences import preference_update, zone_named
from tests.accounts.conftest import link_in, mails_to
from tests.game_fixtures import client_for

FRIEND = "freundin@example.org"
BERLIN = zone_named("Europe/Berlin")


def _invite(alice: Any) -> Invitation:
    answer = client_for(alice).post(
        "/api/v1/games/",
        {"variant": "classic", "players": 2, "invite_emails": [FRIEND]},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    return Invitation.objects.get()


def test_the_invitation_tells_its_expiry_in_berlin_time_in_german(cast: dict[str, Any]) -> None:
    preference_update(user=cast["alice"], language="de", time_zone="Europe/Berlin")
    invitation = _invite(cast["alice"])
    expiry = l10n.moment(invitation.expires_at, "de", BERLIN, year=True)
    assert re.search(r" ME(S)?Z$", expiry)
    (message,) = mails_to(FRIEND)
    assert expiry in message.body, message.body
    assert "UTC" not in message.body

    page = Client(HTTP_ACCEPT_LANGUAGE="de").get(link_in(message, "/invitations/"))
    assert expiry in page.content.decode()


def test_a_visitor_reading_english_still_gets_utc(cast: dict[str, Any]) -> None:
    invitation = _invite(cast["alice"])
    (message,) = mails_to(FRIEND)
    page = Client().get(link_in(message, "/invitations/")).content.decode()
    assert l10n.moment(invitation.expires_at, "en", UTC, year=True) in page
