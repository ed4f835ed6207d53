import io
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command

from games.models import Game
from notifications import tasks
from notifications.services.outbox import outbox_sweep
from tests.game_fixtures import CAST, start_game


@pytest.fixture(autouse=True)
def queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """No broker in unit tests: outbox rows are delivered by `deliver()` (the sweep)."""
    calls: list[int] = []
    monkeypatch.setattr(tasks.deliver_outbox, "delay", calls.append)
    return calls


@pytest.fixture(autouse=True)
def mail_settings(settings: Any) -> None:
    settings.CANASTA_MAIL_DOMAIN = "canasta.test"
    settings.CANASTA_MAIL_REQUIRE_FROM_MATCH = True
    settings.CANASTA_MAIL_MAX_BYTES = 256 * 1024
    settings.CANASTA_MAIL_AUTO_DRAW = True


@pytest.fixture
def people(db: Any) -> dict[str, Any]:
    """The shared cast with email addresses (eve is a stranger to the game)."""
    model = get_user_model()
    return {
        name: model.objects.create_user(username=name, email=f"{name}@example.com") for name in CAST
    }


@pytest.fixture
def game(people: dict[str, Any]) -> Game:
    """alice's started 4-player classic game (seats: alice 0, carol 1, bob 2, dave 3)."""
    return start_game(people)


def deliver() -> None:
    outbox_sweep()


def receive(raw: bytes) -> str:
    """Pipe one message into `manage.py receive_email`; its status line."""
    err = io.StringIO()
    call_command("receive_email", stdin=io.BytesIO(raw), stderr=err)
    return err.getvalue()


def mails_to(address: str) -> list[Any]:
    return [m for m in mail.outbox if address in m.to]
