"""One thread per game in every mail client, the standard headers of automated mail, and
one-click unsubscribe (notifications/headers.py, web/views/unsubscribe.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import time_machine
from django.core import mail
from django.test import Client

from notifications.headers import unsubscribe_token
from notifications.models import NotificationPreference, Outbox
from notifications.services.outbox import outbox_sweep
from tests.game_fixtures import start_game
from tests.notifications.helpers import enqueue, payload

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _headers(message: Any) -> Any:
    return message.message()  # the MIME message as sent: every header, as a mail client reads it


def _of(game: Any, **extra: Any) -> dict[str, Any]:
    return payload(game_id=str(game.pk), totals=[10, 20], reason="match_over", **extra)


def _quiet() -> None:
    """The games' own first turn emails are out of the way."""
    outbox_sweep()
    mail.outbox.clear()
    Outbox.objects.all().delete()


def _three_mails_of_one_game(user: Any, game: Any) -> list[Any]:
    _quiet()
    for minute, kind in enumerate(("timeout", "hand_over", "match_over")):
        with time_machine.travel(T0 + timedelta(minutes=minute), tick=False):
            enqueue(user, kind=kind, game=game, payload=_of(game))
            outbox_sweep()
    return [_headers(m) for m in mail.outbox]


def test_every_mail_of_a_game_has_one_subject_and_chains_to_the_first(people, table_game):
    first, second, third = _three_mails_of_one_game(people["alice"], table_game)
    assert {m.subject for m in mail.outbox} == {
        f"Canasta: alice, carol, bob, dave (game {str(table_game.pk)[:8]})"
    }
    assert first["In-Reply-To"] is None and first["References"] is None
    assert second["In-Reply-To"] == first["Message-ID"]
    assert second["References"] == first["Message-ID"]
    assert third["In-Reply-To"] == second["Message-ID"]
    assert third["References"].split() == [first["Message-ID"], second["Message-ID"]]
    assert len({m["Message-ID"] for m in (first, second, third)}) == 3


def test_threads_are_per_recipient_and_per_game(people, table_game):
    other = start_game(people, public=False)
    _quiet()
    enqueue(people["alice"], kind="match_over", game=table_game, payload=_of(table_game))
    enqueue(people["bob"], kind="match_over", game=table_game, payload=_of(table_game))
    enqueue(people["alice"], kind="match_over", game=other, payload=_of(other))
    outbox_sweep()
    assert len(mail.outbox) == 3
    assert all(_headers(m)["In-Reply-To"] is None for m in mail.outbox)
    assert mail.outbox[0].subject != mail.outbox[2].subject


def test_message_id_is_on_our_domain_and_the_date_has_the_recipients_offset(people, settings):
    settings.DEFAULT_FROM_EMAIL = "Canasta <games@canasta.example>"
    NotificationPreference.objects.create(user=people["alice"], time_zone="Europe/Berlin")
    with time_machine.travel(T0, tick=False):
        enqueue(people["alice"], kind="match_over")
        outbox_sweep()
    message = _headers(mail.outbox[0])
    assert message["Message-ID"].endswith("@canasta.example>")
    assert message["Date"].endswith("+0100")  # Berlin in December, not "-0000"
    assert parsedate_to_datetime(message["Date"]) == T0
    settings.CANASTA_MESSAGE_ID_DOMAIN = "mail.canasta.example"
    enqueue(people["bob"], kind="match_over")
    outbox_sweep()
    assert _headers(mail.outbox[1])["Message-ID"].endswith("@mail.canasta.example>")


def test_every_mail_is_marked_automatic_and_offers_one_click_unsubscribe(people, table_game):
    _quiet()
    enqueue(people["alice"], kind="match_over", game=table_game, payload=_of(table_game))
    # Mail about no game (here: about the account's webhooks) keeps its own subject.
    enqueue(people["alice"], kind="webhook", payload={"subject": "A webhook was turned off"})
    enqueue(
        people["alice"],
        kind="email_reply",
        game=table_game,
        payload=_of(
            table_game, subject="Move applied", paragraphs=["Done."], in_reply_to="<m1@x.example>"
        ),
    )
    outbox_sweep()
    match_over, account, answer = (_headers(m) for m in mail.outbox)
    assert mail.outbox[1].subject == "[Canasta] A webhook was turned off"
    assert account["In-Reply-To"] is None
    for message in (match_over, account):
        assert message["Auto-Submitted"] == "auto-generated"
    assert answer["Auto-Submitted"] == "auto-replied"
    for message in (match_over, account, answer):
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        url = message["List-Unsubscribe"].strip("<>")
        assert url.startswith("http://127.0.0.1:8000/unsubscribe/")
    # The answer continues the game's thread and answers the player's own mail.
    assert mail.outbox[2].subject == mail.outbox[0].subject
    assert answer["In-Reply-To"] == "<m1@x.example>"
    assert answer["References"].split() == [match_over["Message-ID"], "<m1@x.example>"]
    assert mail.outbox[2].body.startswith("Move applied")
    assert mail.outbox[0].extra_headers["X-Canasta-Kind"] == "match_over"


def test_unsubscribe_shows_a_page_on_get_and_turns_email_off_on_post(people):
    alice = people["alice"]
    url = f"/unsubscribe/{unsubscribe_token(alice.pk)}/"
    page = Client(enforce_csrf_checks=True)  # a mail client: no session, no CSRF token
    shown = page.get(url)
    assert shown.status_code == 200 and "Stop all email" in shown.content.decode()
    assert not NotificationPreference.objects.filter(user=alice).exists()  # GET changed nothing

    done = page.post(
        url, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert done.status_code == 200 and "no more email" in done.content.decode()
    assert NotificationPreference.objects.get(user=alice).email_mode == "none"
    enqueue(alice, kind="match_over")
    outbox_sweep()
    assert mail.outbox == []


def test_a_forged_or_altered_unsubscribe_link_changes_nothing(people):
    token = unsubscribe_token(people["alice"].pk)
    for bad in (token[:-2] + "xx", "nonsense", unsubscribe_token(999999)):
        assert Client().post(f"/unsubscribe/{bad}/").status_code == 404
    assert not NotificationPreference.objects.exists()
