"""The session engine keeps each session's account beside it (accounts.models.UserSession):
an account's sessions are found by an index, and the sessions Django's own table held
before are carried over by migration without signing anybody out."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import SessionStore, UserSession
from accounts.services.deletion import account_delete
from tests.game_fixtures import PASSWORD
from tests.migrations import migrate_latest, migrate_to

pytestmark = pytest.mark.django_db

BEFORE = [("accounts", "0001_user_sessions"), ("sessions", "0001_initial")]


def _signed_in(user) -> Client:
    browser = Client()
    browser.force_login(user)
    return browser


def test_a_signed_in_session_records_its_account_and_an_anonymous_one_none(cast):
    _signed_in(cast["alice"])
    anonymous = SessionStore()
    anonymous["django_language"] = "de"
    anonymous.save()
    rows = dict(UserSession.objects.values_list("session_key", "user_id"))
    assert rows[anonymous.session_key] is None
    assert sorted(v for v in rows.values() if v is not None) == [cast["alice"].pk]


def test_signing_in_on_an_anonymous_session_records_the_account(cast):
    browser = Client()
    assert browser.get("/").status_code in (200, 302)
    assert browser.login(username="bob", password=PASSWORD)
    assert UserSession.objects.filter(user_id=cast["bob"].pk).count() == 1


def test_deleting_an_account_ends_its_sessions_only_and_by_its_index(cast):
    bob, alice = cast["bob"], cast["alice"]
    phone, laptop, hers = _signed_in(bob), _signed_in(bob), _signed_in(alice)
    assert phone.get("/api/v1/me/").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        account_delete(user=bob, password=PASSWORD)
    reads = [q["sql"] for q in queries if "accounts_session" in q["sql"]]
    # One statement on the sessions, by account: no session is read and decoded.
    assert len(reads) == 1 and reads[0].startswith("DELETE") and "user_id" in reads[0]
    assert not UserSession.objects.filter(user_id=bob.pk).exists()
    assert laptop.get("/api/v1/me/").status_code == 401
    assert hers.get("/api/v1/me/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_migration_carries_the_old_sessions_over_and_back(django_user_model):
    old_apps = migrate_to(BEFORE)
    try:
        user = django_user_model.objects.create_user("carla", password="x")
        store = SessionStore()
        signed_in = store.encode({"_auth_user_id": str(user.pk), "_auth_user_hash": "h"})
        Session = old_apps.get_model("sessions", "Session")
        later = timezone.now() + timedelta(days=3)
        Session.objects.create(session_key="k" * 32, session_data=signed_in, expire_date=later)
        Session.objects.create(
            session_key="a" * 32, session_data=store.encode({}), expire_date=later
        )
        Session.objects.create(
            session_key="x" * 32, session_data="spoiled", expire_date=timezone.now()
        )
        migrate_to([("accounts", "0002_sessions_copied")])
        rows = {s.session_key: s for s in UserSession.objects.all()}
        assert set(rows) == {"k" * 32, "a" * 32}  # the expired one is not carried
        assert rows["k" * 32].user_id == user.pk and rows["a" * 32].user_id is None
        assert rows["k" * 32].get_decoded()["_auth_user_id"] == str(user.pk)  # still reads
        back = migrate_to(BEFORE)
        kept = back.get_model("sessions", "Session").objects.values_list("session_key", flat=True)
        assert sorted(kept) == ["a" * 32, "k" * 32]
    finally:
        migrate_latest()
        get_user_model().objects.all().delete()
