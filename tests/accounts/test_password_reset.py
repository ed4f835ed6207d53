"""Password reset by email, through the API and the pages; mails read from mail.outbox."""

from urllib.parse import urlparse

import pytest
from django.core import mail
from django.test import Client
from rest_framework.throttling import SimpleRateThrottle

from accounts import tasks
from clients.models import ApiToken
from notifications.models import Outbox, OutboxKind
from notifications.services.preferences import preference_update
from tests.accounts.conftest import link_in, mails_to
from tests.api.helpers import code_of
from tests.game_fixtures import PASSWORD, client_for

RESET = "/api/v1/auth/password/reset/"
CONFIRM = "/api/v1/auth/password/reset/confirm/"
NEW = "a-brand-new-password-77"


def _uid_token(message):
    parts = urlparse(link_in(message, "/password/reset/")).path.strip("/").split("/")
    return parts[-2], parts[-1]


def test_the_same_answer_whether_or_not_the_address_has_an_account(cast, monkeypatch):
    handed = []
    real = tasks.password_reset_mail.delay
    monkeypatch.setattr(
        tasks.password_reset_mail, "delay", lambda e: (handed.append(e), real(e))[1]
    )
    anonymous = client_for(None)
    known = anonymous.post(RESET, {"email": "ALICE@example.com"}, format="json")
    unknown = anonymous.post(RESET, {"email": "nobody@example.com"}, format="json")
    assert known.status_code == unknown.status_code == 202
    assert known.json() == unknown.json()
    # Both went the same way: handed to the background task, decided there.
    assert handed == ["ALICE@example.com", "nobody@example.com"]
    assert [m.to for m in mails_to("@")] == [["alice@example.com"]]


def test_reset_through_the_api_sets_the_password_and_revokes_account_tokens(cast):
    alice = cast["alice"]
    old_client = client_for(alice)
    assert old_client.get("/api/v1/me/").status_code == 200
    client_for(None).post(RESET, {"email": "alice@example.com"}, format="json")
    (message,) = mails_to("alice@example.com")
    assert "Reset your password" in message.subject and "alice" in message.body
    uid, token = _uid_token(message)
    # The link is made when the mail is sent: the stored payload holds no token.
    row = Outbox.objects.get(kind=OutboxKind.PASSWORD_RESET)
    assert token not in str(row.payload)

    answer = client_for(None).post(
        CONFIRM, {"uid": uid, "token": token, "new_password": NEW}, format="json"
    )
    assert answer.status_code == 200, answer.json()
    alice.refresh_from_db()
    assert alice.check_password(NEW)
    assert old_client.get("/api/v1/me/").status_code == 401
    assert not ApiToken.objects.filter(owner=alice, kind="account", revoked_at=None).exists()
    again = client_for(None).post(
        CONFIRM, {"uid": uid, "token": token, "new_password": NEW + "x"}, format="json"
    )
    assert code_of(again, 400) == "invalid_token"


def test_a_weak_password_is_refused_and_nothing_changes(cast):
    client_for(None).post(RESET, {"email": "bob@example.com"}, format="json")
    uid, token = _uid_token(mails_to("bob@example.com")[0])
    answer = client_for(None).post(
        CONFIRM, {"uid": uid, "token": token, "new_password": "123"}, format="json"
    )
    assert code_of(answer, 400) == "invalid_password"
    cast["bob"].refresh_from_db()
    assert not cast["bob"].check_password("123")


def test_reset_mail_ignores_the_email_mode_and_an_unconfirmed_address(cast):
    carol = cast["carol"]
    preference_update(user=carol, email_mode="none")
    from notifications.models import NotificationPreference

    NotificationPreference.objects.filter(user=carol).update(email_pending=True)
    client_for(None).post(RESET, {"email": "carol@example.com"}, format="json")
    assert len(mails_to("carol@example.com")) == 1


def test_reset_requests_are_throttled_per_client_address(cast, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "password_reset", "2/hour")
    anonymous = client_for(None)
    codes = [
        anonymous.post(RESET, {"email": "x@example.com"}, format="json").status_code
        for _ in range(3)
    ]
    assert codes == [202, 202, 429]
    page = Client().post("/password/reset/", {"email": "x@example.com"})
    assert page.status_code == 429


def test_mails_per_account_are_bounded(cast):
    for _ in range(5):
        client_for(None).post(RESET, {"email": "dave@example.com"}, format="json")
    assert len(mails_to("dave@example.com")) == 3


@pytest.mark.django_db
def test_reset_through_the_pages(cast):
    browser = Client()
    assert "Forgot your password?" in browser.get("/login/").content.decode()
    assert browser.get("/password/reset/").status_code == 200
    sent = browser.post("/password/reset/", {"email": "eve@example.com"})
    assert sent.status_code == 302 and sent["Location"] == "/password/reset/sent/"
    assert "If an account uses this address" in browser.get(sent["Location"]).content.decode()
    link = link_in(mails_to("eve@example.com")[0], "/password/reset/")
    path = urlparse(link).path
    # Django's view moves the token into the session and shows the form at set-password/.
    landing = browser.get(path)
    assert landing.status_code == 302
    form_page = browser.get(landing["Location"])
    assert "Choose a new password" in form_page.content.decode()
    done = browser.post(landing["Location"], {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302 and done["Location"] == "/password/reset/complete/"
    assert Client().login(username="eve", password=NEW)
    # The link is spent.
    spent = browser.get(path, follow=True)
    assert "This link does not work" in spent.content.decode()
    assert len(mail.outbox) == 1


def test_a_sign_in_through_the_api_spends_a_reset_link_as_a_web_sign_in_does(cast):
    # Issue 26, item 10: the API's sign-in left the link working.
    client_for(None).post(RESET, {"email": "alice@example.com"}, format="json")
    uid, token = _uid_token(mails_to("alice@example.com")[0])
    signed_in = client_for(None).post(
        "/api/v1/auth/token/", {"username": "alice", "password": PASSWORD}, format="json"
    )
    assert signed_in.status_code == 200
    spent = client_for(None).post(
        CONFIRM, {"uid": uid, "token": token, "new_password": NEW}, format="json"
    )
    assert code_of(spent, 400) == "invalid_token"
