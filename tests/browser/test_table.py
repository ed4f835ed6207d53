"""The game page at the table (issue 18), in a real browser at desktop and phone sizes:

- a normal turn (tap the stock, pick a card, discard) is played without scrolling: everything
  it needs lies inside the viewport, measured by bounding boxes;
- going out with the "Go out" action, then the hand's score sheet, read from the page and
  checked against the engine's scoring of the hand, acknowledged before the next hand shows;
- axe-core (pinned in requirements-dev.txt, axe-playwright-python bundles it) finds no
  violation on our pages.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.models import Game, Hand
from tests.browser.conftest import PHONE
from tests.browser.helpers import pick, table_of, wait_for_change, when_free
from tests.game_fixtures import start_game, users  # noqa: F401
from tests.web.tables import SHOWN_TABLE, going_out_table, set_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
SIZES = {"desktop": DESKTOP, "phone": PHONE}


def _game(users: Any, table: dict[str, Any]) -> Game:  # noqa: F811
    return when_free(lambda: set_table(start_game(users, turn_seconds=86400), table))


def _in_view(page: Any, locator: Any) -> None:
    """Every element of ``locator`` lies wholly inside the viewport as the page stands (the
    page has not been scrolled)."""
    size = page.viewport_size
    assert page.evaluate("window.scrollY") == 0
    count = locator.count()
    assert count > 0
    for i in range(count):
        box = locator.nth(i).bounding_box()
        assert box is not None, f"{locator} #{i} is not shown"
        assert box["y"] >= 0 and box["x"] >= 0, (locator, i, box)
        assert box["y"] + box["height"] <= size["height"] + 0.5, (locator, i, box, size)
        assert box["x"] + box["width"] <= size["width"] + 0.5, (locator, i, box, size)


def _axe(page: Any) -> None:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    violations = results.response["violations"]
    assert not violations, results.generate_report()


@pytest.mark.parametrize("size", SIZES)
def test_a_turn_is_played_without_scrolling(
    size: str,
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
) -> None:
    game = _game(users, SHOWN_TABLE)
    page = new_page(SIZES[size], user=users["alice"])
    page.goto(f"/games/{game.pk}/")
    # The turn mark once (it was doubled on load before), and gone after the move.
    assert page.title().startswith("Your turn — ") and page.title().count("Your turn") == 1
    icon = "document.querySelector('link[rel=icon]').href"
    assert page.evaluate(icon).startswith("data:image/svg+xml")  # the favicon's turn dot
    # Before the draw: the stock (a button), the hand and the action bar are all in view.
    _in_view(page, page.locator("#stock"))
    _in_view(page, page.locator("#move-form label.pick"))
    _in_view(page, page.locator("#actions button"))
    screenshot(page, f"table-{size}", full_page=False)
    _axe(page)

    version = page.locator("#table").get_attribute("data-version")
    page.locator("#stock").click()  # tap the stock to draw
    wait_for_change(page, version)
    drawn = table_of(game.pk).hands[0]
    new = page.locator("#move-form label.pick.new")
    assert new.count() == 1  # the card just drawn is marked
    code = new.locator("input").get_attribute("value")
    assert code in drawn and len(drawn) == 9
    _in_view(page, page.locator("#move-form label.pick"))
    _in_view(page, page.get_by_role("button", name="Discard", exact=True))
    # Live points against the minimum (alice's side has melded: no minimum, just points).
    pick(page, "KH")
    assert page.locator("#points").inner_text() == "Selected: 10 points"
    screenshot(page, f"table-{size}-drawn", full_page=False)

    version = page.locator("#table").get_attribute("data-version")
    page.get_by_role("button", name="Discard", exact=True).click()
    wait_for_change(page, version)
    assert table_of(game.pk).turn == 1
    assert "Your turn" not in page.title()  # the mark is gone
    assert not page.evaluate(icon).startswith("data:")
    assert page.evaluate("window.scrollY") == 0
    # Focus did not fall to the page's body.
    assert page.evaluate("document.activeElement !== document.body")


@pytest.mark.parametrize("size", SIZES)
def test_going_out_and_reading_the_score_sheet(
    size: str,
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
) -> None:
    game = _game(users, going_out_table(0))
    page = new_page(SIZES[size], user=users["alice"])
    page.goto(f"/games/{game.pk}/")
    go_out = page.get_by_role("button", name="Go out", exact=True)
    _in_view(page, go_out)
    assert "Discard" in page.locator("#go-out-how").inner_text()
    go_out.click()

    sheet = page.locator(".panel.sheet")
    sheet.wait_for()
    hand = when_free(lambda: Hand.objects.get(game_id=game.pk, number=1))
    result = hand.result
    assert result is not None and result["went_out"] == 0
    # The sheet on the page says what the engine scored, line by line, side by side.
    rows = {
        row.locator("th").inner_text().strip(): [
            c.strip() for c in row.locator("td").all_inner_texts()
        ]
        for row in sheet.locator("tbody tr").all()
    }
    detail = result["detail"]

    def number(text: str) -> int:
        found = re.findall(r"[+\-]?[\d,]+$", text.replace("−", "-"))
        return int(found[-1].replace(",", "")) if found else 0

    assert [number(c) for c in rows["Cards melded"]] == [d["melded"] for d in detail]
    assert [number(c) if c != "—" else 0 for c in rows["Natural canastas"]] == [
        d["canastas"] for d in detail
    ]
    assert [number(c) if c != "—" else 0 for c in rows["Going out"]] == [
        d["going_out"] for d in detail
    ]
    assert [number(c) for c in rows["Cards left in hand"]] == [-d["in_hand"] for d in detail]
    assert [number(c) for c in rows["Hand total"]] == result["scores"]
    assert [number(c) for c in rows["Match total"]] == result["totals"]
    # Every hand is revealed, and the next hand waits until alice has read the sheet.
    assert sheet.get_by_text("King of clubs").count() >= 1
    assert page.locator("#move-form").count() == 0
    screenshot(page, f"score-sheet-{size}", full_page=size == "desktop")
    _axe(page)

    page.get_by_role("button", name="On to the next hand").click()
    page.locator("#move-form").wait_for()
    assert "Hand 2" in page.locator(".table-meta").inner_text()
    seen = when_free(lambda: game.seats.get(number=0).sheet_seen)
    assert seen == 1

    page.goto(f"/games/{game.pk}/scores/")
    page.locator("#hand-1").wait_for()
    _axe(page)
    if size == "desktop":
        screenshot(page, "match-score-sheets")


def test_the_lobby_has_no_accessibility_violations(
    users: Any,  # noqa: F811
    new_page: Any,
) -> None:
    _game(users, SHOWN_TABLE)
    for viewport in SIZES.values():
        page = new_page(viewport, user=users["alice"])
        page.goto("/")
        _axe(page)


FAKE_NOTIFICATIONS = """
window.__notes = [];
window.__hidden = false;
window.Notification = function (title, options) {
  window.__notes.push([title, options && options.body]);
};
window.Notification.permission = "default";
window.Notification.requestPermission = function () {
  window.Notification.permission = "granted";
  return Promise.resolve("granted");
};
Object.defineProperty(document, "hidden", { get: function () { return window.__hidden; } });
"""


def test_a_browser_notification_when_the_turn_comes_while_the_tab_is_hidden(
    users: Any,  # noqa: F811
    new_page: Any,
) -> None:
    from games.services.moves import moves_submit

    game = _game(users, {**SHOWN_TABLE, "turn": 3, "dealer": 2})
    page = new_page(DESKTOP, user=users["alice"])
    page.add_init_script(FAKE_NOTIFICATIONS)
    page.goto(f"/games/{game.pk}/")
    # Opt in: the button asks the browser, then hides.
    page.get_by_role("button", name="Tell me when it is my turn").click()
    page.get_by_role("button", name="Tell me when it is my turn").wait_for(state="hidden")
    assert "Your turn" not in page.title()
    dave = users["dave"]
    game = when_free(
        lambda: moves_submit(
            game_id=game.pk, user=dave, actions=[{"type": "draw"}], expected_version=game.version
        )
    )
    when_free(
        lambda: moves_submit(
            game_id=game.pk,
            user=dave,
            actions=[{"type": "discard", "card": "6H"}],
            expected_version=game.version,
        )
    )
    page.evaluate("window.__hidden = true")  # the player looks at another tab
    page.wait_for_function("window.__notes.length > 0")
    assert page.evaluate("window.__notes") == [["Your turn", "It is your turn in Classic Canasta."]]
    assert page.title().startswith("Your turn — ")
