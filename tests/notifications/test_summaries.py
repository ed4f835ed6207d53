"""A match the bots play out while the people are away ends in one email, not one per hand;
hands that end in quick succession come in one hand-over email (services/summaries.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import time_machine
from django.core import mail

from games.models import Game, Seat
from notifications.models import Outbox, OutboxStatus
from notifications.payloads import hand_over_payload, match_over_payload
from notifications.services.outbox import outbox_enqueue, outbox_sweep
from notifications.services.presence import SEEN_HAND_REASON, presence_record
from notifications.services.summaries import FOLDED_REASON

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _quiet() -> None:
    outbox_sweep()
    mail.outbox.clear()


def _hand_over(game: Game, user: Any, seat: int, hand: int, at: datetime) -> None:
    event = {
        "type": "hand_result",
        "hand": hand,
        "reason": "went_out",
        "seed": "ab" * 32,
        "commitment": "cd" * 32,
        "result": {"scores": [100 * hand, -10 * hand]},
    }
    with time_machine.travel(at, tick=False):
        outbox_enqueue(
            recipient=user,
            kind="hand_over",
            game=game,
            key=f"{game.pk}:hand{hand}:{user.pk}:hand_over",
            payload=hand_over_payload(game=game, seat=seat, hand_result=event, totals=[5, 6]),
        )


def _match_over(game: Game, user: Any, seat: int, at: datetime) -> None:
    Game.objects.filter(pk=game.pk).update(status="finished")
    with time_machine.travel(at, tick=False):
        outbox_enqueue(
            recipient=user,
            kind="match_over",
            game=game,
            payload=match_over_payload(
                game=game, seat=seat, totals=[5100, 900], winner_side=0, reason="target"
            ),
        )


def _sweep_at(moment: datetime) -> None:
    with time_machine.travel(moment, tick=False):
        outbox_sweep()


def _to(user: Any) -> list[Any]:
    return [m for m in mail.outbox if m.to == [user.email]]


def test_a_match_played_by_bots_while_the_humans_are_away_ends_in_one_email(
    people, table_game, settings
):
    settings.CANASTA_TURN_EMAIL_DELAY_MINUTES = 3
    _quiet()
    alice, bob = people["alice"], people["bob"]
    Seat.objects.filter(game=table_game, user__in=[alice, bob]).update(away=True)
    # The bots play hand after hand, minutes apart.
    for hand in (1, 2, 3):
        for user, seat in ((alice, 0), (bob, 2)):
            _hand_over(table_game, user, seat, hand, T0 + timedelta(minutes=10 * hand))
        _sweep_at(T0 + timedelta(minutes=10 * hand + 5))  # each one is due meanwhile
    assert mail.outbox == []  # held while a bot plays their seats
    assert not Outbox.objects.filter(status=OutboxStatus.FAILED).exists()

    for user, seat in ((alice, 0), (bob, 2)):
        _match_over(table_game, user, seat, T0 + timedelta(minutes=40))
    _sweep_at(T0 + timedelta(minutes=40))
    for user in (alice, bob):
        (summary,) = _to(user)
        assert summary.extra_headers["X-Canasta-Kind"] == "match_over"
        assert "Earlier hands, not mailed one by one:" in summary.body
        for hand in (1, 2, 3):
            assert f"Hand {hand}: Your side {100 * hand}, carol & dave {-10 * hand}" in summary.body
    folded = Outbox.objects.filter(kind="hand_over")
    assert {(row.status, row.last_error) for row in folded} == {
        (OutboxStatus.SKIPPED, FOLDED_REASON)
    }
    _sweep_at(T0 + timedelta(days=1))
    assert len(mail.outbox) == 2  # nothing more, ever


def test_hands_ending_within_the_delay_come_in_one_hand_over_email(people, table_game, settings):
    settings.CANASTA_TURN_EMAIL_DELAY_MINUTES = 3
    _quiet()
    alice = people["alice"]
    _hand_over(table_game, alice, 0, 1, T0)
    _hand_over(table_game, alice, 0, 2, T0 + timedelta(minutes=2))
    _sweep_at(T0 + timedelta(minutes=3))  # hand 1 is due: hand 2 will carry it
    assert _to(alice) == []
    _sweep_at(T0 + timedelta(minutes=5))
    (message,) = _to(alice)
    assert "Hand 2 of" in message.body and "Hand 1: Your side 100, carol & dave -10" in message.body

    # A later hand is mailed on its own: hand 1 was summarised already.
    _hand_over(table_game, alice, 0, 3, T0 + timedelta(minutes=30))
    _sweep_at(T0 + timedelta(minutes=33))
    assert len(_to(alice)) == 2
    assert "Earlier hands" not in _to(alice)[1].body


def test_a_player_who_is_back_gets_the_held_hands_with_the_next_one(people, table_game, settings):
    settings.CANASTA_TURN_EMAIL_DELAY_MINUTES = 0
    _quiet()
    alice = people["alice"]
    seat = Seat.objects.filter(game=table_game, user=alice)
    seat.update(away=True)
    _hand_over(table_game, alice, 0, 1, T0)
    _sweep_at(T0)
    assert _to(alice) == []
    seat.update(away=False)  # she takes her seat back
    _hand_over(table_game, alice, 0, 2, T0 + timedelta(minutes=1))
    _sweep_at(T0 + timedelta(minutes=1))
    (message,) = _to(alice)
    assert "Hand 1: Your side 100" in message.body


def test_a_player_who_watched_the_hand_end_on_the_page_gets_no_hand_over_email(
    people, table_game, settings
):
    settings.CANASTA_TURN_EMAIL_DELAY_MINUTES = 3
    _quiet()
    alice, bob = people["alice"], people["bob"]
    _hand_over(table_game, alice, 0, 1, T0)
    _hand_over(table_game, bob, 2, 1, T0)
    with time_machine.travel(T0 + timedelta(minutes=1), tick=False):
        presence_record(user=alice, game=table_game)
    _sweep_at(T0 + timedelta(minutes=3))
    assert _to(alice) == [] and len(_to(bob)) == 1
    row = Outbox.objects.get(kind="hand_over", recipient=alice)
    assert row.last_error == SEEN_HAND_REASON
