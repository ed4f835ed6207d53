"""No "your turn" email while the player has the game in front of them; otherwise it waits for
their delay, then goes out (notifications/services/presence.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from games.models import Game
from games.services.moves import moves_submit
from notifications.models import GamePresence, NotificationPreference, Outbox, OutboxStatus
from notifications.services.outbox import outbox_sweep
from notifications.services.presence import (
    PLAYED_REASON,
    SEEN_REASON,
    presence_last_seen,
    presence_record,
)
from tests.game_fixtures import client_for, start_game

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _alice_turn_mails() -> list[Any]:
    return [m for m in mail.outbox if m.to == ["alice@example.com"]]


def _turn_row(game: Game) -> Outbox:
    return Outbox.objects.get(game=game, kind="your_turn", recipient__username="alice")


@pytest.fixture
def delayed(settings: Any) -> None:
    settings.CANASTA_TURN_EMAIL_DELAY_MINUTES = 3


def _start(people: dict[str, Any]) -> Game:
    with time_machine.travel(T0, tick=False):
        game = start_game(people)
    assert game.turn_seat == 0  # alice's turn: her email is written with the deal
    return game


def _sweep_at(moment: datetime) -> int:
    with time_machine.travel(moment, tick=False):
        return outbox_sweep()


def test_the_turn_email_waits_for_the_delay_then_goes_out(people, delayed):
    game = _start(people)
    row = _turn_row(game)
    assert row.next_attempt_at == T0 + timedelta(minutes=3)
    _sweep_at(T0 + timedelta(minutes=2, seconds=59))
    assert _alice_turn_mails() == []
    _sweep_at(T0 + timedelta(minutes=3))
    assert len(_alice_turn_mails()) == 1


def test_a_player_with_the_page_open_gets_no_turn_email(people, delayed):
    game = _start(people)
    # The page polls while the turn waits (every few seconds; written every 30 s at most).
    for seconds in range(0, 180, 4):
        with time_machine.travel(T0 + timedelta(seconds=seconds), tick=False):
            presence_record(user=people["alice"], game=game)
    assert GamePresence.objects.count() == 1
    _sweep_at(T0 + timedelta(minutes=3))
    assert _alice_turn_mails() == []
    row = _turn_row(game)
    assert (row.status, row.last_error) == (OutboxStatus.SKIPPED, SEEN_REASON)


def test_a_player_who_closed_the_page_before_the_turn_began_gets_the_email(people, delayed):
    game = _start(people)
    with time_machine.travel(T0 - timedelta(minutes=5), tick=False):
        presence_record(user=people["alice"], game=game)
    _sweep_at(T0 + timedelta(minutes=3))
    assert len(_alice_turn_mails()) == 1


def test_with_no_delay_an_open_page_still_gets_no_email_and_a_closed_one_does(people, settings):
    settings.CANASTA_TURN_EMAIL_DELAY_MINUTES = 0
    game = _start(people)
    with time_machine.travel(T0 - timedelta(seconds=40), tick=False):
        presence_record(user=people["alice"], game=game)  # the last poll before the move
    _sweep_at(T0)
    assert _alice_turn_mails() == []

    other = start_game(people, public=False)
    with time_machine.travel(T0 - timedelta(minutes=10), tick=False):
        presence_record(user=people["alice"], game=other)
    outbox_sweep()
    assert [m.to for m in _alice_turn_mails()] == [["alice@example.com"]]


def test_a_turn_played_before_the_email_was_due_drops_it(people, delayed):
    game = _start(people)
    with time_machine.travel(T0 + timedelta(minutes=1), tick=False):
        moves_submit(
            game_id=game.pk,
            user=people["alice"],
            actions=[{"type": "draw"}],
            expected_version=game.version,
        )
    _sweep_at(T0 + timedelta(minutes=3))
    assert _alice_turn_mails() == []
    assert _turn_row(game).last_error == PLAYED_REASON


def test_the_players_own_delay_wins_over_the_sites(people, delayed):
    NotificationPreference.objects.create(user=people["alice"], turn_email_delay_minutes=10)
    game = _start(people)
    assert _turn_row(game).next_attempt_at == T0 + timedelta(minutes=10)


def test_a_look_is_written_at_most_every_30_seconds(people, table_game):
    alice = people["alice"]
    with time_machine.travel(T0, tick=False):
        presence_record(user=alice, game=table_game)
    with time_machine.travel(T0 + timedelta(seconds=29), tick=False):
        presence_record(user=alice, game=table_game)
    assert presence_last_seen(user_id=alice.pk, game_id=table_game.pk) == T0
    with time_machine.travel(T0 + timedelta(seconds=31), tick=False):
        presence_record(user=alice, game=table_game)
    assert presence_last_seen(user_id=alice.pk, game_id=table_game.pk) == T0 + timedelta(seconds=31)


def test_the_game_page_and_its_polling_record_a_look_a_token_client_does_not(people, table_game):
    alice, bob = people["alice"], people["bob"]
    page = Client()
    page.force_login(alice)
    assert page.get(f"/games/{table_game.pk}/").status_code == 200
    assert presence_last_seen(user_id=alice.pk, game_id=table_game.pk) is not None

    browser = APIClient()
    browser.force_login(bob)  # the page's polling: the API with the browser session
    assert browser.get(f"/api/v1/games/{table_game.pk}/").status_code == 200
    assert presence_last_seen(user_id=bob.pk, game_id=table_game.pk) is not None

    carol = people["carol"]
    assert client_for(carol).get(f"/api/v1/games/{table_game.pk}/").status_code == 200
    assert presence_last_seen(user_id=carol.pk, game_id=table_game.pk) is None


def test_the_delay_is_a_preference_of_the_api_and_the_settings_page(people):
    api = APIClient()
    api.force_login(people["alice"])
    assert api.get("/api/v1/me/preferences/").json()["turn_email_delay_minutes"] == 0
    answer = api.patch("/api/v1/me/preferences/", {"turn_email_delay_minutes": 5}, format="json")
    assert answer.status_code == 200 and answer.json()["turn_email_delay_minutes"] == 5
    refused = api.patch("/api/v1/me/preferences/", {"turn_email_delay_minutes": 500})
    assert refused.status_code == 400
    assert NotificationPreference.objects.get(user=people["alice"]).turn_email_delay_minutes == 5

    page = Client()
    page.force_login(people["alice"])
    assert 'name="turn_email_delay_minutes"' in page.get("/settings/").content.decode()
    saved = page.post(
        "/settings/",
        {
            "form": "preferences",
            "email_mode": "every_turn",
            "digest_hour": "7",
            "turn_email_delay_minutes": "15",
        },
    )
    assert saved.status_code == 302
    assert NotificationPreference.objects.get(user=people["alice"]).turn_email_delay_minutes == 15
