from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from tests.game_fixtures import (  # noqa: F401
    confirmed_users,
    fast_password_hashing,
    game,
    private_game,
    users,
)


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    # Throttle counters (the API's, polled by the pages) live in the cache.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def browser_for(request: pytest.FixtureRequest) -> Any:
    """A signed-in test client for one of the cast: `browser_for("alice")`."""
    cast = request.getfixturevalue("users")

    def make(name: str, *, csrf: bool = False) -> Client:
        client = Client(enforce_csrf_checks=csrf)
        client.force_login(cast[name])
        return client

    return make
