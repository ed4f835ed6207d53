from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from notifications import tasks
from tests import contract
from tests.game_fixtures import (  # noqa: F401
    client_for,
    fast_password_hashing,
    game,
    users,
)


@pytest.fixture(autouse=True)
def fresh_throttles() -> Iterator[None]:
    # Throttle counters live in the cache: every test starts with a clean slate.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Outbox ids handed to the broker after commit (no broker in unit tests)."""
    calls: list[int] = []
    monkeypatch.setattr(tasks.deliver_outbox, "delay", calls.append)
    return calls


@pytest.fixture
def clients(users: dict[str, Any]) -> dict[str, Any]:  # noqa: F811
    return {name: client_for(user) for name, user in users.items()}


@pytest.fixture(autouse=True)
def contract_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every API response in these tests is checked against the served schema (issue 29)."""
    contract.install(monkeypatch)
