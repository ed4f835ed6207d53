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


# --- Atomic counting and failing open (api/throttles.py) ---

UNREACHABLE_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def unreachable_cache(fresh_outage_state):
    """Redis as the cache, at an address where nothing answers (set up after, and undone
    before, the autouse fixture that clears the cache)."""
    from django.test import override_settings

    cache = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": UNREACHABLE_REDIS,
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    with override_settings(CACHES={"default": cache}):
        yield


@pytest.fixture
def fresh_outage_state(monkeypatch):
    from api import throttles

    monkeypatch.setattr(throttles, "cache_outage", throttles._CacheOutage())
    return throttles


def concurrent_statuses(send, count: int, threads: int = 16) -> list[int]:
    """Status codes of `count` calls of `send()` from `threads` threads started together."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    barrier = Barrier(threads)

    def one_thread(_: int) -> list[int]:
        barrier.wait()
        return [send() for _ in range(count // threads)]

    with ThreadPoolExecutor(threads) as pool:
        return [code for codes in pool.map(one_thread, range(threads)) for code in codes]


def test_concurrent_anonymous_requests_get_exactly_the_limit(db, monkeypatch):
    import time_machine
    from rest_framework.test import APIClient

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "120/min"})
    # One fixed window for the whole test, whatever the wall clock says.
    with time_machine.travel("2026-12-01 12:00:10Z", tick=False):
        codes = concurrent_statuses(lambda: APIClient().get("/api/v1/variants/").status_code, 480)

    assert codes.count(200) == 120
    assert codes.count(429) == 360


def test_with_the_cache_unreachable_requests_pass_and_one_line_is_logged(
    users, game, monkeypatch, caplog, unreachable_cache
):
    from rest_framework.test import APIClient

    monkeypatch.setattr(
        SimpleRateThrottle, "THROTTLE_RATES", {"anon": "1/min", "read": "1/min", "auth": "1/min"}
    )
    alice = token_client(users["alice"])

    with caplog.at_level("WARNING", logger="api.throttles"):
        for _ in range(5):
            assert APIClient().get("/api/v1/variants/").status_code == 200
            assert alice.get(url(game)).status_code == 200

    lines = [r for r in caplog.records if r.name == "api.throttles"]
    assert len(lines) == 1
    assert "rate limits are off" in lines[0].getMessage()


def test_the_outage_log_reports_what_was_let_through_then_the_recovery(fresh_outage_state, caplog):
    outage = fresh_outage_state.cache_outage
    with caplog.at_level("WARNING", logger="api.throttles"):
        for _ in range(50):
            outage.record_failure(ConnectionError("refused"))
        outage.record_success()
    messages = [r.getMessage() for r in caplog.records if r.name == "api.throttles"]
    assert len(messages) == 2
    assert "1 request(s)" in messages[0]
    assert "back on" in messages[1] and "(49 let through)" in messages[1]


def test_the_health_check_reports_the_cache_and_broker_down_as_degraded(
    db, client, settings, unreachable_cache
):
    settings.CELERY_BROKER_URL = UNREACHABLE_REDIS

    response = client.get("/api/v1/health/")

    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["components"] == {
        "database": "ok",
        "cache": "unavailable",
        "broker": "unavailable",
    }


def test_the_health_check_is_503_only_when_the_database_is_down(db, client, monkeypatch):
    from api.views import health

    monkeypatch.setattr(health, "database_state", lambda: "unavailable")

    response = client.get("/api/v1/health/")

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"


# --- A token bucket with its budget in every answer (issue 29) ---


def test_every_limited_answer_says_what_is_left(users, game, low_limits):
    import time_machine

    client = token_client(users["alice"], ["read"])
    with time_machine.travel("2026-12-01 12:00:10Z", tick=False):
        answers = [client.get(url(game)) for _ in range(4)]

    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert {a["RateLimit-Policy"] for a in answers} == {'"read";q=3;w=60'}
    # r: requests left now; t: seconds until the whole budget is back (one per 20 s).
    assert [a["RateLimit"] for a in answers] == [
        '"read";r=2;t=20',
        '"read";r=1;t=40',
        '"read";r=0;t=60',
        '"read";r=0;t=60',
    ]
    assert answers[3]["Retry-After"] == "20"


def test_the_budget_does_not_come_back_on_the_clock_minute(users, game, low_limits):
    import time_machine

    client = token_client(users["alice"], ["read"])
    with time_machine.travel("2026-12-01 12:00:59Z", tick=False) as clock:
        assert [client.get(url(game)).status_code for _ in range(3)] == [200, 200, 200]
        clock.move_to("2026-12-01 12:01:01Z")  # a fixed window would start again here
        refused = client.get(url(game))
        assert refused.status_code == 429 and refused["Retry-After"] == "18"
        clock.move_to("2026-12-01 12:01:18.9Z")
        assert client.get(url(game)).status_code == 429
        clock.move_to("2026-12-01 12:01:19Z")  # one request back, 20 s after the burst
        assert client.get(url(game)).status_code == 200
        assert client.get(url(game)).status_code == 429


def test_a_refusal_costs_nothing(users, game, low_limits):
    import time_machine

    client = token_client(users["alice"], ["read"])
    with time_machine.travel("2026-12-01 12:00:00Z", tick=False) as clock:
        for _ in range(3):
            client.get(url(game))
        for _ in range(10):  # hammering while refused does not push the next slot away
            assert client.get(url(game)).status_code == 429
        clock.move_to("2026-12-01 12:00:20Z")
        assert client.get(url(game)).status_code == 200


def test_anonymous_answers_count_against_the_address_and_pages_carry_none(db, client):
    # /health/ has only the per-address limit, which counts this anonymous caller.
    answer = client.get("/api/v1/health/")
    assert answer["RateLimit-Policy"].startswith('"anon";q=')
    signed_out_page = client.get("/")
    assert "RateLimit" not in signed_out_page
