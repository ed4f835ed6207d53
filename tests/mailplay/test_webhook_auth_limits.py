"""Wrong passwords on the inbound webhook: one log line each, no traceback, and a limit per
client address (issue 15, item 6)."""

from __future__ import annotations

import json
import logging

import pytest
from django.core.cache import cache

from mailplay.models import InboundMessage
from mailplay.views import INBOUND_AUTH_FAILURES
from tests.mailplay.helpers import reply
from tests.mailplay.test_webhook import SECRET, URL, _auth, _raw_event, turn  # noqa: F401


@pytest.fixture(autouse=True)
def no_counts_left_over():
    cache.clear()
    yield
    cache.clear()


def _post(client, turn, auth, address="203.0.113.7"):  # noqa: F811
    return client.post(
        URL,
        data=json.dumps(_raw_event(reply(turn, "draw"))),
        content_type="application/json",
        HTTP_AUTHORIZATION=auth,
        REMOTE_ADDR=address,
    )


def test_a_wrong_password_is_one_log_line_without_a_traceback(client, turn, caplog):  # noqa: F811
    caplog.set_level(logging.INFO)

    response = _post(client, turn, _auth("postmark:hunter2-guess"))

    assert response.status_code == 400
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) == 1, [r.getMessage() for r in records]
    assert records[0].exc_info is None and "203.0.113.7" in records[0].getMessage()
    assert "hunter2" not in records[0].getMessage()  # the password tried is not logged


def test_a_body_that_is_not_postmarks_is_one_log_line(client, turn, caplog):  # noqa: F811
    caplog.set_level(logging.INFO)

    response = client.post(
        URL, data=b"[1]", content_type="application/json", HTTP_AUTHORIZATION=_auth()
    )

    assert response.status_code == 400
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) == 1 and records[0].exc_info is None


def test_repeated_wrong_passwords_from_one_address_are_refused(client, turn):  # noqa: F811
    for _ in range(INBOUND_AUTH_FAILURES):
        assert _post(client, turn, _auth("postmark:guess")).status_code == 400

    # Refused from now on, the right password included: guessing stops here.
    refused = _post(client, turn, _auth())
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert InboundMessage.objects.count() == 0
    # Another address is not affected.
    assert _post(client, turn, _auth(), address="198.51.100.9").status_code == 200
    assert InboundMessage.objects.count() == 1


def test_the_right_password_does_not_count(client, turn):  # noqa: F811
    for _ in range(INBOUND_AUTH_FAILURES + 2):
        assert _post(client, turn, _auth()).status_code == 200
