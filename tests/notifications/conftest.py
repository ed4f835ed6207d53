from typing import Any

import pytest
from django.contrib.auth import get_user_model

from notifications import tasks
from tests.game_fixtures import CAST, start_game


@pytest.fixture(autouse=True)
def queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Outbox ids handed to the broker; no unit test talks to a real one."""
    calls: list[int] = []
    monkeypatch.setattr(tasks.deliver_outbox, "delay", calls.append)
    return calls


@pytest.fixture
def people(db: Any) -> dict[str, Any]:
    """The shared cast (tests/game_fixtures.py) with email addresses; no passwords, which
    would cost a slow hash per user."""
    model = get_user_model()
    return {
        name: model.objects.create_user(username=name, email=f"{name}@example.com") for name in CAST
    }


@pytest.fixture
def table_game(people: dict[str, Any]) -> Any:
    """alice's started 4-player classic game (seats: alice 0, carol 1, bob 2, dave 3)."""
    return start_game(people)
