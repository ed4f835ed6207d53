"""No turn email for a player who has the game page open, through the real worker and beat
(PostgreSQL, Celery): the row is written with the move, the worker drops it and records why."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games.models import Game
from games.services import lobby
from notifications.models import Outbox, OutboxStatus
from notifications.services.presence import SEEN_REASON, presence_record
from tests.integration.processes import Mailbox, Processes, process_env, running, wait_until

NAMES = ("ann", "ben", "cat", "dan")
WAIT = 60


@pytest.fixture
def mailbox(tmp_path: Path) -> Mailbox:
    return Mailbox(tmp_path / "mail")


@pytest.fixture
def processes(transactional_db: None, tmp_path: Path) -> Iterator[Processes]:
    with running(process_env(tmp_path / "var", tmp_path / "mail"), tmp_path) as started:
        yield started


@pytest.fixture
def players(transactional_db: None) -> dict[str, Any]:
    model = get_user_model()
    return {n: model.objects.create_user(username=n, email=f"{n}@example.com") for n in NAMES}


def _table(players: dict[str, Any], *, watched: bool) -> Game:
    """A table of the four; with ``watched`` they all have its page open as the deal comes."""
    created = lobby.game_create(
        creator=players["ann"],
        variant="classic",
        players=4,
        options={"seating": "invitation"},
        invite=["ben", "cat", "dan"],
    )
    for name in ("ben", "cat"):
        lobby.game_join(game_id=created.pk, user=players[name])
    if watched:
        for user in players.values():
            presence_record(user=user, game=created)
    game = lobby.game_join(game_id=created.pk, user=players["dan"])
    assert game.status == "active"
    return game


def _mails_of(mailbox: Mailbox, game: Game) -> list[Any]:
    return [m for m in mailbox.messages() if f"(game {str(game.pk)[:8]})" in str(m["Subject"])]


def test_a_player_with_the_page_open_gets_no_turn_email(processes, players, mailbox):
    processes.worker()
    processes.beat()
    processes.ready()

    watched = _table(players, watched=True)
    unwatched = _table(players, watched=False)

    try:
        wait_until(lambda: _mails_of(mailbox, unwatched), timeout=WAIT, what="the turn email")
        row = Outbox.objects.get(game=watched, kind="your_turn")
        wait_until(
            lambda: Outbox.objects.get(pk=row.pk).status == OutboxStatus.SKIPPED,
            timeout=WAIT,
            what="the watched table's turn email to be dropped",
        )
    except AssertionError:
        print(processes.logs_text())
        raise
    assert Outbox.objects.get(pk=row.pk).last_error == SEEN_REASON
    assert _mails_of(mailbox, watched) == []
    (sent,) = _mails_of(mailbox, unwatched)
    assert sent["X-Canasta-Kind"] == "your_turn"
