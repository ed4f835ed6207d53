"""The web page for personal tokens: /account/tokens/."""

from __future__ import annotations

import re

from django.test import Client
from rest_framework.test import APIClient

from clients.models import ApiToken


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_creates_a_token_shows_its_key_once_and_revokes_it(users):
    page = _signed_in(users["alice"])
    assert "No tokens yet" in page.get("/account/tokens/").content.decode()

    created = page.post(
        "/account/tokens/", {"form": "create", "name": "chat bot", "scopes": ["read"]}
    )

    assert created.status_code == 200
    key = re.search(r'<code id="new-key">(cnst_[^<]+)</code>', created.content.decode())[1]
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert api.get("/api/v1/events/", {"wait": 0}).status_code == 200
    listing = page.get("/account/tokens/").content.decode()
    assert "chat bot" in listing and key[:12] in listing and key not in listing

    token = ApiToken.objects.get(kind="personal")
    revoked = page.post("/account/tokens/", {"form": "revoke", "token": token.pk}, follow=True)
    assert "revoked" in revoked.content.decode()
    assert api.get("/api/v1/events/", {"wait": 0}).status_code == 401


def test_the_page_needs_a_name_and_a_scope(users):
    response = _signed_in(users["alice"]).post("/account/tokens/", {"form": "create", "name": ""})
    assert response.status_code == 400
    assert not ApiToken.objects.filter(kind="personal").exists()


def test_the_page_is_for_signed_in_people_and_linked_from_settings(users):
    assert Client().get("/account/tokens/").status_code == 302
    settings_page = _signed_in(users["bob"]).get("/settings/").content.decode()
    assert 'href="/account/tokens/"' in settings_page
