"""Real replies from the shared mail samples (copied to tests/mailplay/samples/), played end to
end: German Gmail ("Am ... schrieb ...:"), a Latin-1 reply signed "Viele Grüße / Jörg",
Outlook signed "Best regards," and a top-posted reply with chatter under it, none with a
"-- " delimiter. Each is played, in the player's language; a typo and a subject-only reply
are refused, saying why."""

from __future__ import annotations

from typing import Any

import pytest

from games import display
from games.models import Move
from notifications.models import NotificationPreference
from tests.game_fixtures import current_table
from tests.mailplay.conftest import deliver, mails_to, receive
from tests.mailplay.helpers import sample

ALICE = "alice@example.com"


def _turn_mail() -> Any:
    deliver()
    return mails_to(ALICE)[-1]


def _as_alice(name: str, to: str, commands: dict[bytes, bytes]) -> bytes:
    """The sample sent by alice (whose turn it is) with commands that fit her table."""
    replace = {b"bob@example.com": ALICE.encode(), **commands}
    if b"bob@example.com" not in sample(name, to=to):
        replace.pop(b"bob@example.com")  # alice's own sample
    return sample(name, to=to, replace=replace)


@pytest.fixture
def german(people: dict[str, Any]) -> None:
    NotificationPreference.objects.create(user=people["alice"], language="de")


@pytest.mark.usefixtures("german")
def test_german_gmail_reply_is_played_not_read_as_the_command_am(game: Any) -> None:
    """Sample 031: today's German Gmail attribution line is not a command."""
    turn = _turn_mail()
    assert "DAS KÖNNEN SIE JETZT TUN" in turn.body
    raw = _as_alice(
        "031-gmail-german-ui-bob.eml", turn.reply_to[0], {b"discard 10s\r\n": b"ziehen\r\n"}
    )
    assert "processed: applied" in receive(raw)
    assert Move.objects.filter(game=game).count() == 1
    answer = _turn_mail()
    # The game's one subject; what the answer says comes first in the body.
    assert "(Partie " in answer.subject
    assert answer.body.lstrip().startswith("Zug ausgeführt")
    assert "Ausgeführt: ziehen." in answer.body
    assert "Sie haben " in answer.body and " gezogen." in answer.body


@pytest.mark.usefixtures("german")
def test_latin1_reply_signed_viele_gruesse_is_played(game: Any) -> None:
    """Sample 041: "Viele Grüße / Jörg" after the command, no "-- "."""
    turn = _turn_mail()
    raw = _as_alice(
        "041-latin1-german-sig-no-delimiter-bob.eml",
        turn.reply_to[0],
        {b"discard qh\r\n": b"ZIEHEN\r\n"},
    )
    assert "processed: applied" in receive(raw)
    assert Move.objects.filter(game=game).count() == 1


def test_outlook_reply_signed_best_regards_is_played(game: Any) -> None:
    """Sample 003: "Best regards, / Alice – Team Canasta" and Outlook's header block."""
    turn = _turn_mail()
    raw = _as_alice(
        "003-outlook-multipart-1252-alice.eml",
        turn.reply_to[0],
        {b"Take\r\nMeld 6s 6s 6c 6h\r\nDiscard Qs\r\n": b"Draw\r\n"},
    )
    assert "processed: applied" in receive(raw)
    assert Move.objects.filter(game=game).count() == 1


def test_chatter_under_the_commands_is_a_signature(game: Any) -> None:
    """Sample 011: "Thanks partner, fingers crossed! / Bob" under the command."""
    turn = _turn_mail()
    raw = _as_alice(
        "011-plain-top-posted-chatter-bob.eml", turn.reply_to[0], {b"ask\r\n": b"draw\r\n"}
    )
    assert "processed: applied" in receive(raw)


def test_a_typo_is_refused_naming_the_line(game: Any) -> None:
    """Sample 009: "ad 2d to fives, ..." is a mistyped command, never dropped as a signature."""
    turn = _turn_mail()
    raw = _as_alice("009-gmail-typo-verb-bob.eml", turn.reply_to[0], {})
    assert "processed: invalid_action" in receive(raw)
    answer = _turn_mail()
    assert "unknown command 'ad'" in answer.body and 'Line 1: "ad 2d to fives' in answer.body
    assert Move.objects.filter(game=game).count() == 0


def test_commands_only_in_the_subject_are_refused_saying_so(game: Any) -> None:
    """Sample 008: the subject is not read, and the answer says so."""
    turn = _turn_mail()
    receive(_as_alice("008-gmail-subject-only-bob.eml", turn.reply_to[0], {}))
    answer = _turn_mail()
    assert "subject line is not read" in answer.body
    assert Move.objects.filter(game=game).count() == 0


@pytest.mark.usefixtures("german")
def test_german_outlook_html_only_reply_is_played(game: Any) -> None:
    """Sample 012: Outlook in German, HTML only, its "Von: / Gesendet:" block under the reply."""
    turn = _turn_mail()
    raw = _as_alice(
        "012-outlook-htmlonly-de-1252-bob.eml", turn.reply_to[0], {b">Ask<o:p>": b">Ziehen<o:p>"}
    )
    assert "processed: applied" in receive(raw)
    assert Move.objects.filter(game=game).count() == 1


@pytest.mark.usefixtures("german")
@pytest.mark.parametrize(
    ("name", "commands"),
    [
        # GMX / WEB.DE: the verb last, "LG Karin", then the quote's "Gesendet: ..." block.
        ("050-gmx-verb-last-lg-alice.eml", {}),
        # T-Online / Thunderbird: "Kreuz 6 abwerfen" / "Viele Grüße" / "Thomas" (the discard
        # becomes a draw that fits the test's table; verb last all the same).
        (
            "051-thunderbird-verb-last-viele-gruesse-alice.eml",
            {b"Kreuz 6 abwerfen": b"Karte ziehen"},
        ),
        # Outlook with a company signature and a German/English disclaimer, no "-- ".
        ("052-outlook-company-disclaimer-de-alice.eml", {}),
    ],
)
def test_german_replies_are_played_as_written(game: Any, name: str, commands: dict) -> None:
    turn = _turn_mail()
    raw = _as_alice(name, turn.reply_to[0], commands)
    assert "processed: applied" in receive(raw)
    assert Move.objects.filter(game=game).count() == 1


@pytest.mark.parametrize(
    "name", ["053-outlook-rule-oof-de-alice.eml", "054-outlook-rule-oof-is-alice.eml"]
)
def test_a_vacation_reply_without_headers_is_never_answered(game: Any, name: str) -> None:
    """Outlook rules send "Ich bin ... nicht im Büro" / "ég er í fríi" with no auto-reply
    header and the turn email's subject: recognised by its words, ignored, not answered."""
    turn = _turn_mail()
    before = len(mails_to(ALICE))
    assert "ignored: auto_reply_text" in receive(_as_alice(name, turn.reply_to[0], {}))
    deliver()
    assert len(mails_to(ALICE)) == before
    assert Move.objects.filter(game=game).count() == 0


def test_a_vacation_subject_marks_an_auto_reply(game: Any) -> None:
    turn = _turn_mail()
    raw = _as_alice(
        "054-outlook-rule-oof-is-alice.eml",
        turn.reply_to[0],
        {
            b"=?utf-8?b?UkU6IFtDYW5hc3RhXSDDnsO6IMOhdHQgbGVpaw==?=": (
                "Sjálfvirkt svar: [Canasta]".encode()
            )
        },
    )
    assert "ignored: auto_reply_subject" in receive(raw)


@pytest.mark.usefixtures("german")
def test_a_resent_reply_is_told_the_move_was_already_played(game: Any) -> None:
    """GMX resends with a new Message-ID: nothing is played twice, and the answer says this
    move was played already (not that the email answers "an earlier turn")."""
    turn = _turn_mail()
    card = display.typed_card(current_table(game).hands[0][0], "classic", "de")
    whole_turn = f"Karte ziehen\r\n{card} abwerfen".encode()
    first = _as_alice(
        "050-gmx-verb-last-lg-alice.eml", turn.reply_to[0], {b"Karte ziehen": whole_turn}
    )
    assert "processed: applied" in receive(first)
    assert Move.objects.filter(game=game).count() == 2
    again = first.replace(b"<trinity-5a1b@3c-app-gmx-bs01>", b"<trinity-5a1c@3c-app-gmx-bs01>")
    assert "refused: earlier_turn" in receive(again)
    assert Move.objects.filter(game=game).count() == 2
    answer = _turn_mail()
    assert "bereits gespielt" in answer.body
