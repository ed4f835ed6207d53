"""The pages in the reader's language: a visitor's browser language or switcher choice, a
signed-in user's preference; dates in the user's time zone; sign-up and Settings save the
language and the time zone."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.utils import timezone

from games.models import Game
from games.services.moves import moves_submit
from notifications.models import NotificationPreference
from notifications.services.absences import absence_declare
from notifications.services.preferences import preference_of
from tests.game_fixtures import current_table

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("accept", "lang", "phrase"),
    [
        ("de-DE,de;q=0.9,en;q=0.5", "de", "Konto anlegen"),
        ("is-IS,is;q=0.9", "is", "Stofna aðgang"),
        ("fr-FR,fr;q=0.9", "en", "Create an account"),
        ("", "en", "Create an account"),
    ],
)
def test_a_visitor_reads_the_browser_language(accept: str, lang: str, phrase: str) -> None:
    response = Client(HTTP_ACCEPT_LANGUAGE=accept).get("/")
    html = response.content.decode()
    assert response["Content-Language"] == lang
    assert f'<html lang="{lang}">' in html
    assert phrase in html


def test_the_switcher_changes_a_visitors_language_and_says_so_in_every_language() -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    page = client.get("/login/").content.decode()
    assert '<option value="is" lang="is">Íslenska</option>' in page  # each named in itself
    answer = client.post("/language/", {"language": "is", "next": "/login/"})
    assert answer.status_code == 302 and answer["Location"] == "/login/"
    assert "Skrá inn" in client.get("/login/").content.decode()


def test_a_signed_in_users_preference_wins_over_the_browser(users: Any, browser_for: Any) -> None:
    client = browser_for("alice", language="is")
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Leikirnir þínir" in html and "Ihre Partien" not in html


def test_switching_language_signed_in_saves_the_preference(users: Any, browser_for: Any) -> None:
    client = browser_for("alice")
    client.post("/language/", {"language": "de", "next": "/"})
    assert preference_of(user=users["alice"]).language == "de"
    assert "Ihre Partien" in client.get("/").content.decode()


def test_sign_up_defaults_to_the_browser_language_and_saves_it() -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="is")
    form = client.get("/signup/").content.decode()
    assert '<option value="is" selected>Íslenska</option>' in form
    answer = client.post(
        "/signup/",
        {
            "username": "jon",
            "email": "jon@example.com",
            "password1": "kanasta-spil-2026",
            "password2": "kanasta-spil-2026",
            "language": "is",
            "time_zone": "",
        },
    )
    assert answer.status_code == 302
    preference = NotificationPreference.objects.get(user__username="jon")
    # No zone from the browser: the language's country.
    assert (preference.language, preference.time_zone) == ("is", "Atlantic/Reykjavik")
    assert "Velkomin(n), jon!" in client.get("/").content.decode()


def test_sign_up_keeps_the_browsers_time_zone() -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    client.post(
        "/signup/",
        {
            "username": "joerg",
            "email": "joerg@example.com",
            "password1": "kanasta-spiel-2026",
            "password2": "kanasta-spiel-2026",
            "language": "de",
            "time_zone": "Europe/Vienna",
        },
    )
    preference = NotificationPreference.objects.get(user__username="joerg")
    assert (preference.language, preference.time_zone) == ("de", "Europe/Vienna")


def test_settings_save_language_and_time_zone(users: Any, browser_for: Any) -> None:
    client = browser_for("alice")
    page = client.get("/settings/").content.decode()
    assert 'list="time-zones"' in page and '<option value="Atlantic/Reykjavik">' in page
    answer = client.post(
        "/settings/", {"form": "locale", "language": "de", "time_zone": "Europe/Berlin"}
    )
    assert answer.status_code == 302
    preference = preference_of(user=users["alice"])
    assert (preference.language, preference.time_zone) == ("de", "Europe/Berlin")
    assert "Sprache und Zeitzone gespeichert." in client.get("/settings/").content.decode()


def test_settings_refuse_an_unknown_time_zone_and_save_nothing(
    users: Any, browser_for: Any
) -> None:
    client = browser_for("alice", language="de")
    answer = client.post(
        "/settings/", {"form": "locale", "language": "is", "time_zone": "Mars/Base"}
    )
    assert answer.status_code == 400
    assert "„Mars/Base“ ist keine uns bekannte Zeitzone" in answer.content.decode()
    assert preference_of(user=users["alice"]).language == "de"


def test_dates_follow_the_users_time_zone_and_language(users: Any, browser_for: Any) -> None:
    start = (timezone.now() + timedelta(days=3)).replace(
        hour=23, minute=30, second=0, microsecond=0
    )
    absence_declare(user=users["alice"], starts_at=start, ends_at=start + timedelta(days=2))
    client = browser_for("alice", language="de", time_zone="Europe/Berlin")
    html = client.get("/settings/").content.decode()
    # 23:30 UTC is 00:30 or 01:30 the next day in Berlin, written the German way (1. Dezember).
    berlin = start.astimezone(ZoneInfo("Europe/Berlin"))
    assert f"{berlin.day}. " in html and berlin.strftime("%H:%M") in html
    assert "Zeiten in Europe/Berlin." in html


@pytest.mark.parametrize(
    ("lang", "phrases"),
    [
        ("de", ["Tisch eröffnen", "Spielart", "Klassisches Canasta", "Zeit pro Zug", "3 Tage"]),
        ("is", ["Opna borð", "Afbrigði", "Klassísk canasta", "Tími á hverja umferð", "3 dagar"]),
    ],
)
def test_the_create_form_is_translated_without_spec_references(
    users: Any, browser_for: Any, lang: str, phrases: list[str]
) -> None:
    html = browser_for("alice", language=lang).get("/games/new/").content.decode()
    for phrase in phrases:
        assert phrase in html
    for internal in ("classic.md", "variants.md", "§", "(seed)"):
        assert internal not in html


def test_the_lobby_in_icelandic(users: Any, browser_for: Any, game: Any) -> None:
    html = browser_for("alice", language="is").get("/").content.decode()
    assert "Leikirnir þínir" in html and "Klassísk canasta, 4 leikmenn" in html


def test_a_refusal_on_a_page_is_in_the_readers_language(users: Any, browser_for: Any) -> None:
    client = browser_for("alice", language="de")
    form = {
        "variant": "classic",
        "players": "4",
        "bots": "0",
        "bot_level": "basic",
        "invite": "niemand",
        "turn_seconds": "86400",
        "timeout_policy": "autoplay",
    }
    answer = client.post("/games/new/", form)
    assert answer.status_code == 400
    assert "Es gibt keinen Spieler mit dem Benutzernamen niemand." in answer.content.decode()


def test_a_vacation_is_planned_in_whole_days_of_the_users_zone(
    users: Any, browser_for: Any
) -> None:
    from datetime import datetime

    from notifications.models import Absence

    client = browser_for("alice", language="de", time_zone="Europe/Berlin")
    today = timezone.now().astimezone(ZoneInfo("Europe/Berlin")).date()
    starts, returns = today + timedelta(days=10), today + timedelta(days=12)
    answer = client.post(
        "/settings/",
        {"form": "absence", "starts": starts.isoformat(), "returns": returns.isoformat()},
    )
    assert answer.status_code == 302
    absence = Absence.objects.get(user=users["alice"])
    berlin = ZoneInfo("Europe/Berlin")
    assert absence.starts_at == datetime(starts.year, starts.month, starts.day, tzinfo=berlin)
    assert absence.ends_at == datetime(returns.year, returns.month, returns.day, tzinfo=berlin)


def _alice_draws_and_discards(game: Any, alice: Any) -> None:
    game = Game.objects.get(pk=game.pk)
    game = moves_submit(
        game_id=game.pk, user=alice, actions=[{"type": "draw"}], expected_version=game.version
    )
    card = current_table(game).hands[0][0]
    moves_submit(
        game_id=game.pk,
        user=alice,
        actions=[{"type": "discard", "card": card}],
        expected_version=game.version,
    )


@pytest.mark.parametrize(
    ("lang", "phrases", "never"),
    [
        (
            "de",
            ["Klassisches Canasta, 4 Spieler", "Sie zogen", "Sie warfen ab"],
            ["Classic Canasta", "Du ", "Deine Hand"],
        ),
        ("is", ["Klassísk canasta, 4 leikmenn", "Þú dróst", "Þú kastaðir"], ["Classic Canasta"]),
        ("en", ["Classic Canasta, 4 players", "You drew", "You discarded"], []),
    ],
)
def test_the_game_page_speaks_to_the_reader_in_their_language(
    users: Any, browser_for: Any, game: Any, lang: str, phrases: list[str], never: list[str]
) -> None:
    """The reader's own moves are told in the second person, with the verb conjugated for it
    (German "Sie warfen ab", Icelandic "Þú kastaðir"), not another player's line with "you"
    put in as a name; German says "Sie" throughout; the variant's name is translated."""
    _alice_draws_and_discards(game, users["alice"])
    html = browser_for("alice", language=lang).get(f"/games/{game.pk}/").content.decode()
    for phrase in phrases:
        assert phrase in html, phrase
    for phrase in never:
        assert phrase not in html, phrase
    # Another reader sees alice's moves with her name.
    other = browser_for("bob", language=lang).get(f"/games/{game.pk}/").content.decode()
    assert "alice" in other and phrases[2] not in other


@pytest.mark.parametrize("accept", ["de-DE,de;q=0.9", "is-IS", "en"])
def test_the_switcher_names_each_language_in_its_own_words(accept: str) -> None:
    """A reader who landed on a page in a language they do not read still finds their own."""
    html = Client(HTTP_ACCEPT_LANGUAGE=accept).get("/").content.decode()
    options = re.findall(r'<option value="(\w+)" lang="\w+"[^>]*>([^<]+)</option>', html)
    assert options == [("en", "English"), ("de", "Deutsch"), ("is", "Íslenska")]


def test_a_bots_level_is_in_the_readers_language(users: Any, browser_for: Any) -> None:
    client = browser_for("alice", language="de")
    form = {
        "variant": "classic",
        "players": "4",
        "bots": "3",
        "bot_level": "strong",
        "turn_seconds": "86400",
        "timeout_policy": "autoplay",
    }
    page = client.post("/games/new/", form, follow=True).content.decode()
    assert page.count("Bot, stark") == 3 and "Bot, strong" not in page


def test_the_leaderboard_names_the_variants_in_the_readers_language(
    users: Any, browser_for: Any
) -> None:
    html = browser_for("alice", language="de").get("/leaderboard/").content.decode()
    assert "Bestenliste: Klassisches Canasta" in html and "Classic Canasta" not in html
