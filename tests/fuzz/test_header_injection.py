"""Header injection: nothing a user types may start a new line in an email header (subjects,
To, Reply-To) or in a log line, and mail already stored with such data cannot send an
injected header nor stop the outbox's batch."""

from __future__ import annotations

import base64

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from clients.models import ApiToken, Webhook
from mailplay.models import InboundMessage
from notifications import tasks
from notifications.models import Outbox, OutboxStatus
from notifications.services.outbox import outbox_enqueue, outbox_sweep
from tests.api.helpers import error_of
from tests.game_fixtures import PASSWORD, client_for

# CR/LF (the injection itself), each alone, and the other characters that end a line or
# hide text somewhere: NUL, TAB, ESC, DEL, NEL, the Unicode line and paragraph separators.
BREAKS = ["\r\n", "\n", "\r", "\x00", "\t", "\x1b", "\x7f", "\x85", "\u2028", "\u2029"]
INJECTED = "Bcc: victim@example.org"


def _injected(value: str, brk: str) -> str:
    return f"{value}{brk}{INJECTED}"


def _people() -> list[tuple[str, str]]:
    return sorted(get_user_model().objects.values_list("username", "email"))


@pytest.fixture(autouse=True)
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    # No Celery in unit tests: the outbox is delivered by outbox_sweep() below.
    monkeypatch.setattr(tasks.deliver_outbox, "delay", lambda outbox_id: None)


@pytest.mark.parametrize("brk", BREAKS, ids=repr)
@pytest.mark.parametrize("field", ["username", "email"])
def test_the_api_sign_up_refuses_line_breaks(db, field, brk):
    body = {"username": "zoe", "password": PASSWORD, "email": "zoe@example.org"}
    body[field] = _injected(body[field], brk)

    response = client_for(None).post("/api/v1/auth/register/", body, format="json")

    error = error_of(response, 400)
    if brk == "\x00":  # no column can store it: refused at the edge (api/middleware.py)
        assert error["code"] == "malformed_request" and error["details"]["part"] == "body"
    else:
        assert error["code"] == "invalid_request"
        assert field in error["details"]["fields"]
    assert _people() == []


@pytest.mark.parametrize("brk", BREAKS, ids=repr)
@pytest.mark.parametrize("field", ["username", "email"])
def test_the_web_sign_up_refuses_line_breaks(db, field, brk):
    data = {
        "username": "zoe",
        "email": "zoe@example.org",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    data[field] = _injected(data[field], brk)

    response = Client().post("/signup/", data)

    assert response.status_code == 400
    if brk == "\x00":  # refused at the edge, before the form (api/middleware.py)
        assert b"cannot be stored" in response.content
    else:
        assert response.context["form"].errors[field]
    assert _people() == []


@pytest.mark.parametrize("brk", BREAKS, ids=repr)
def test_the_settings_page_refuses_an_email_address_with_line_breaks(users, brk):
    client = Client()
    client.force_login(users["alice"])
    before = _people()

    response = client.post(
        "/settings/", {"form": "email", "email": _injected("alice@example.org", brk)}
    )

    if brk == "\x00":  # refused at the edge, before the form (api/middleware.py)
        assert response.status_code == 400 and b"cannot be stored" in response.content
    else:
        assert response.context["email_form"].errors["email"]
    assert _people() == before


@pytest.mark.parametrize("brk", BREAKS, ids=repr)
@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("post", "/api/v1/webhooks/", {"url": "https://hooks.example.org/x"}, "url"),
        ("patch", "/api/v1/webhooks/{hook}/", {"url": "https://hooks.example.org/x"}, "url"),
        ("post", "/api/v1/tokens/", {"name": "my bot", "scopes": ["read"]}, "name"),
        ("post", "/api/v1/games/", {"variant": "classic", "players": 4, "invite": []}, "invite"),
    ],
)
def test_the_api_refuses_line_breaks_in_what_it_stores(
    users, fuzz_settings, brk, method, path, body, field
):
    from clients.services.webhooks import webhook_create

    alice = users["alice"]
    hook = webhook_create(owner=alice, url="https://hooks.example.org/canasta")[0]
    body = dict(body)
    if field == "invite":
        body["invite"] = [_injected("bob", brk)]
    else:
        # In the middle too: urlsplit drops CR, LF and TAB anywhere in a URL.
        body[field] = _injected(body[field], brk)
    before = (Webhook.objects.count(), ApiToken.objects.count(), hook.url)

    response = getattr(client_for(alice), method)(path.format(hook=hook.pk), body, format="json")

    assert 400 <= response.status_code < 500
    error_of(response, response.status_code)
    hook.refresh_from_db()
    assert (Webhook.objects.count(), ApiToken.objects.count(), hook.url) == before


def test_stored_bad_data_cannot_inject_a_header_nor_stop_the_batch(users, settings):
    """Rows written before validation existed (or by a bug): Django refuses to build a header
    with a line break (BadHeaderError); the row fails alone, at its first attempt (no retry
    could send it), and the next row is sent."""
    settings.CANASTA_OUTBOX_MAX_ATTEMPTS = 5
    model = get_user_model()
    model.objects.filter(pk=users["alice"].pk).update(email=_injected("alice@example.org", "\n"))
    model.objects.filter(pk=users["bob"].pk).update(email="bob@example.org")
    model.objects.filter(pk=users["carol"].pk).update(email="carol@example.org")
    alice, bob, carol = (model.objects.get(username=n) for n in ("alice", "bob", "carol"))
    bad_address = outbox_enqueue(
        recipient=alice, kind="email_reply", payload={"subject": "Hi", "text": "x"}, key="a"
    )
    bad_subject = outbox_enqueue(
        recipient=bob,
        kind="email_reply",
        payload={"subject": _injected("Hi", "\r\n"), "text": "x"},
        key="b",
    )
    good = outbox_enqueue(
        recipient=carol, kind="email_reply", payload={"subject": "Hi", "text": "x"}, key="c"
    )

    sent = outbox_sweep()

    assert sent == 1
    assert [m.to for m in mail.outbox] == [["carol@example.org"]]
    assert all(INJECTED not in m.message().as_string() for m in mail.outbox)
    statuses = dict(Outbox.objects.values_list("pk", "status"))
    assert statuses[good.pk] == OutboxStatus.SENT
    assert statuses[bad_address.pk] == OutboxStatus.FAILED
    assert statuses[bad_subject.pk] == OutboxStatus.FAILED
    assert "BadHeaderError" in Outbox.objects.get(pk=bad_subject.pk).last_error
    assert {Outbox.objects.get(pk=row.pk).attempts for row in (bad_address, bad_subject)} == {1}


SECRET = "postmark:a-long-inbound-secret"


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "application/json"),
        (b'{"a": "\xff\xfe"}', "application/json"),
        (b"[1, 2]", "application/json"),
        (b'"text"', "application/json"),
        (b"null", "application/json"),
        (b"{", "application/json"),
        (b"not json", "text/plain"),
        (b'{"FromFull": 1, "Headers": "x"}', "application/json"),
    ],
    ids=["deep", "utf8", "list", "string", "null", "truncated", "text", "wrong_types"],
)
def test_the_inbound_mail_webhook_refuses_bad_bodies_cleanly(db, settings, body, content_type):
    settings.CANASTA_INBOUND_SECRET = SECRET
    auth = "Basic " + base64.b64encode(SECRET.encode()).decode()

    response = Client().post(
        "/mail/inbound/postmark/", data=body, content_type=content_type, HTTP_AUTHORIZATION=auth
    )

    assert 400 <= response.status_code < 500
    assert InboundMessage.objects.count() == 0
    assert mail.outbox == []


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"email=" + b"a" * (300 * 1024), "application/x-www-form-urlencoded"),
        (b"&".join(b"f%d=1" % n for n in range(1000)), "application/x-www-form-urlencoded"),
        (b"form=email&email=\xff\xfe@example.org", "application/x-www-form-urlencoded"),
        (b"--x\r\nnonsense", "multipart/form-data; boundary=x"),
        (b'{"email": "a@example.org"}', "application/json"),
    ],
    ids=["oversized", "too_many_fields", "invalid_utf8", "broken_multipart", "json"],
)
@pytest.mark.parametrize("path", ["/signup/", "/settings/"])
def test_the_web_forms_that_reach_email_refuse_bad_bodies_cleanly(users, path, body, content_type):
    client = Client()
    if path == "/settings/":
        client.force_login(users["alice"])
    before = _people()

    response = client.post(path, data=body, content_type=content_type)

    # 400: Django refused to read the body, or the form had errors; 200: a body without any
    # of the form's fields, the empty form shown again.
    assert response.status_code in (200, 400)
    assert _people() == before
