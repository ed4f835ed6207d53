"""A whole hand played by email in German, in Icelandic and in English, with replies written
the way the players' mail clients write them (German Gmail and Outlook, Apple Mail and
Thunderbird, Icelandic Gmail and Outlook, phones), closing signatures without "-- " included.

The formats follow the real replies in tests/mailplay/samples/ (copies of the shared mail
samples: 031 German Gmail, 041 German Latin-1 with "Viele Grüße", 003 Outlook with "Best
regards,", 012 German Outlook HTML). The player is examples/email_player.py, which reads the
emails in each language; every email each player gets is in their language.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import pytest

from games.models import Actor, Hand, Move
from mailplay.models import InboundMessage
from notifications.models import NotificationPreference
from tests.game_fixtures import start_game
from tests.mailplay.conftest import deliver, receive
from tests.mailplay.helpers import load_email_player

Builder = Callable[[Any, str, str], str]


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}".rstrip() for line in text.splitlines())


# --- German clients -------------------------------------------------------------------------


def _gmail_de(original: Any, commands: str, name: str) -> str:
    # As sample 031: the attribution names the sender after the verb.
    return (
        f"{commands}\n\nViele Grüße\n{name}\n\n"
        "Am Di., 1. Dez. 2026 um 03:42 Uhr schrieb Canasta <canasta@localhost>:\n\n"
        f"{_quoted(original)}\n"
    )


def _outlook_de(original: Any, commands: str, name: str) -> str:
    # Outlook for Windows in German: the original unquoted under a Von/Gesendet block.
    return (
        f"{commands}\n\n \nMit freundlichen Grüßen\n{name}\n\n"
        "Von: Canasta <canasta@localhost> \n"
        "Gesendet: Dienstag, 1. Dezember 2026 03:40\n"
        f"An: {name}@example.com\n"
        "Betreff: [Canasta] Sie sind am Zug\n\n \n"
        f"{original}\n"
    )


def _iphone_de(original: Any, commands: str, name: str) -> str:
    return (
        f"{commands[:1].upper()}{commands[1:]}\n\nVon meinem iPhone gesendet\n\n"
        "> Am 01.12.2026 um 03:42 schrieb Canasta <canasta@localhost>:\n>\n"
        f"{_quoted(_quoted(original))}\n"
    )


def _thunderbird_de(original: Any, commands: str, name: str) -> str:
    return (
        f"{commands}\n\nLG\n{name}\n\nAm 01.12.26 um 03:42 schrieb Canasta:\n{_quoted(original)}\n"
    )


def _outlook_android_de(original: Any, commands: str, name: str) -> str:
    return (
        f"{commands}\n\nOutlook für Android herunterladen\n"
        "________________________________\n"
        "Von: Canasta <canasta@localhost>\n"
        "Gesendet: Dienstag, Dezember 1, 2026 3:40 AM\n"
        f"An: {name}@example.com\n"
        "Betreff: [Canasta] Sie sind am Zug\n\n"
        f"{original}\n"
    )


def _gmail_de_hat_geschrieben(original: Any, commands: str, name: str) -> str:
    return (
        f"{commands}\n\nMfG\n\n"
        "Canasta <canasta@localhost> hat am 1. Dez. 2026 um 03:42 folgendes geschrieben:\n\n"
        f"{_quoted(original)}\n"
    )


# --- Icelandic clients ----------------------------------------------------------------------


def _gmail_is(original: Any, commands: str, name: str) -> str:
    return (
        f"{commands}\n\nKveðja,\n{name}\n\n"
        "Þann þri., 1. des. 2026 kl. 03:42 skrifaði Canasta <canasta@localhost>:\n\n"
        f"{_quoted(original)}\n"
    )


def _outlook_is(original: Any, commands: str, name: str) -> str:
    return (
        f"{commands}\n\nBestu kveðjur\n{name}\n\n"
        "Frá: Canasta <canasta@localhost>\n"
        "Sent: þriðjudagur, 1. desember 2026 03:40\n"
        f"Til: {name}@example.com\n"
        "Efni: [Canasta] Þú átt leik\n\n"
        f"{original}\n"
    )


def _iphone_is(original: Any, commands: str, name: str) -> str:
    return (
        f"{commands[:1].upper()}{commands[1:]}\n\nSent úr iPhone\n\n"
        "> Þann 1.12.2026 kl. 03:42 skrifaði Canasta <canasta@localhost>:\n>\n"
        f"{_quoted(_quoted(original))}\n"
    )


# --- English clients ------------------------------------------------------------------------


def _gmail_en(original: Any, commands: str, name: str) -> str:
    return (
        f"{commands}\n\nThanks partner!\n{name}\n\n"
        "On Tue, Dec 1, 2026 at 3:42 AM Canasta <canasta@localhost> wrote:\n\n"
        f"{_quoted(original)}\n"
    )


def _outlook_en(original: Any, commands: str, name: str) -> str:
    # As sample 003: "Best regards," and no "-- ".
    return (
        f"{commands}\n\n \nBest regards,\n{name} – Team Canasta\n\n"
        "From: Canasta <canasta@localhost> \n"
        "Sent: Tuesday, December 1, 2026 3:39 AM\n"
        f"To: {name}@example.com\n"
        "Subject: [Canasta] Your turn\n\n \n"
        f"{original}\n"
    )


def _iphone_en(original: Any, commands: str, name: str) -> str:
    return (
        f"{commands[:1].upper()}{commands[1:]}\n\nSent from my iPhone\n\n"
        "> On Dec 1, 2026, at 03:42, Canasta <canasta@localhost> wrote:\n>\n"
        f"{_quoted(_quoted(original))}\n"
    )


CLIENTS: dict[str, list[Builder]] = {
    "de": [
        _gmail_de,
        _outlook_de,
        _iphone_de,
        _thunderbird_de,
        _outlook_android_de,
        _gmail_de_hat_geschrieben,
    ],
    "is": [_gmail_is, _outlook_is, _iphone_is],
    "en": [_gmail_en, _outlook_en, _iphone_en],
}


def _writer(lang: str, player: Any) -> tuple[Callable[..., bytes], list[str]]:
    """A reply writer cycling through the clients of ``lang``; also records the bodies."""
    clients: Iterator[Builder] = itertools.cycle(CLIENTS[lang])
    bodies: list[str] = []

    def write(original: EmailMessage, commands: str, *, signature: str) -> bytes:
        message = EmailMessage(policy=policy.SMTP)
        message["From"] = original["To"]
        message["To"] = original["Reply-To"]
        message["Subject"] = "AW: " + str(original["Subject"] or "")
        message["Message-ID"] = make_msgid(domain="example.com")
        message["In-Reply-To"] = original["Message-ID"]
        body = next(clients)(player.text_of(original), commands, signature.capitalize())
        bodies.append(body)
        message.set_content(body)
        return message.as_bytes()

    return write, bodies


@pytest.fixture
def speakers(people: dict[str, Any], request: pytest.FixtureRequest) -> dict[str, Any]:
    lang, zone = request.param
    for user in people.values():
        NotificationPreference.objects.create(user=user, language=lang, time_zone=zone)
    return people


EXPECTED = {
    "de": ("DAS KÖNNEN SIE JETZT TUN", "SO ANTWORTEN SIE", "Zug ausgeführt", "ziehen"),
    "is": ("ÞETTA GETUR ÞÚ GERT NÚNA", "SVONA SVARAR ÞÚ", "Leikur framkvæmdur", "draga"),
    "en": ("WHAT YOU CAN DO NOW", "HOW TO REPLY", "Move applied", "draw"),
}


@pytest.mark.parametrize(
    ("speakers", "lang"),
    [
        (("de", "Europe/Berlin"), "de"),
        (("is", "Atlantic/Reykjavik"), "is"),
        (("en", "UTC"), "en"),
    ],
    indirect=["speakers"],
)
def test_a_whole_hand_by_email_in_the_players_language(
    speakers: dict[str, Any], lang: str, settings: Any, tmp_path: Any
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    game = start_game(speakers)
    player = load_email_player()
    write, bodies = _writer(lang, player)
    statuses: list[str] = []

    summary = player.play(
        tmp_path,
        send=lambda raw: statuses.append(receive(raw)),
        deliver=deliver,
        rng=random.Random(11),
        max_replies=600,
        reply=write,
    )

    assert summary.finished, summary.log[-5:]
    # Every reply was played: no signature, attribution or footer turned one into a refusal.
    assert summary.refused == 0, summary.log
    assert statuses and all("processed: applied" in s for s in statuses), statuses[:3]
    assert InboundMessage.objects.filter(status="processed").count() == summary.replies
    hand = Hand.objects.get(game=game, number=1)
    assert hand.finished_at is not None
    moves = Move.objects.filter(game=game, hand=1)
    assert set(moves.values_list("actor", flat=True)) <= {Actor.PLAYER, Actor.SYSTEM}
    # The commands were written in the players' language, through every client style.
    choices, help_title, applied, draw = EXPECTED[lang]
    assert any(line.split(": ", 1)[1].startswith(draw) for line in summary.log)
    assert len(bodies) >= len(CLIENTS[lang])
    # Everything the players read was in their language.
    mails = player.read_mailbox(tmp_path)
    texts = [player.text_of(m) for m in mails]
    assert any(choices in t and help_title in t for t in texts)
    # An answer starts with what happened; the subject is the game's one thread subject.
    assert any(t.lstrip().startswith(applied) for t in texts)
    if lang != "en":
        assert not any("WHAT YOU CAN DO NOW" in t for t in texts)
        assert not any(t.lstrip().startswith("Move applied") for t in texts)
