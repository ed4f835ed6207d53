"""The score sheet in the hand-over and match-over emails: the same figures as the page's
sheet (games/scoresheet.py), every hand of the finished hand revealed, nothing of the next."""

from __future__ import annotations

from typing import Any

from games.models import Game, Hand
from games.services.moves import moves_submit
from notifications.emails import render
from notifications.models import Outbox
from notifications.payloads import outbox_payload
from tests.game_fixtures import current_table
from tests.web.tables import going_out_table, set_table


def _go_out(game: Game, people: dict[str, Any], **table: Any) -> Game:
    game = set_table(game, {**going_out_table(0), **table})
    return moves_submit(
        game_id=game.pk,
        user=people["alice"],
        actions=[{"type": "discard", "card": "5S"}],
        expected_version=game.version,
    )


def test_the_hand_over_email_carries_the_score_sheet(table_game: Game, people: Any) -> None:
    game = _go_out(table_game, people)
    row = Outbox.objects.get(kind="hand_over", recipient=people["carol"])
    hand = Hand.objects.get(game=game, number=1)
    payload = outbox_payload(row)  # the hand's shared result and carol's seat
    sheet = payload["sheet"]
    assert sheet["scores"] == hand.result["scores"] and sheet["totals"] == hand.result["totals"]
    email = render(kind="hand_over", payload=payload)
    assert "Score sheet of hand 1" in email.text
    assert "Natural canastas" in email.text and "1 × 500 = 500" in email.text
    assert "went out: +100" in email.text
    # carol's side is "Your side" in her email; alice and bob by name
    assert "Your side" in email.text and "alice & bob" in email.text
    # every hand of the finished hand revealed, sorted high to low
    dave = next(line for line in email.text.splitlines() if line.strip().startswith("dave:"))
    assert dave.split(": ")[1].split()[0] == "K♦" and sorted(dave.split()[2:]) == ["10♣", "10♦"]
    assert "<table" in email.html and "Natural canastas</th>" in email.html
    # Nothing of the next hand (dealt already) is in it: its seed stays secret.
    assert Hand.objects.get(game=game, number=2).seed not in email.text + email.html
    assert current_table(game).hand == 2


def test_the_match_over_email_has_every_hand_and_the_last_sheet(
    table_game: Game, people: Any
) -> None:
    game = _go_out(table_game, people, scores=[4900, 0])
    assert game.status == "finished"
    row = Outbox.objects.get(kind="match_over", recipient=people["bob"])
    email = render(kind="match_over", payload=outbox_payload(row))
    assert "Hand 1: Your side 710, carol & dave -50 (match totals: Your side 5,610" in email.text
    assert "Score sheet of hand 1" in email.text


def test_a_bot_has_the_same_name_in_emails_as_on_the_page(table_game: Game, people: Any) -> None:
    from notifications.payloads import seat_names

    seat = table_game.seats.get(number=3)
    seat.user = None
    seat.kind = "bot"
    seat.save()
    game = Game.objects.prefetch_related("seats__user").get(pk=table_game.pk)
    assert seat_names(game)[3] == "Bot 4"
