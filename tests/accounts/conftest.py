import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.core.cache import cache

from canasta_site.celery import app
from notifications import tasks
from notifications.services.outbox import outbox_sweep
from tests.game_fixtures import (  # noqa: F401
    client_for,
    fast_password_hashing,
    game,
    users,
)


@pytest.fixture(autouse=True)
def eager_tasks() -> Iterator[None]:
    # The reset request's task runs in the request (no broker in unit tests).
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture(autouse=True)
def queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Outbox rows are delivered by `deliver()` (the sweep), never through a broker."""
    calls: list[int] = []
    monkeypatch.setattr(tasks.deliver_outbox, "delay", calls.append)
    return calls


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def cast(users: dict[str, Any]) -> dict[str, Any]:  # noqa: F811
    """The cast with addresses (legacy accounts: no preference row, so confirmed)."""
    for name, user in users.items():
        user.email = f"{name}@example.com"
        user.save(update_fields=["email"])
    return users


def deliver() -> list[Any]:
    outbox_sweep()
    return list(mail.outbox)


def mails_to(address: str) -> list[Any]:
    deliver()
    return [m for m in mail.outbox if any(address in to for to in m.to)]


LINK = re.compile(r"https?://\S+")


def link_in(message: Any, path_part: str) -> str:
    return next(u for u in LINK.findall(message.body) if path_part in u)
