"""The main pages in German and Icelandic, as a player whose browser speaks the language sees
them: welcome, sign-up (the language and the browser's time zone are saved), lobby, a new
table, Settings; and a visitor's language switcher. Screenshots: var/screenshots/
(welcome-de.png, signup-de.png, lobby-de.png, create-de.png, settings-de.png, the same with
-is, and lobby-de-phone.png)."""

from __future__ import annotations

from typing import Any

import pytest

from notifications.models import NotificationPreference
from notifications.services.preferences import preference_update
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.helpers import PASSWORD, when_free
from tests.game_fixtures import start_game, users  # noqa: F401
from tests.web.tables import SHOWN_TABLE, set_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# What each language's pages say, and where its players live.
WORDS = {
    "de": {
        "locale": "de-DE",
        "zone": "Europe/Berlin",
        "title": "Canasta per Post",
        "create_account": "Konto anlegen",
        "sign_up": "Registrieren",
        "welcome": "Willkommen, {name}!",
        "your_games": "Ihre Partien",
        "new_table": "Tisch eröffnen",
        "variant": "Spielart",
        "classic": "Klassisches Canasta",
        "settings": "Einstellungen",
        "language_zone": "Sprache und Zeitzone",
    },
    "is": {
        "locale": "is-IS",
        "zone": "Atlantic/Reykjavik",
        "title": "Canasta í bréfaskiptum",
        "create_account": "Stofna aðgang",
        "sign_up": "Nýskrá",
        "welcome": "Velkomin(n), {name}!",
        "your_games": "Leikirnir þínir",
        "new_table": "Opna borð",
        "variant": "Afbrigði",
        "classic": "Klassísk canasta",
        "settings": "Stillingar",
        "language_zone": "Tungumál og tímabelti",
    },
}


def _context_page(browser: Any, live_server: Any, lang: str, viewport: dict[str, int]) -> Any:
    context = browser.new_context(
        viewport=viewport,
        base_url=live_server.url,
        locale=WORDS[lang]["locale"],
        timezone_id=WORDS[lang]["zone"],
    )
    context.set_default_timeout(15_000)
    return context


@pytest.mark.parametrize("lang", ["de", "is"])
def test_the_main_pages_in_the_players_language(
    browser: Any, live_server: Any, screenshot: Any, lang: str
) -> None:
    words = WORDS[lang]
    context = _context_page(browser, live_server, lang, DESKTOP)
    page = context.new_page()
    try:
        page.goto("/")
        page.get_by_role("heading", name=words["title"], exact=True).wait_for()
        assert page.locator("html").get_attribute("lang") == lang
        screenshot(page, f"welcome-{lang}")

        page.get_by_role("link", name=words["create_account"]).first.click()
        assert page.locator("#id_language").input_value() == lang  # from Accept-Language
        name = f"spieler{lang}"
        page.locator("#id_username").fill(name)
        page.locator("#id_email").fill(f"{name}@example.com")
        page.locator("#id_password1").fill(PASSWORD)
        page.locator("#id_password2").fill(PASSWORD)
        screenshot(page, f"signup-{lang}")
        page.get_by_role("button", name=words["sign_up"]).click()
        page.get_by_text(words["welcome"].format(name=name)).wait_for()
        preference = when_free(lambda: NotificationPreference.objects.get(user__username=name))
        # The browser's own time zone was sent with the form.
        assert (preference.language, preference.time_zone) == (lang, words["zone"])
        page.get_by_role("heading", name=words["your_games"]).wait_for()
        screenshot(page, f"lobby-{lang}")

        page.get_by_role("link", name=words["new_table"]).first.click()
        page.get_by_label(words["variant"]).select_option("classic")
        assert words["classic"] in page.get_by_label(words["variant"]).inner_text()
        text = page.locator("main").inner_text()
        assert "§" not in text and ".md" not in text and "seed" not in text
        screenshot(page, f"create-{lang}")

        page.get_by_role("link", name=words["settings"]).click()
        page.get_by_role("heading", name=words["language_zone"]).wait_for()
        assert page.locator("#id_time_zone").input_value() == words["zone"]
        screenshot(page, f"settings-{lang}")
    finally:
        context.close()


def test_a_visitor_switches_the_language_in_the_header(
    browser: Any, live_server: Any, screenshot: Any
) -> None:
    context = _context_page(browser, live_server, "de", PHONE)
    page = context.new_page()
    try:
        page.goto("/login/")
        page.get_by_role("heading", name="Anmelden").wait_for()
        page.locator("#language-switch").select_option("is")
        page.get_by_role("heading", name="Skrá inn").wait_for()
        assert page.locator("html").get_attribute("lang") == "is"
        assert page.url.endswith("/login/")
    finally:
        context.close()


def test_the_lobby_on_a_phone_in_german(
    browser: Any, live_server: Any, screenshot: Any, django_user_model: Any
) -> None:
    from django.conf import settings
    from django.test import Client

    from notifications.services.preferences import preference_update

    user = when_free(lambda: django_user_model.objects.create_user("oma", "oma@example.com"))
    preference_update(user=user, language="de", time_zone="Europe/Berlin")
    context = _context_page(browser, live_server, "de", PHONE)
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": live_server.url}])
    page = context.new_page()
    try:
        page.goto("/")
        page.get_by_role("heading", name="Ihre Partien").wait_for()
        screenshot(page, "lobby-de-phone")
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["de", "is"])
def test_the_game_page_fits_a_phone_in_the_players_language(
    new_page: Any,
    users: Any,  # noqa: F811
    screenshot: Any,
    lang: str,
) -> None:
    """The longer German and Icelandic notes (a frozen pile blocked by a black three) wrap
    instead of widening the page: no sideways scrolling on a phone."""
    table = {**SHOWN_TABLE, "discard": ["4S", "2C", "3C"]}
    game = when_free(lambda: set_table(start_game(users, turn_seconds=86400), table))
    preference_update(user=users["alice"], language=lang, time_zone=WORDS[lang]["zone"])
    page = new_page(PHONE, user=users["alice"])
    page.goto(f"/games/{game.pk}/")
    page.locator(".pile .badge.blocked").wait_for()
    assert page.locator("html").get_attribute("lang") == lang
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, f"game-{lang}-phone", full_page=False)
