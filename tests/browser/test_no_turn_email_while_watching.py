"""A player with the game page open, in a real browser, gets no "your turn" email: the page's
load and its polling record the look, and the turn email is dropped when it is due
(notifications/services/presence.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from games import engine
from games.models import Game
from games.services import lobby
from games.services.moves import moves_submit
from notifications.models import Outbox, OutboxStatus
from notifications.services.outbox import outbox_sweep
from notifications.services.presence import SEEN_REASON
from tests.browser.helpers import table_of, when_free
from tests.game_fixtures import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _two_player_game(people: dict[str, Any]) -> Game:
    created = lobby.game_create(
        creator=people["alice"],
        variant="classic",
        players=2,
        options={"seating": "invitation"},
        invite=["bob"],
    )
    return lobby.game_join(game_id=created.pk, user=people["bob"])


def test_a_player_with_the_page_open_gets_no_turn_email(live_server: Any, new_page: Any) -> None:
    people = {
        name: get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD)
        for name in ("alice", "bob")
    }
    game = _two_player_game(people)
    by_seat = {s.number: s.user for s in game.seats.select_related("user")}
    mover = by_seat[game.turn_seat]
    watcher = by_seat[1 - game.turn_seat]
    when_free(outbox_sweep)  # the first turn email, to the mover, is out of the way
    mail.outbox.clear()

    page = new_page(user=watcher)
    page.goto(f"/games/{game.pk}/")
    # The page polls the game by itself: one poll is the proof it is open and looking.
    with page.expect_response(re.compile(rf"/games/{game.pk}/table/$")):
        pass

    table = table_of(game.pk)
    seat = game.turn_seat
    drawn = engine.apply(table, seat, {"type": "draw"}).table
    when_free(
        lambda: moves_submit(
            game_id=game.pk,
            user=mover,
            actions=[{"type": "draw"}, {"type": "discard", "card": drawn.hands[seat][0]}],
            expected_version=game.version,
        )
    )
    when_free(outbox_sweep)

    row = when_free(lambda: Outbox.objects.get(game=game, recipient=watcher, kind="your_turn"))
    assert (row.status, row.last_error) == (OutboxStatus.SKIPPED, SEEN_REASON)
    assert [m for m in mail.outbox if m.to == [watcher.email]] == []
