from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from tests.game_fixtures import (  # noqa: F401
    confirmed_users,
    fast_password_hashing,
    game,
    users,
)


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def browser_for(request: pytest.FixtureRequest) -> Any:
    """A signed-in test client for one of the cast, optionally with a language preference."""
    cast = request.getfixturevalue("users")

    def make(name: str, *, language: str | None = None, time_zone: str | None = None) -> Client:
        from notifications.services.preferences import preference_update

        if language or time_zone:
            preference_update(user=cast[name], language=language, time_zone=time_zone)
        client = Client()
        client.force_login(cast[name])
        return client

    return make
