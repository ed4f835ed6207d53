"""NUL on PostgreSQL (issue 26, finding 5): the URLs that were a 500 are a 400 at the edge."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client

from tests.game_fixtures import client_for, fast_password_hashing, make_user  # noqa: F401

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "path",
    ["/api/v1/players/%00/", "/players/a%00b/", "/players/%00/", "/invitations/%00/"],
)
def test_the_nul_paths_of_the_report_are_a_400_not_a_500(path, transactional_db):
    assert connection.vendor == "postgresql"
    signed_in = Client()
    signed_in.force_login(make_user("alice"))
    for client in (Client(), signed_in):
        assert client.get(path).status_code == 400


def test_a_nul_in_a_stored_field_is_a_400_not_a_500(transactional_db):
    client = client_for(make_user("bob"))
    response = client.post(
        "/api/v1/tokens/",
        data='{"name": "a\\u0000b", "scopes": ["read"]}',
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"part": "body"}
