"""Account tokens (POST /auth/token/) are API keys like the others: stored hashed, new at every
sign-in, revoked by any password change (web, API, admin), revocable by their owner (API and
the tokens page). Each test here failed when they were DRF authtoken keys kept in clear."""

from __future__ import annotations

import hashlib
import importlib
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from clients.models import ApiToken
from tests.api.helpers import code_of, url
from tests.clients.helpers import token_client
from tests.game_fixtures import PASSWORD, client_for

NEW_PASSWORD = "another-long-password-77"


@pytest.fixture(autouse=True)
def fresh_throttles() -> Any:
    cache.clear()
    yield
    cache.clear()


def _sign_in(password: str = PASSWORD, username: str = "alice") -> Any:
    return APIClient().post(
        "/api/v1/auth/token/", {"username": username, "password": password}, format="json"
    )


def _with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _works(key: str) -> bool:
    status = _with(key).get("/api/v1/games/").status_code
    assert status in (200, 401), status
    return status == 200


def test_every_sign_in_gets_a_new_key_stored_only_as_its_hash(users):
    first, second = _sign_in().json(), _sign_in().json()

    assert first["token"] != second["token"]
    assert _works(first["token"]) and _works(second["token"])
    for answer in (first, second):
        stored = ApiToken.objects.get(pk=answer["token_id"])
        assert stored.kind == "account" and stored.owner == users["alice"]
        assert stored.key_hash == hashlib.sha256(answer["token"].encode()).hexdigest()
    everything = str(list(ApiToken.objects.values())) + str(
        list(apps.get_model("authtoken", "Token").objects.values())
    )
    assert first["token"] not in everything and second["token"] not in everything
    assert not apps.get_model("authtoken", "Token").objects.exists()


def test_a_user_keeps_only_the_newest_account_tokens(users, settings):
    settings.CANASTA_ACCOUNT_TOKENS_PER_USER = 2
    keys = [_sign_in().json()["token"] for _ in range(3)]

    assert [_works(key) for key in keys] == [False, True, True]
    assert not _works(users["alice"].api_key)  # the fixture's, older still


def test_a_web_password_change_revokes_the_account_tokens(users):
    old_key = users["alice"].api_key
    personal = token_client(users["alice"], ["read"])
    page = Client()
    page.force_login(users["alice"])

    changed = page.post(
        "/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert changed.status_code == 302, changed.content[:500]
    assert not _works(old_key)
    assert code_of(_sign_in(PASSWORD), 400) == "invalid_credentials"
    new_key = _sign_in(NEW_PASSWORD).json()["token"]
    assert new_key != old_key and _works(new_key)
    # Personal tokens are revoked one by one, on the tokens page or the API.
    assert personal.get("/api/v1/games/").status_code == 200


def test_the_api_changes_the_password_and_rotates_the_account_token(users, game):
    alice = client_for(users["alice"])
    other = _sign_in().json()["token"]

    response = alice.post(
        "/api/v1/auth/password/",
        {"old_password": PASSWORD, "new_password": NEW_PASSWORD},
        format="json",
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert response["Cache-Control"] == "no-store"
    assert not _works(users["alice"].api_key) and not _works(other)
    assert _with(body["token"]).get(url(game)).json()["my_seat"] == 0
    assert get_user_model().objects.get(pk=users["alice"].pk).check_password(NEW_PASSWORD)


def test_a_bad_password_change_is_refused_and_changes_nothing(users):
    alice = client_for(users["alice"])
    change = "/api/v1/auth/password/"

    wrong = alice.post(change, {"old_password": "x", "new_password": NEW_PASSWORD}, format="json")
    weak = alice.post(change, {"old_password": PASSWORD, "new_password": "123"}, format="json")
    missing = alice.post(change, {}, format="json")
    personal = token_client(users["alice"], ["read", "play"]).post(
        change, {"old_password": PASSWORD, "new_password": NEW_PASSWORD}, format="json"
    )
    anonymous = APIClient().post(
        change, {"old_password": PASSWORD, "new_password": NEW_PASSWORD}, format="json"
    )

    assert code_of(wrong, 400) == "invalid_credentials"
    assert code_of(weak, 400) == "invalid_request"
    assert code_of(missing, 400) == "invalid_request"
    assert code_of(personal, 403) == "permission_denied"
    assert code_of(anonymous, 401) == "not_authenticated"
    assert _works(users["alice"].api_key)
    assert get_user_model().objects.get(pk=users["alice"].pk).check_password(PASSWORD)


def test_an_admin_setting_a_password_revokes_the_account_tokens(users):
    root = get_user_model().objects.create_superuser("root", "root@example.com", PASSWORD)
    page = Client()
    page.force_login(root)

    changed = page.post(
        f"/admin/auth/user/{users['alice'].pk}/password/",
        {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "usable_password": "true"},
    )

    assert changed.status_code == 302, changed.content[:800]
    assert not _works(users["alice"].api_key)
    assert _works(users["bob"].api_key)


def test_set_password_anywhere_revokes_the_account_tokens(users):
    # manage.py changepassword, a password reset: set_password then save.
    alice = get_user_model().objects.get(pk=users["alice"].pk)
    alice.set_password(NEW_PASSWORD)
    alice.save()

    assert not _works(users["alice"].api_key)


def test_the_owner_revokes_every_account_token_but_not_personal_ones(users):
    other = _sign_in().json()["token"]
    personal = token_client(users["alice"], ["read", "play"])
    refused = personal.post("/api/v1/auth/token/revoke/")

    response = client_for(users["alice"]).post("/api/v1/auth/token/revoke/")

    assert code_of(refused, 403) == "permission_denied"
    assert response.status_code == 200 and response.json() == {"revoked": 2}
    assert not _works(other) and not _works(users["alice"].api_key)
    assert personal.get("/api/v1/games/").status_code == 200
    assert _works(users["bob"].api_key)


def test_one_account_token_is_listed_and_revoked_like_a_personal_one(users):
    signed_in = _sign_in().json()
    alice = client_for(users["alice"])

    listed = alice.get("/api/v1/tokens/").json()["results"]
    deleted = alice.delete(f"/api/v1/tokens/{signed_in['token_id']}/")

    assert [t["kind"] for t in listed] == ["account", "account"]
    assert signed_in["token"] not in str(listed)
    assert deleted.status_code == 204
    assert not _works(signed_in["token"]) and _works(users["alice"].api_key)


def test_the_tokens_page_signs_every_program_out(users):
    other = _sign_in().json()["token"]
    page = Client()
    page.force_login(users["alice"])
    listing = page.get("/account/tokens/").content.decode()
    assert "Programs signed in with your password" in listing and other[:12] in listing

    done = page.post("/account/tokens/", {"form": "revoke_account"}, follow=True)

    assert "2 account tokens revoked" in done.content.decode()
    assert not _works(other) and not _works(users["alice"].api_key)


def test_clear_account_keys_are_hashed_by_the_migration_and_keep_working(users):
    # A key as DRF's authtoken stored it, in clear, before the migration.
    legacy = apps.get_model("authtoken", "Token").objects.create(
        user=users["bob"], key="0123456789abcdef0123456789abcdef01234567"
    )
    migration = importlib.import_module("clients.migrations.0003_account_tokens_hashed")

    migration.hash_account_keys(apps, None)

    assert not apps.get_model("authtoken", "Token").objects.exists()
    stored = ApiToken.objects.get(key_hash=hashlib.sha256(legacy.key.encode()).hexdigest())
    assert stored.kind == "account" and stored.owner == users["bob"]
    assert legacy.key not in str(list(ApiToken.objects.values()))
    assert _works(legacy.key)
