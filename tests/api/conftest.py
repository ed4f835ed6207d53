from typing import Any

import pytest

from tests import contract
from tests.game_fixtures import (  # noqa: F401
    client_for,
    confirmed_users,
    fast_password_hashing,
    game,
    private_game,
    users,
)


@pytest.fixture
def clients(users: dict[str, Any]) -> dict[str, Any]:  # noqa: F811
    """An API client per cast member, plus "anonymous" without credentials."""
    out = {name: client_for(user) for name, user in users.items()}
    out["anonymous"] = client_for(None)
    return out


@pytest.fixture(autouse=True)
def contract_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every API response in these tests is checked against the served schema (issue 29)."""
    contract.install(monkeypatch)
