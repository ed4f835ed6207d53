"""The inbound webhook: Postmark's JSON through django-anymail, with HTTP basic auth."""

import base64
import json

import pytest

from games.models import Move
from mailplay.models import InboundMessage
from tests.mailplay.conftest import deliver, mails_to
from tests.mailplay.helpers import a_discard, reply

URL = "/mail/inbound/postmark/"
SECRET = "postmark:a-long-inbound-secret"


@pytest.fixture
def turn(game, settings):
    settings.CANASTA_INBOUND_SECRET = SECRET
    deliver()
    return mails_to("alice@example.com")[-1]


def _auth(secret=SECRET):
    return "Basic " + base64.b64encode(secret.encode()).decode()


def _raw_event(raw: bytes, *, return_path="<alice@example.com>"):
    return {
        "FromFull": {"Email": "alice@example.com", "Name": "Alice"},
        "ToFull": [{"Email": "ignored@example.com", "Name": ""}],
        "Subject": "Re: your turn",
        "MessageID": "5b8f0c1e-0000-4000-8000-000000000001",
        "Headers": [{"Name": "Return-Path", "Value": return_path}],
        "RawEmail": raw.decode("utf-8"),
    }


def _post(client, event, auth=None):
    headers = {"HTTP_AUTHORIZATION": auth} if auth else {}
    return client.post(URL, data=json.dumps(event), content_type="application/json", **headers)


def test_it_plays_a_reply_posted_by_the_provider(client, turn):
    response = _post(client, _raw_event(reply(turn, "draw")), _auth())

    assert response.status_code == 200
    row = InboundMessage.objects.get()
    assert (row.status, row.reason, row.source) == ("processed", "applied", "webhook")
    assert Move.objects.count() == 1
    deliver()
    assert "Applied: draw." in mails_to("alice@example.com")[-1].body


def test_postmarks_parsed_fields_work_without_the_raw_email(client, turn):
    event = {
        "FromFull": {"Email": "alice@example.com", "Name": "Alice"},
        "ToFull": [{"Email": turn.reply_to[0], "Name": ""}],
        "Subject": "Re: your turn",
        "MessageID": "5b8f0c1e-0000-4000-8000-000000000002",
        "Headers": [
            {"Name": "Return-Path", "Value": "<alice@example.com>"},
            {"Name": "Message-ID", "Value": "<parsed-1@example.com>"},
        ],
        "TextBody": "status\n\nOn Sunday Canasta wrote:\n> WHAT YOU CAN DO NOW\n>   draw\n",
    }
    assert _post(client, event, _auth()).status_code == 200
    assert InboundMessage.objects.get().reason == "status"


def test_a_bounce_posted_by_the_provider_is_ignored(client, turn):
    response = _post(client, _raw_event(reply(turn, "draw"), return_path="<>"), _auth())
    assert response.status_code == 200
    assert InboundMessage.objects.get().reason == "bounce"
    assert Move.objects.count() == 0


@pytest.mark.parametrize("auth", [None, "postmark:wrong", "Bearer x"])
def test_without_the_right_credentials_nothing_is_read(client, turn, auth):
    header = _auth(auth) if auth and ":" in auth else auth
    response = _post(client, _raw_event(reply(turn, "draw")), header)

    assert response.status_code == 400
    assert InboundMessage.objects.count() == 0 and Move.objects.count() == 0


def test_without_a_configured_secret_the_webhook_is_off(client, turn, settings):
    settings.CANASTA_INBOUND_SECRET = ""
    response = _post(client, _raw_event(reply(turn, "draw")), _auth())
    assert response.status_code == 403
    assert InboundMessage.objects.count() == 0


def test_get_is_not_allowed(client, turn):
    assert client.get(URL, HTTP_AUTHORIZATION=_auth()).status_code == 405


def test_a_reply_to_an_earlier_turn_posted_by_the_provider_is_refused(client, turn):
    assert _post(client, _raw_event(reply(turn, "draw")), _auth()).status_code == 200
    deliver()
    answer = mails_to("alice@example.com")[-1]
    discard = a_discard(answer.body)
    assert _post(client, _raw_event(reply(answer, discard)), _auth()).status_code == 200
    assert Move.objects.count() == 2

    response = _post(client, _raw_event(reply(turn, "draw")), _auth())

    assert response.status_code == 200
    row = InboundMessage.objects.order_by("-id").first()
    assert (row.status, row.reason, row.source) == ("refused", "earlier_turn", "webhook")
    assert Move.objects.count() == 2
    deliver()
    assert "earlier turn" in mails_to("alice@example.com")[-1].body


def test_an_unclear_from_posted_by_the_provider_is_refused_unanswered(client, turn):
    raw = reply(turn, "draw").replace(
        b"From: Player <alice@example.com>", b"From: alice@example.com)<eve@evil.example>"
    )
    deliver()
    sent = len(mails_to("alice@example.com"))

    assert _post(client, _raw_event(raw), _auth()).status_code == 200

    row = InboundMessage.objects.get()
    assert (row.status, row.reason) == ("refused", "from_invalid")
    deliver()
    assert Move.objects.count() == 0 and len(mails_to("alice@example.com")) == sent
