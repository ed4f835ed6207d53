"""Every email in the recipient's language and time zone: the turn email (table, choices,
command help), reminders, timeouts, hand and match over, digests; and the delivery renders
each row in its recipient's preferences."""

from datetime import UTC, datetime

import pytest
from django.core import mail

from games import engine
from games.models import GameState
from notifications.emails import render
from notifications.models import NotificationPreference
from notifications.payloads import (
    hand_over_payload,
    match_over_payload,
    timeout_payload,
    turn_payload,
)
from notifications.services.outbox import outbox_deliver
from tests.notifications.helpers import enqueue


def _table(game):
    return engine.from_json(GameState.objects.get(game=game).table)


@pytest.mark.parametrize(
    ("lang", "zone", "expected"),
    [
        (
            "de",
            "Europe/Berlin",
            (
                "(Partie ",
                "Di., 1. Dez. 2026, 19:30 MEZ",
                "DAS KÖNNEN SIE JETZT TUN",
                "SO ANTWORTEN SIE",
                "ziehen",
                "IHR BLATT",
            ),
        ),
        (
            "is",
            "Atlantic/Reykjavik",
            (
                "(leikur ",
                "þri., 1. des. 2026, 18:30 GMT",
                "ÞETTA GETUR ÞÚ GERT NÚNA",
                "SVONA SVARAR ÞÚ",
                "draga",
                "HÖNDIN ÞÍN",
            ),
        ),
        (
            "en",
            "America/New_York",
            (
                "(game ",
                "Tue, Dec 1, 2026, 13:30 EST",
                "WHAT YOU CAN DO NOW",
                "HOW TO REPLY",
                "draw",
                "YOUR HAND",
            ),
        ),
    ],
)
def test_the_turn_email_in_the_recipients_language_and_zone(table_game, lang, zone, expected):
    table = _table(table_game)
    table_game.deadline = datetime(2026, 12, 1, 18, 30, tzinfo=UTC)
    email = render(
        kind="your_turn",
        payload=turn_payload(game=table_game, table=table, seat=0),
        reply_to="play+abc@canasta.test",
        lang=lang,
        time_zone=zone,
    )
    subject, deadline, choices, help_title, draw, hand = expected
    # One subject for every email of a game (notifications/headers.py), in the reader's words.
    assert subject in email.subject
    assert deadline in email.text
    assert choices in email.text and help_title in email.text and hand in email.text
    assert f"\n  {draw}\n" in email.text
    assert choices in email.html


def test_the_other_kinds_in_german(table_game):
    table = _table(table_game)
    hand_result = {
        "type": "hand_result",
        "hand": 1,
        "reason": "went_out",
        "seed": "ab",
        "commitment": "cd",
        "result": {"scores": [500, -20]},
    }
    timeout = render(
        kind="timeout",
        payload=timeout_payload(
            game=table_game,
            table=table,
            seat=1,
            timed_out_seat=0,
            policy="autoplay",
            handed_to_bot=True,
        ),
        lang="de",
    )
    hand = render(
        kind="hand_over",
        payload=hand_over_payload(
            game=table_game, seat=0, hand_result=hand_result, totals=[500, -20]
        ),
        lang="de",
    )
    over = render(
        kind="match_over",
        payload=match_over_payload(
            game=table_game, seat=2, totals=[5100, 3000], winner_side=0, reason="match_over"
        ),
        lang="is",
    )
    assert "Die Zeit von alice in der Partie" in timeout.text
    assert "spielt jetzt ein Bot diesen Platz" in timeout.text
    assert "(Partie " in hand.subject and "Runde 1" in hand.text
    assert "Punkte der Runde: Ihr Team 500, carol & dave -20" in hand.text
    assert "Liðið þitt vann." in over.text
    digest = render(kind="digest", payload={"day": "2026-12-01", "games": []}, lang="de")
    assert digest.subject == "[Canasta] 0 Partien warten auf Ihren Zug"


def test_delivery_renders_in_the_recipients_preferences(people):
    NotificationPreference.objects.create(
        user=people["alice"], language="de", time_zone="Europe/Berlin"
    )
    row = enqueue(people["alice"], kind="match_over")
    outbox_deliver(row.pk)
    assert mail.outbox[0].subject.endswith("(Partie 01234567)")
    assert mail.outbox[0].extra_headers["X-Canasta-Kind"] == "match_over"
    assert "Ihr Team hat gewonnen." in mail.outbox[0].body
