"""The table on a phone, second pass (issue 28), in a real browser:

- every action is played in place: the pile taken with nothing selected, "Discard" with two
  cards selected, "Meld" with none: no page load (a mark left on the page's window survives),
  the scroll stays, a refusal is shown in the dock;

Screenshots: var/screenshots/phone-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game
from notifications.services.preferences import preference_update
from tests.browser.conftest import PHONE
from tests.browser.helpers import pick, table_of, wait_for_change, when_free
from tests.game_fixtures import start_game, users  # noqa: F401
from tests.web.tables import SHOWN_TABLE, set_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The pile's top is a king and alice holds two: the pile can be taken with nothing selected.
PILE_TABLE = {**SHOWN_TABLE, "discard": ["4S", "8C", "KC"]}
ZONES = {"de": "Europe/Berlin", "is": "Atlantic/Reykjavik", "en": "Europe/London"}


def _game(users: Any, table: dict[str, Any], lang: str = "en") -> Game:  # noqa: F811
    preference_update(user=users["alice"], language=lang, time_zone=ZONES[lang])
    return when_free(lambda: set_table(start_game(users, turn_seconds=86400), table))


def _no_reload_since(page: Any) -> None:
    assert page.evaluate("window.__stayed") == 1, "the page was loaded again"


def _refusal(page: Any, words: str) -> None:
    alert = page.locator("#move-error")
    alert.get_by_text(words).wait_for()
    box = alert.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
    assert page.evaluate("document.activeElement.id") == "move-error"


def test_every_action_is_played_in_place(
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
) -> None:
    game = _game(users, PILE_TABLE)
    page = new_page(PHONE, user=users["alice"])
    page.goto(f"/games/{game.pk}/")
    page.evaluate("window.__stayed = 1")

    version = page.locator("#table").get_attribute("data-version")
    page.locator("#pile").click()  # nothing selected: the engine's first way to take it
    wait_for_change(page, version)
    after = table_of(game.pk)
    assert after.phase == "play" and after.discard == [] and "K" in after.melds[0]
    _no_reload_since(page)

    pick(page, "7D")
    pick(page, "7C")
    page.get_by_role("button", name="Discard", exact=True).click()
    _refusal(page, "Select exactly one card to discard.")
    assert page.locator("#c-7D-1").is_checked()  # the selection stays
    screenshot(page, "phone-refusal-in-place", full_page=False)
    page.locator("label[for='c-7D-1']").click()
    page.locator("label[for='c-7C-1']").click()
    page.get_by_role("button", name="Meld", exact=True).click()
    _refusal(page, "Select the cards to meld first.")
    page.get_by_role("button", name="Set aside as a meld").click()
    _refusal(page, "Select the cards of the meld to set aside first.")
    assert table_of(game.pk).to_json() == after.to_json()  # nothing changed
    _no_reload_since(page)
