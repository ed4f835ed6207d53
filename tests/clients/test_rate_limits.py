"""Rate limits per scope (read, play), per user, answered with 429 and Retry-After."""

from __future__ import annotations

import pytest
from rest_framework.throttling import SimpleRateThrottle

from tests.api.helpers import error_of, url
from tests.clients.helpers import token_client


@pytest.fixture
def low_limits(monkeypatch):
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {
            "user": "1000/min",
            "anon": "1000/min",
            "auth": "1000/min",
            "read": "3/min",
            "play": "2/min",
        },
    )


def test_reads_over_the_read_rate_get_429_with_retry_after(users, game, low_limits):
    client = token_client(users["alice"], ["read"])
    for _ in range(3):
        assert client.get(url(game)).status_code == 200

    response = client.get("/api/v1/events/", {"wait": 0})

    error = error_of(response, 429)
    assert error["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60
    assert error["details"]["retry_after"] == int(response["Retry-After"])


def test_the_play_scope_has_its_own_budget_per_user(users, game, clients, low_limits):
    alice = token_client(users["alice"])
    for _ in range(2):
        alice.post(url(game, "legal"))  # 405, but counted as a play request
    assert error_of(alice.post(url(game, "resign")), 429)["code"] == "throttled"
    # Reads still have their budget, and so does everyone else.
    assert alice.get(url(game)).status_code == 200
    assert clients["bob"].post(url(game, "resign")).status_code == 200


def test_the_limit_is_per_user_across_tokens_and_sessions(users, game, clients, low_limits):
    for client in (token_client(users["alice"]), token_client(users["alice"]), clients["alice"]):
        assert client.get(url(game)).status_code == 200
    assert error_of(clients["alice"].get(url(game)), 429)["code"] == "throttled"
