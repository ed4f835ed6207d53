"""Verified addresses: sign-up and changes get a confirmation link; until it is opened the
address gets nothing else; two accounts cannot share a verified address."""

from importlib import import_module

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.test import Client

from notifications.models import NotificationPreference, OutboxKind
from notifications.services.preferences import email_skip_reason
from tests.accounts.conftest import link_in, mails_to
from tests.api.helpers import code_of
from tests.game_fixtures import client_for

REGISTER = "/api/v1/auth/register/"
PASSWORD = "a-long-enough-password-42"


def _register(username, email):
    return client_for(None).post(
        REGISTER, {"username": username, "password": PASSWORD, "email": email}, format="json"
    )


def _token(message):
    return link_in(message, "/account/confirm/").rstrip("/").rsplit("/", 1)[-1]


def test_an_api_sign_up_is_pending_until_the_link_is_opened(db):
    assert _register("frida", "Frida@Example.com").status_code == 201
    frida = get_user_model().objects.get(username="frida")
    assert email_skip_reason(recipient=frida, kind=OutboxKind.YOUR_TURN) == (
        "the email address is not confirmed yet"
    )
    assert email_skip_reason(recipient=frida, kind=OutboxKind.DIGEST) is not None
    me = client_for(frida).get("/api/v1/me/").json()
    assert me == {"username": "frida", "email": "Frida@example.com", "email_confirmed": False}
    (message,) = mails_to("Frida@example.com")
    assert "Confirm your email address" in message.subject
    confirmed = client_for(None).post(
        "/api/v1/me/email/confirm/", {"token": _token(message)}, format="json"
    )
    assert confirmed.status_code == 200 and confirmed.json()["email_confirmed"] is True
    assert email_skip_reason(recipient=frida, kind=OutboxKind.YOUR_TURN) is None
    assert NotificationPreference.objects.get(user=frida).email_verified == "frida@example.com"


def test_a_web_sign_up_confirms_by_clicking_the_link(db):
    browser = Client()
    signed_up = browser.post(
        "/signup/",
        {
            "username": "gudrun",
            "email": "gudrun@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert signed_up.status_code == 302
    page = browser.get("/settings/").content.decode()
    assert "is not confirmed yet" in page
    link = link_in(mails_to("gudrun@example.com")[0], "/account/confirm/")
    opened = browser.get(link.replace("http://127.0.0.1:8000", ""))
    assert opened.status_code == 302
    assert "gudrun@example.com is confirmed" in browser.get("/settings/").content.decode()


def test_a_verified_address_cannot_be_taken_by_another_account(db):
    _register("frida", "frida@example.com")
    frida = get_user_model().objects.get(username="frida")
    client_for(None).post(
        "/api/v1/me/email/confirm/",
        {"token": _token(mails_to("frida@example.com")[0])},
        format="json",
    )
    # Sign-up: a generic refusal that names no account.
    refused = _register("hans", "FRIDA@example.com")
    assert refused.status_code == 400
    assert "frida" not in refused.content.decode().lower().replace("frida@example.com", "")
    page = Client().post(
        "/signup/",
        {
            "username": "hans",
            "email": "frida@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert page.status_code == 400 and "cannot be used for a new account" in page.content.decode()
    # A change of address: the same.
    _register("ingrid", "ingrid@example.com")
    ingrid = get_user_model().objects.get(username="ingrid")
    answer = client_for(ingrid).patch("/api/v1/me/", {"email": "Frida@example.com"}, format="json")
    assert code_of(answer, 409) == "email_unavailable"
    # And the database itself refuses a second verified copy.
    with pytest.raises(IntegrityError), transaction.atomic():
        NotificationPreference.objects.filter(user=ingrid).update(
            email_verified="frida@example.com"
        )
    assert frida.email == "frida@example.com"


def test_changing_the_address_needs_a_new_confirmation(cast):
    alice = cast["alice"]
    assert email_skip_reason(recipient=alice, kind=OutboxKind.YOUR_TURN) is None
    answer = client_for(alice).patch("/api/v1/me/", {"email": "alice@new.example"}, format="json")
    assert answer.json() == {
        "username": "alice",
        "email": "alice@new.example",
        "email_confirmed": False,
    }
    assert email_skip_reason(recipient=alice, kind=OutboxKind.YOUR_TURN) is not None
    (message,) = mails_to("alice@new.example")
    # Send again: at most once a minute.
    resend = client_for(alice).post("/api/v1/me/email/resend/")
    assert resend.status_code == 202 and resend.json() == {"sent": False}
    client_for(None).post("/api/v1/me/email/confirm/", {"token": _token(message)}, format="json")
    alice.refresh_from_db()
    assert email_skip_reason(recipient=alice, kind=OutboxKind.YOUR_TURN) is None


def test_settings_change_the_address_and_send_the_link_again(cast):
    browser = Client()
    browser.force_login(cast["bob"])
    saved = browser.post("/settings/", {"form": "email", "email": "bob@new.example"}, follow=True)
    assert "open it to confirm the address" in saved.content.decode()
    assert len(mails_to("bob@new.example")) == 1


def test_an_old_link_after_another_change_explains_itself(cast):
    alice = cast["alice"]
    client_for(alice).patch("/api/v1/me/", {"email": "one@example.com"}, format="json")
    old = mails_to("one@example.com")[0]
    client_for(alice).patch("/api/v1/me/", {"email": "two@example.com"}, format="json")
    page = Client().get(f"/account/confirm/{_token(old)}/")
    assert page.status_code == 400
    assert "no longer uses" in page.content.decode()
    assert Client().get("/account/confirm/garbage/").status_code == 400


def test_existing_addresses_count_as_verified_oldest_account_first(db):
    model = get_user_model()
    first = model.objects.create_user(username="first", email="Same@example.com")
    second = model.objects.create_user(username="second", email="same@EXAMPLE.com")
    alone = model.objects.create_user(username="alone", email="alone@example.com")
    migration = import_module("notifications.migrations.0005_verified_addresses_and_account_mail")
    migration.existing_addresses_verified(apps, None)
    preferences = {p.user_id: p for p in NotificationPreference.objects.all()}
    assert preferences[first.pk].email_verified == "same@example.com"
    assert not preferences[first.pk].email_pending
    assert preferences[second.pk].email_pending and preferences[second.pk].email_verified is None
    assert preferences[alone.pk].email_verified == "alone@example.com"


def test_address_changes_are_bounded_per_day(cast):
    client = client_for(cast["dave"])
    codes = [
        client.patch("/api/v1/me/", {"email": f"dave{i}@example.com"}, format="json").status_code
        for i in range(11)
    ]
    assert codes == [200] * 10 + [409]


# --- PATCH /me/ reveals nothing of other accounts (issue 26, finding 6) -------------------


def test_past_the_days_changes_a_taken_and_a_free_address_get_the_same_answer(cast):
    client = client_for(cast["dave"])
    for i in range(10):
        client.patch("/api/v1/me/", {"email": f"dave{i}@example.com"}, format="json")
    taken = client.patch("/api/v1/me/", {"email": "alice@example.com"}, format="json")
    free = client.patch("/api/v1/me/", {"email": "nobody-has-it@example.com"}, format="json")
    assert code_of(taken, 409) == code_of(free, 409) == "too_many_changes"
    assert taken.json() == free.json()


def test_refusals_for_a_taken_address_count_against_the_days_changes(cast):
    client = client_for(cast["dave"])
    # Probing which addresses have accounts: each refusal is one of the day's ten changes.
    answers = [
        code_of(client.patch("/api/v1/me/", {"email": "alice@example.com"}, format="json"), 409)
        for _ in range(11)
    ]
    assert answers == ["email_unavailable"] * 10 + ["too_many_changes"]
    assert mails_to("alice@example.com") == []
