"""Replies from mail clients set to German, Icelandic and the other European languages:
attributions, header blocks, phone footers and closing signatures without "-- " never turn
a valid reply into a refusal; a mistyped command is never dropped."""

from __future__ import annotations

import pytest

from games.mail.body import drop_signature, extract_reply_text, looks_like_command

QUOTE = "> It is your turn in classic game 84cb8bdc.\n>\n> WHAT YOU CAN DO NOW\n>   draw\n"
ORIGINAL = "It is your turn in classic game 84cb8bdc.\n\nWHAT YOU CAN DO NOW\n  draw\n"
COMMANDS = "ziehen\nabwerfen 9kr"

ATTRIBUTIONS = [
    # Gmail
    "Am Di., 1. Dez. 2026 um 03:42 Uhr schrieb Canasta <canasta@localhost>:",
    "Þann þri., 1. des. 2026 kl. 03:42 skrifaði Canasta <canasta@localhost>:",
    "Le mar. 1 déc. 2026 à 03:42, Canasta <canasta@localhost> a écrit :",
    "El mar, 1 dic 2026 a las 3:42, Canasta (<canasta@localhost>) escribió:",
    "Il giorno mar 1 dic 2026 alle ore 03:42 Canasta <canasta@localhost> ha scritto:",
    "Op di 1 dec 2026 om 03:42 schreef Canasta <canasta@localhost>:",
    "Den tirs. 1. dec. 2026 kl. 03.42 skrev Canasta <canasta@localhost>:",
    "tis 1 dec. 2026 kl. 03:42 skrev Canasta <canasta@localhost>:",
    "tir. 1. des. 2026 kl. 03:42 skrev Canasta <canasta@localhost>:",
    "wt., 1 gru 2026 o 03:42 Canasta <canasta@localhost> napisał(a):",
    "Em ter., 1 de dez. de 2026 às 03:42, Canasta <canasta@localhost> escreveu:",
    "ti 1. jouluk. 2026 klo 3.42 Canasta <canasta@localhost> kirjoitti:",
    # Apple Mail, Thunderbird, webmail
    "Am 01.12.2026 um 03:42 schrieb Canasta <canasta@localhost>:",
    "Am 01.12.26 um 03:42 schrieb Canasta:",
    "Canasta <canasta@localhost> hat am 1. Dez. 2026 um 03:42 folgendes geschrieben:",
    "Þann 1.12.2026 kl. 03:42 skrifaði Canasta <canasta@localhost>:",
    # Nothing known: the generic rule (a line ending in ":" right above the quote).
    "Dne 1. 12. 2026 v 3:42 odesílatel Canasta <canasta@localhost> poslal(a):",
    "2026. dec. 1., kedd 03:42 időpontban Canasta <canasta@localhost> ezt írta:",
]


@pytest.mark.parametrize("attribution", ATTRIBUTIONS)
def test_attribution_above_the_quote(attribution: str) -> None:
    assert extract_reply_text(f"{COMMANDS}\n\n{attribution}\n\n{QUOTE}") == COMMANDS
    assert extract_reply_text(f"{COMMANDS}\n\n{attribution}\n{QUOTE}") == COMMANDS


def test_a_gmail_attribution_wrapped_over_two_lines() -> None:
    text = (
        f"{COMMANDS}\n\nAm Di., 1. Dez. 2026 um 03:42 Uhr schrieb Canasta by correspondence <\n"
        f"turns+g123.s2@canasta.example>:\n\n{QUOTE}"
    )
    assert extract_reply_text(text) == COMMANDS


@pytest.mark.parametrize(
    "header",
    [
        "Von: Canasta <canasta@localhost>\nGesendet: Dienstag, 1. Dezember 2026 03:40\n"
        "An: bob@example.com\nBetreff: [Canasta] Sie sind am Zug",
        "Frá: Canasta <canasta@localhost>\nSent: þriðjudagur, 1. desember 2026 03:40\n"
        "Til: jon@example.is\nEfni: [Canasta] Þú átt leik",
        "De : Canasta <canasta@localhost>\nEnvoyé : mardi 1 décembre 2026 03:40\n"
        "À : bob@example.com\nObjet : [Canasta] Votre tour",
        "Fra: Canasta <canasta@localhost>\nSendt: 1. december 2026 03:40\n"
        "Til: bob@example.com\nEmne: [Canasta] Din tur",
        "Från: Canasta <canasta@localhost>\nSkickat: den 1 december 2026 03:40\n"
        "Till: bob@example.com\nÄmne: [Canasta] Din tur",
        "Van: Canasta <canasta@localhost>\nVerzonden: dinsdag 1 december 2026 03:40\n"
        "Aan: bob@example.com\nOnderwerp: [Canasta] Jouw beurt",
        "Od: Canasta <canasta@localhost>\nWysłane: wtorek, 1 grudnia 2026 03:40\n"
        "Do: bob@example.com\nTemat: [Canasta] Twoja kolej",
    ],
)
def test_outlook_header_blocks_in_other_languages(header: str) -> None:
    assert extract_reply_text(f"{COMMANDS}\n\n{header}\n\n{ORIGINAL}") == COMMANDS


@pytest.mark.parametrize(
    "footer",
    [
        "Von meinem iPhone gesendet",
        "Gesendet von meinem Samsung Galaxy",
        "Outlook für Android herunterladen",
        "Outlook für iOS herunterladen",
        "Sent from my iPhone",
        "Sendt fra min iPhone",
        "Skickat från min iPhone",
        "Sent úr iPhone",
        "Sent frá Outlook fyrir iOS",
        "Verstuurd vanaf mijn iPhone",
        "Envoyé de mon iPhone",
        "Enviado desde mi iPhone",
        "Inviato da iPhone",
        "Wysłane z iPhone'a",
        "Diese Nachricht wurde von meinem Android-Mobiltelefon mit GMX Mail gesendet.",
    ],
)
def test_phone_footers(footer: str) -> None:
    assert extract_reply_text(f"{COMMANDS}\n\n{footer}\n\nSome text") == COMMANDS


@pytest.mark.parametrize(
    "signature",
    [
        "Viele Grüße\nJörg",
        "Viele Grüsse,\nJörg Müller",
        "Mit freundlichen Grüßen\nJörg Müller",
        "LG",
        "LG Jörg",
        "MfG",
        "Best regards,\nAlice",
        "Best regards,\nAlice – Team Canasta",
        "Kveðja,\nJón",
        "Bestu kveðjur\nJón Jónsson",
        "Cordialement,\nMarie",
        "Met vriendelijke groet,\nJan",
        "Med venlig hilsen\nSøren",
        "Thanks partner, fingers crossed!\nBob",
        "Takk\nJón",  # one letter from the verb "taka": still a closing
        "Takk fyrir,\nJón",
        "Hilsen\nSøren",
    ],
)
def test_closing_signatures_without_delimiter(signature: str) -> None:
    # After a blank line, or right under the commands when it is a known closing.
    assert extract_reply_text(f"{COMMANDS}\n\n{signature}") == COMMANDS
    if signature.split("\n")[0].rstrip(",").lower() not in ("thanks partner, fingers crossed!",):
        assert extract_reply_text(f"{COMMANDS}\n{signature}") == COMMANDS


@pytest.mark.parametrize(
    "tail",
    [
        "dicsard 9c",  # a mistyped verb
        "abwefren 9kr",
        "disard 9c",
        "9c",  # a card on its own line
        "meld 7h 7d 7s",
        "Bæta 5l við fimmurnar",
    ],
)
def test_a_line_that_looks_like_a_command_is_never_dropped(tail: str) -> None:
    text = f"{COMMANDS}\n\n{tail}\nJörg"
    assert extract_reply_text(text) == text
    assert looks_like_command(tail)


def test_signature_rules_need_a_command_first_and_stay_short() -> None:
    # Nothing but chatter: kept, so the reply is refused and the player told why.
    assert drop_signature(["Viele Grüße", "Jörg"]) == ["Viele Grüße", "Jörg"]
    # A long letter under the commands is not a signature.
    letter = ["draw", "", *[f"line {n} of a long story" for n in range(8)]]
    assert drop_signature(letter) == letter
    # Chatter right under the commands, with no blank line and no closing word: kept.
    assert drop_signature(["draw", "by the way, nice game"]) == ["draw", "by the way, nice game"]
    assert not looks_like_command("Viele Grüße")
    assert not looks_like_command("Kveðja,")
