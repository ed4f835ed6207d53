"""Fixtures of the fuzz tests: the real WSGI application in-process, on the test database,
with a cast of users and a started game whose seats the fuzzer plays."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from rest_framework.throttling import SimpleRateThrottle

from tests.game_fixtures import (  # noqa: F401
    client_for,
    fast_password_hashing,
    game,
    private_game,
    users,
)


@pytest.fixture(autouse=True)
def fresh_throttles() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def fuzz_settings(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Settings under which thousands of requests in one test stay fast and offline."""
    settings.ALLOWED_HOSTS = ["*"]
    # A long poll or an event stream would hold a fuzzed request for up to a minute.
    settings.CANASTA_EVENTS_MAX_WAIT_SECONDS = 0
    settings.CANASTA_EVENTS_STREAM_SECONDS = 0
    # Webhook URLs resolve their host: no DNS from the tests, every name is "public".
    monkeypatch.setattr("clients.services.netguard._resolve", lambda host, port: ["93.184.215.14"])
    # Throttling is tested elsewhere; here a 429 would only hide the endpoints behind it.
    rates = {scope: "100000/min" for scope in ("anon", "user", "auth", "read", "play")}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    return settings


@pytest.fixture
def in_process_wsgi(fuzz_settings: Any) -> Iterator[None]:
    """Lets Django's WSGI application share the test's database transaction.

    A real request ends by closing connections that are "unusable or obsolete", and a
    connection inside the test's atomic block counts as one; Django's own test client
    disconnects this signal for the same reason.
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
