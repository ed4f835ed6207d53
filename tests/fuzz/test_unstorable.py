"""Characters PostgreSQL cannot store (issue 26, finding 5): a NUL or a lone surrogate
anywhere a view could pass it to the database is a 400 at the edge, on every route, in the
one error shape under /api/ and as plain text on the pages; nothing changes."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.api.helpers import error_of
from tests.game_fixtures import client_for, make_user

API_PATHS = ["/api/v1/players/%00/", "/api/v1/players/a%00b/", "/api/v1/invitations/%00/"]
PAGE_PATHS = ["/players/%00/", "/invitations/%00/", "/invitations/a%00b/"]


@pytest.fixture
def alice(db):
    return make_user("alice")


@pytest.mark.parametrize("path", API_PATHS)
def test_a_nul_in_an_api_path_is_a_400_in_the_error_shape(path, db):
    for client in (Client(), client_for(make_user(f"u{len(path)}"))):
        error = error_of(client.get(path), 400)
        assert error["code"] == "malformed_request" and error["details"] == {"part": "path"}


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_a_nul_in_a_page_path_is_a_400_signed_in_or_not(path, alice):
    signed_in = Client()
    signed_in.force_login(alice)
    for client in (Client(), signed_in):
        response = client.get(path)
        assert response.status_code == 400
        assert response["Content-Type"].startswith("text/plain")


def test_a_nul_in_the_query_is_a_400(alice):
    response = client_for(alice).get("/api/v1/games/open/", {"rating_min": "1\x00"})
    assert error_of(response, 400)["details"] == {"part": "query"}
    assert client_for(alice).get("/api/v1/games/open/?a%00=1").status_code == 400
    assert Client().get("/login/?next=/%00").status_code == 400


def test_a_nul_in_a_header_is_a_400(alice):
    response = client_for(alice).get("/api/v1/me/", HTTP_X_CLIENT="bot\x00")
    assert error_of(response, 400)["details"] == {"part": "header"}


@pytest.mark.parametrize("text", ["\x00", "a\x00b", "\ud800", "\udfff x"])
def test_a_nul_or_lone_surrogate_in_a_json_body_is_a_400_and_changes_nothing(text, alice):
    for body in ({"name": text, "scopes": ["read"]}, {"name": "t", "scopes": ["read"], text: 1}):
        response = client_for(alice).post(
            "/api/v1/tokens/", data=json.dumps(body), content_type="application/json"
        )
        assert error_of(response, 400)["details"] == {"part": "body"}
    assert not alice.api_tokens.filter(kind="personal").exists()


def test_a_surrogate_pair_and_an_escaped_backslash_are_ordinary_text(alice):
    # "\ud83d\ude00" is one emoji; "\\u0000" is a backslash and five characters.
    raw = '{"name": "\\ud83d\\ude00 \\\\u0000", "scopes": ["read"]}'
    response = client_for(alice).post("/api/v1/tokens/", data=raw, content_type="application/json")
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "\U0001f600 \\u0000"


def test_a_nul_in_a_form_body_is_a_400_on_every_sign_in_page(db):
    for path in ("/login/", "/api-auth/login/", "/admin/login/", "/signup/"):
        response = Client().post(path, {"username": "al\x00ice", "password": "x"})
        assert response.status_code == 400, path
    assert not get_user_model().objects.filter(username__contains="\x00").exists()
