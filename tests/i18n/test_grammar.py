"""Sentences that agree (docs/glossary.md, docs/i18n.md): a game named without a noun so the
sentence gives "Partie"/"leikur" its case, the table line of an invitation in the reader's
language, a two-player winner addressed as a person, Icelandic bot levels neuter like
"vélmenni", and melds named as labels where Icelandic would need another case."""

from __future__ import annotations

import re

import pytest
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games.mail.text import game_line, table_line
from games.services import lobby
from notifications.emails import render
from notifications.payloads import match_over_payload
from tests.i18n.catalogues import ROOT, catalogues, po_entries

ID = "f352d22b-0000-0000-0000-000000000000"


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        ("de", "Sie sind am Zug in der Partie f352d22b (Klassisches Canasta)."),
        ("is", "Þú átt leik í leiknum f352d22b (klassísk canasta)."),
        ("en", "It is your turn in classic game f352d22b."),
    ],
)
def test_a_game_takes_the_case_its_sentence_gives_it(lang: str, sentence: str) -> None:
    with translation.override(lang):
        text = _("It is your turn in %(game)s. %(deadline)s") % {
            "game": game_line("classic", ID),
            "deadline": "",
        }
    assert text.strip() == sentence


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("de", "Klassisches Canasta, 2 Spieler, "),
        ("is", "Klassísk canasta, 2 leikmenn, "),
        ("en", "Classic Canasta, 2 players, no time limit"),
    ],
)
def test_the_invitation_table_line_is_in_the_readers_language(lang: str, line: str) -> None:
    with translation.override(lang):
        assert table_line("classic", 2, None).startswith(line)
        assert "Classic" not in table_line("classic", 2, 86400) or lang == "en"


def test_icelandic_words_agree_and_melds_stand_as_labels() -> None:
    with translation.override("is"):
        assert pgettext("bot level", "basic") == "venjulegt"
        assert pgettext("bot level", "strong") == "sterkt"
        added = _("You added to %(meld)s:") % {"meld": "Fimmur"}
        assert added == "Þú bættir við sögn (Fimmur):"
        assert _("You drew") == "Þú dróst"


@pytest.mark.django_db
@pytest.mark.parametrize(("lang", "won"), [("de", "Sie haben gewonnen."), ("is", "Þú vannst.")])
def test_a_two_player_winner_is_addressed_as_a_person(users, lang: str, won: str) -> None:
    game = lobby.game_create(
        creator=users["alice"], variant="classic", players=2, options={"seating": "invitation"}
    )
    game = lobby.game_join(game_id=game.pk, user=users["bob"])
    over = render(
        kind="match_over",
        payload=match_over_payload(
            game=game, seat=0, totals=[5100, 3000], winner_side=0, reason="match_over"
        ),
        lang=lang,
    )
    assert won in over.text
    assert "Team" not in over.text and "lið" not in over.text.split("\n\n")[0]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "wrong"), [("de", "das selbe Passwort"), ("is", "ekki broddstafir")]
)
def test_the_signup_help_says_what_is_accepted(client, lang: str, wrong: str) -> None:
    page = client.get("/signup/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert wrong not in page
    assert "Guðrún" in page


@pytest.mark.parametrize(("players", "de", "is_"), [(2, "Sie", "þú"), (4, "Ihr Team", "þitt lið")])
def test_the_readers_side_is_a_team_only_with_partners(players: int, de: str, is_: str) -> None:
    from games.models import Game
    from web.presenters import my_side_name

    game = Game(variant="classic", players=players)
    with translation.override("de"):
        assert my_side_name(game) == de
    with translation.override("is"):
        assert my_side_name(game) == is_


@pytest.mark.parametrize(
    ("lang", "scored", "unscored"),
    [
        ("de", "Runde 1: Ihr Team 135, klaus & jorg 1.425", "Runde 2 endete ohne Wertung."),
        ("is", "Umferð 1: Þitt lið 135, klaus & jorg 1.425", "Umferð 2 lauk án stiga."),
    ],
)
def test_earlier_hands_name_the_sides_and_say_when_a_hand_has_no_score(
    lang: str, scored: str, unscored: str
) -> None:
    from notifications.services.summaries import earlier_hands_paragraphs

    payload = {
        "game": {"players": 4},
        "seat": 0,
        "names": ["hilde", "klaus", "gudrun", "jorg"],
        "totals": [135, 1425],
        "earlier_hands": [{"hand": 1, "scores": [135, 1425]}, {"hand": 2, "scores": []}],
    }
    with translation.override(lang):
        lines = earlier_hands_paragraphs(payload)
    assert lines[1:] == [scored, unscored]


@pytest.mark.django_db
def test_a_two_player_game_page_offers_no_partner(users, browser_for) -> None:
    game = lobby.game_create(
        creator=users["alice"],
        variant="classic",
        players=2,
        options={"seating": "invitation", "ask_partner": True},
    )
    lobby.game_join(game_id=game.pk, user=users["bob"])
    page = browser_for("alice", language="de").get(f"/games/{game.pk}/").content.decode()
    assert "Partner" not in page and "Ihr Team" not in page


@pytest.mark.parametrize(
    ("members", "lang", "end"),
    [
        (1, "de", "alice hat gewonnen."),
        (2, "de", "alice & bob haben gewonnen."),
        (2, "is", "alice & bob unnu."),
    ],
)
def test_the_match_over_line_agrees_with_the_number_of_winners(
    members: int, lang: str, end: str
) -> None:
    from django.utils.translation import ngettext

    side = "alice" if members == 1 else "alice & bob"
    with translation.override(lang):
        text = ngettext(
            "The match is over (%(reason)s): %(side)s won.",
            "The match is over (%(reason)s): %(side)s won.",
            members,
        ) % {"reason": "x", "side": side}
    assert text.endswith(end)


# A player's name cannot be declined: Icelandic sentences keep it in the nominative (as a
# subject, or after a colon), never where a preposition or a noun would ask for another case
# ("beðið eftir Jón", "hjá Jón", "borð Jón" read wrong to every Icelander).
PERSON = r"%\((?:name|who|asker|winner|partner|opponent|inviter|owner|creator|player)\)s"
GOVERNS_CASE = re.compile(
    r"(?<![\w])(?:á(?! " + PERSON + r" leik)|við|með|frá|til|fyrir|gegn|hjá|um|af|móti|handa"
    r"|eftir|án|í|svari|borð|hönd|lið|skilaboð)\s+" + PERSON
)


def test_icelandic_never_puts_a_name_where_it_would_need_declining() -> None:
    offending = [
        f"{path.relative_to(ROOT)}:{entry.line}: {text}"
        for path in catalogues()
        if path.parent.parent.name == "is"
        for entry in po_entries(path)
        for text in entry.msgstr.values()
        if GOVERNS_CASE.search(text)
    ]
    assert offending == []


def test_the_name_check_catches_a_declined_position() -> None:
    assert GOVERNS_CASE.search("Beðið eftir %(name)s.")
    assert GOVERNS_CASE.search("Tíminn rann út hjá %(name)s.")
    assert not GOVERNS_CASE.search("Nú á %(name)s leik.")
    assert not GOVERNS_CASE.search("Beðið eftir að %(name)s kasti.")
