"""Races on the account lifecycle with real threads on PostgreSQL (issue 26, findings 3 and
4): an invitation is decided under one lock, and an account being deleted never keeps a
seat."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection

from accounts.services.deletion import account_delete
from games.models import Game, GameStatus, Invitation, InvitationStatus, Seat, SeatStatus
from games.services import lobby
from games.services.errors import GameError
from games.services.invitations import (
    invitation_accept,
    invitation_decline,
    invitation_withdraw,
)
from tests.game_fixtures import PASSWORD, fast_password_hashing, make_user  # noqa: F401

pytestmark = pytest.mark.integration

TRIALS = 16


def _race(functions: list[Callable[[], Any]]) -> list[Any]:
    """Start every function at the same moment on its own thread; results or exceptions."""
    barrier = threading.Barrier(len(functions))
    results: list[Any] = [None] * len(functions)

    def run(index: int, function: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = function()
        except BaseException as error:
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, f)) for i, f in enumerate(functions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
    return results


@pytest.fixture
def cast(transactional_db) -> dict[str, Any]:
    cache.clear()
    return {name: make_user(name) for name in ("alice", "bob", "carol")}


def _invited_table(cast: dict[str, Any]) -> Invitation:
    game = lobby.game_create(
        creator=cast["alice"],
        variant="classic",
        players=2,
        is_public=False,
        invite_emails=["bob@example.com"],
    )
    return Invitation.objects.get(game=game)


def _bob_seated(invitation: Invitation) -> bool:
    return Seat.objects.filter(
        game_id=invitation.game_id, user__username="bob", status=SeatStatus.JOINED
    ).exists()


@pytest.mark.parametrize("other", ["withdraw", "decline"])
def test_accepting_and_withdrawing_or_declining_at_once_one_wins_whole(cast, other):
    outcomes = set()
    for _ in range(TRIALS):
        invitation = _invited_table(cast)
        answer: Callable[[], Any] = (
            partial(invitation_withdraw, invitation_id=invitation.pk, user=cast["alice"])
            if other == "withdraw"
            else partial(invitation_decline, token=invitation.token)
        )
        accepted, answered = _race(
            [partial(invitation_accept, token=invitation.token, user=cast["bob"]), answer]
        )
        invitation.refresh_from_db()
        game = Game.objects.get(pk=invitation.game_id)
        if isinstance(accepted, Invitation):
            # The accept won: the withdrawal or decline was refused, and changed nothing.
            assert isinstance(answered, GameError), answered
            assert invitation.status == InvitationStatus.ACCEPTED
            assert _bob_seated(invitation) and game.status == GameStatus.ACTIVE
            outcomes.add("accepted")
        else:
            assert isinstance(accepted, GameError), accepted
            assert isinstance(answered, Invitation), answered
            assert invitation.status in (InvitationStatus.WITHDRAWN, InvitationStatus.DECLINED)
            assert not _bob_seated(invitation) and game.status == GameStatus.OPEN
            # The seat the invitation kept is gone, not taken by anyone.
            assert game.seats.count() == 1
            outcomes.add("answered")
    assert outcomes  # every trial ended in one of the two whole outcomes


def test_an_account_deleted_while_its_requests_take_seats_keeps_none(cast):
    for trial in range(4):
        bob = make_user(f"bob{trial}")
        tables = [
            lobby.game_create(creator=cast["alice"], variant="classic", players=2) for _ in range(6)
        ]
        # Each join as a request authenticated just before the deletion: its own user object.
        joins = [
            partial(lobby.game_join, game_id=table.pk, user=get_user_model().objects.get(pk=bob.pk))
            for table in tables
        ]
        results = _race([partial(account_delete, user=bob, password=PASSWORD), *joins])
        assert isinstance(results[0], dict), results[0]
        for result in results[1:]:
            assert isinstance(result, Game | GameError), result
        # No table in play or waiting keeps the deleted account's seat; a table it joined
        # before the deletion locked the account was resigned (finished) or left.
        kept = Seat.objects.filter(user=bob, game__status__in=[GameStatus.OPEN, GameStatus.ACTIVE])
        assert not kept.exists()
        for table in Game.objects.filter(pk__in=[t.pk for t in tables]):
            assert table.status in (GameStatus.OPEN, GameStatus.FINISHED)
            if table.status == GameStatus.OPEN:
                assert list(table.seats.values_list("user_id", flat=True)) == [cast["alice"].pk]
