"""German and Icelandic replies read as written (games/mail/body.py, parsing.py): the verb
last, a GMX quote that starts with "Gesendet:", a company signature with a disclaimer of any
length, and vacation replies recognised by their words."""

from __future__ import annotations

import pytest

from games.mail.body import extract_reply_text, is_out_of_office
from games.mail.parsing import is_command_line, parse_commands

DISCLAIMER = (
    "Diese E-Mail enthält vertrauliche und/oder rechtlich geschützte Informationen. Wenn Sie "
    "nicht der richtige Adressat sind, informieren Sie bitte sofort den Absender und "
    "vernichten Sie diese Mail. Das unerlaubte Kopieren ist nicht gestattet."
)


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("Karte ziehen\nLG Karin", "Karte ziehen"),
        ("Kreuz 6 abwerfen\nViele Grüße\nThomas", "Kreuz 6 abwerfen"),
        (
            "ziehen\n\nLG\nKarin\n\nGesendet: Dienstag, 01. Dezember 2026 um 14:52 Uhr\n"
            "Von: Canasta <play@x.example>\nAn: karin@gmx.de\nBetreff: Zug\nziehen\n",
            "ziehen",
        ),
        (
            "ziehen\n\nMit freundlichen Grüßen\n\nKarin Schmidt\nMusterfirma GmbH | Hauptstr. 5\n"
            "Tel.: +49 89 1234567-0\nSitz der Gesellschaft: München, HRB 123456\n\n"
            + DISCLAIMER
            + "\n"
            + DISCLAIMER
            + "\n"
            + DISCLAIMER,
            "ziehen",
        ),
    ],
)
def test_the_players_own_commands_are_kept_and_the_rest_dropped(reply: str, kept: str) -> None:
    assert extract_reply_text(reply) == kept


def test_verb_last_lines_are_commands_in_german_only() -> None:
    assert is_command_line("Kreuz 6 abwerfen", lang="de")
    assert is_command_line("lege 7p 7h 7ka aus", lang="de")
    assert not is_command_line("Kreuz 6 abwerfen", lang="en")
    # A long line of prose that happens to end in a verb is not a command.
    assert not is_command_line(
        "bitte wenden Sie sich in dringenden Fällen an meine Kollegin um die Sache zu nehmen",
        lang="de",
    )
    parsed = parse_commands("Kreuz 6 abwerfen", None, lang="de")
    assert parsed.commands[0].action == {"type": "discard", "card": "6C"}


def test_a_mistyped_command_after_the_commands_is_still_never_dropped() -> None:
    assert extract_reply_text("ziehen\n\nabwerfn 9kr") == "ziehen\n\nabwerfn 9kr"


@pytest.mark.parametrize(
    "text",
    [
        "Guten Tag,\n\nvielen Dank für Ihre Nachricht. Ich bin bis 14.12. nicht im Büro.",
        "Abwesenheitsnotiz: ab Montag wieder da",
        "Góðan dag,\nég er í fríi til 5. desember.\nKveðja,\nGuðrún",
        "Sjálfvirkt svar",
        "I am out of the office until Monday.",
    ],
)
def test_vacation_replies_are_recognised_by_their_words(text: str) -> None:
    assert is_out_of_office(extract_reply_text(text))


@pytest.mark.parametrize("text", ["ziehen\nich bin ab Montag im Urlaub", "Danke!", "", "hjálp"])
def test_a_reply_with_a_command_or_without_vacation_words_is_not_one(text: str) -> None:
    assert not is_out_of_office(extract_reply_text(text))


def test_the_answer_to_a_take_lists_the_piles_cards() -> None:
    from games.models import Move
    from mailplay.services.play import _drawn, _taken

    moves = [
        Move(seat=0, events=[{"type": "pickup", "seat": 0, "cards": ["7H", "QD", "KS"]}]),
        Move(seat=1, events=[{"type": "pickup", "seat": 1, "cards": ["4C"]}]),
    ]
    assert _taken(moves, 0, "classic", "de") == ["7♥", "D♦", "K♠"]
    assert _drawn(moves, 0, "classic", "de") == []


def test_the_help_offers_asking_a_partner_only_with_partners() -> None:
    from games.mail.help import help_text

    assert "Partner" in help_text("classic", "de", partners=True)
    assert "Partner" not in help_text("classic", "de", partners=False)
    assert "fragen" not in help_text("classic", "de", partners=False)
