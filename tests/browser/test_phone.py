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
from tests.web.tables import SHOWN_TABLE, going_out_table, set_table

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
    # A double tap selects a whole rank; with a wild card that is a meld.
    page.locator("label[for='c-7D-1']").dblclick()
    assert page.locator("#c-7D-1").is_checked() and page.locator("#c-7C-1").is_checked()
    pick(page, "2C")
    version = page.locator("#table").get_attribute("data-version")
    page.get_by_role("button", name="Meld", exact=True).click()
    wait_for_change(page, version)
    assert sorted(table_of(game.pk).melds[0]["7"]) == ["2C", "7C", "7D"]
    _no_reload_since(page)


# Both sides have melds (two canastas, open melds of three and four) and alice holds 11 cards:
# what she needs to see while she chooses.
FIT_TABLE: dict[str, Any] = {
    **SHOWN_TABLE,
    "hands": [
        ["KH", "KS", "7D", "7C", "5S", "JK", "2C", "4H", "9H", "9D", "6S"],
        ["9C", "9C", "QD"],
        ["8H", "8S"],
        ["6D", "6D", "6H"],
    ],
    "melds": [
        {
            "A": ["AH", "AS", "AD", "AC", "AH", "AS", "AD"],
            "Q": ["QH", "QS", "QC", "QH", "QS", "2D", "JK"],
            "T": ["TH", "TS", "TC"],
        },
        {"5": ["5H", "5D", "5C"], "J": ["JH", "JD", "JC", "JH"]},
    ],
    "melded": [True, True, True, True],
}
SIZES = {
    "360x640": {"width": 360, "height": 640},
    "375x740": {"width": 375, "height": 740},
    "390x844": {"width": 390, "height": 844},
    "1280x800": {"width": 1280, "height": 800},
}
GOAL = {"de": "5.000", "is": "5.000", "en": "5,000"}
MELD = {"de": "Melden", "is": "Leggja niður", "en": "Meld"}


def _box(page: Any, locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not shown"
    return box


def _above_dock(page: Any, locator: Any) -> None:
    """Each element lies wholly in the viewport above the dock (the page is not scrolled)."""
    dock = _box(page, page.locator("#move-form"))
    width = page.viewport_size["width"]
    for i in range(locator.count()):
        box = _box(page, locator.nth(i))
        assert box["y"] >= 0 and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5
        assert box["y"] + box["height"] <= dock["y"] + 0.5, (locator, i, box, dock)


def _tappable(page: Any, locator: Any) -> None:
    """At least 44×44 CSS px, inside the viewport, and what a tap at its centre reaches."""
    size = page.viewport_size
    for i in range(locator.count()):
        target = locator.nth(i)
        box = _box(page, target)
        assert box["width"] >= 44 and box["height"] >= 44, (locator, i, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, (i, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, (i, box)
        hit = target.evaluate(
            "(el, p) => { const h = document.elementFromPoint(p[0], p[1]);"
            " return !!h && (el === h || el.contains(h)); }",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert hit, (locator, i, "covered")


def _fits(page: Any) -> None:
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    header = _box(page, page.locator("header.site"))
    assert header["height"] <= 48, header  # one line
    _above_dock(page, page.locator("#stock"))
    _above_dock(page, page.locator("#pile"))
    _above_dock(page, page.locator(".side .meld"))  # every meld of every side
    _tappable(page, page.locator("#move-form label.pick"))
    _tappable(page, page.locator("#actions button, #actions select, #actions summary"))


@pytest.mark.parametrize("lang", ["de", "is"])
@pytest.mark.parametrize("size", SIZES)
def test_the_table_stays_in_view_while_choosing(
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
    size: str,
    lang: str,
) -> None:
    game = _game(users, FIT_TABLE, lang)
    page = new_page(SIZES[size], user=users["alice"])
    page.goto(f"/games/{game.pk}/")
    assert page.locator("html").get_attribute("lang") == lang
    assert GOAL[lang] in page.locator(".table-meta .goal").inner_text()  # the match's target
    screenshot(page, f"phone-fit-{size}-{lang}", full_page=False)
    _fits(page)
    assert "long-hand" not in (page.locator("#move-form").get_attribute("class") or "")
    version = page.locator("#table").get_attribute("data-version")
    page.locator("#stock").click()
    wait_for_change(page, version)
    page.evaluate("window.scrollTo(0, 0)")
    pick(page, "9H")
    pick(page, "9D")
    screenshot(page, f"phone-fit-{size}-{lang}-play", full_page=False)
    _fits(page)  # the play phase's buttons, two cards selected
    if size == "375x740":
        _axe(page)
        page.locator(".site-menu summary").click()  # the menu opens over the table
        page.locator(".site-menu nav a").first.wait_for()
        _axe(page)


def _every_card_in_reach(page: Any) -> int:
    """No card scrolls inside the dock, and each one scrolled into view is a whole target;
    returns how many cards the hand shows."""
    hand = page.locator("#move-form .hand")
    assert hand.evaluate("h => h.scrollHeight <= h.clientHeight + 1")  # no scroll inside
    cards = page.locator("#move-form label.pick")
    for i in range(cards.count()):
        cards.nth(i).evaluate("el => el.scrollIntoView({block: 'center'})")
        _tappable(page, cards.nth(i))
    return cards.count()


# After taking a big pile: 23 cards, more rows than the dock holds on a phone.
LONG_HAND = [
    "KH", "KS", "7D", "7C", "5S", "JK", "2C", "4H", "9H", "9D", "6S", "3C",
    "4D", "4S", "6H", "8C", "8D", "TD", "JC", "JS", "QD", "QC", "AC",
]  # fmt: skip


@pytest.mark.parametrize("lang", ["de", "is"])
def test_a_long_hand_shows_every_card_with_the_buttons_in_reach(
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
    lang: str,
) -> None:
    """A hand longer than the dock's rows is not cut and scrolled inside the dock over the
    player's own melds: the dock follows the table, every card can be scrolled to and tapped,
    and the buttons stay at the screen's bottom edge."""
    table = {**FIT_TABLE, "hands": [LONG_HAND, *FIT_TABLE["hands"][1:]], "phase": "play"}
    game = _game(users, table, lang)
    page = new_page(SIZES["360x640"], user=users["alice"])
    page.goto(f"/games/{game.pk}/")
    form = page.locator("#move-form")
    assert "long-hand" in (form.get_attribute("class") or "")
    screenshot(page, f"phone-long-hand-{lang}", full_page=False)
    assert page.evaluate("window.scrollY") == 0
    for target in ("#stock", "#pile", ".side .meld"):  # the whole table, unscrolled
        _above_dock(page, page.locator(target))
    buttons = page.locator("#actions button, #actions select")
    _tappable(page, buttons)  # in reach before any scrolling
    assert _every_card_in_reach(page) == len(LONG_HAND)
    _tappable(page, buttons)  # still at the bottom edge with the hand scrolled
    screenshot(page, f"phone-long-hand-{lang}-scrolled", full_page=False)
    # Melding shortens the hand: the dock holds the bottom edge again once it fits.
    for code in ("9H", "9D", "JK"):
        pick(page, code)
    version = page.locator("#table").get_attribute("data-version")
    page.get_by_role("button", name=MELD[lang], exact=True).click()
    wait_for_change(page, version)
    assert len(table_of(game.pk).hands[0]) == len(LONG_HAND) - 3
    assert "long-hand" in (form.get_attribute("class") or "")  # 20 cards: still long
    # The hand gets short again (the next refresh brings 11 cards): the dock holds the
    # screen's bottom edge once more, without a reload.
    version = page.locator("#table").get_attribute("data-version")
    when_free(lambda: set_table(Game.objects.get(pk=game.pk), {**FIT_TABLE, "phase": "play"}))
    wait_for_change(page, version)
    assert "long-hand" not in (form.get_attribute("class") or "")
    page.evaluate("window.scrollTo(0, 0)")
    _fits(page)


@pytest.mark.parametrize("size", ["360x640", "390x844"])
def test_without_javascript_a_long_hand_is_not_cut_either(
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
    size: str,
) -> None:
    """Nothing measures the hand without JavaScript: a hand longer than a phone's dock shows
    takes the long-hand layout by its count, and a hand that fits keeps the dock at the
    screen's bottom edge. Either way no card scrolls inside the dock."""
    width, height = (int(n) for n in size.split("x"))
    viewport = {"width": width, "height": height}
    long_table = {**FIT_TABLE, "hands": [LONG_HAND, *FIT_TABLE["hands"][1:]], "phase": "play"}
    for table, long in ((long_table, True), ({**FIT_TABLE, "phase": "play"}, False)):
        game = _game(users, table, "de")
        page = new_page(viewport, user=users["alice"], javascript=False)
        page.goto(f"/games/{game.pk}/")
        form = page.locator("#move-form")
        assert form.evaluate("f => getComputedStyle(f).position") == (
            "static" if long else "sticky"
        )
        for target in ("#stock", "#pile", ".side .meld"):  # the table, not under the dock
            _above_dock(page, page.locator(target))
        _tappable(page, page.locator("#actions button, #actions select"))
        _every_card_in_reach(page)
        screenshot(page, f"phone-no-js-{'long' if long else 'fit'}-{size}", full_page=False)


@pytest.mark.parametrize("lang", ["de", "is"])
def test_the_narrowest_phone_shows_the_stock_and_the_pile_side_by_side(
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
    lang: str,
) -> None:
    """320 CSS px (the smallest phones, or a larger one with a larger font): the stock's and
    the pile's long words do not push the pile off the screen's right edge."""
    game = _game(users, {**FIT_TABLE, "phase": "play"}, lang)
    page = new_page({"width": 320, "height": 568}, user=users["alice"])
    page.goto(f"/games/{game.pk}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    stock, pile = _box(page, page.locator("#stock")), _box(page, page.locator("#pile"))
    assert stock["x"] >= 0 and pile["x"] + pile["width"] <= 320
    assert abs(stock["y"] - pile["y"]) < 1  # one row
    screenshot(page, f"phone-320-{lang}", full_page=False)


def _axe(page: Any) -> None:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    assert not results.response["violations"], results.generate_report()


REACHED = """el => {
    el.scrollIntoView({ block: "center" });
    const r = el.getBoundingClientRect();
    // The middle of its visible part: a wide table scrolls sideways in its own box.
    const left = Math.max(r.left, 0);
    const x = left + (Math.min(r.right, window.innerWidth) - left) / 2;
    const hit = document.elementFromPoint(x, r.top + r.height / 2);
    return !!hit && (el === hit || el.contains(hit));
}"""


def _reachable(page: Any, locator: Any) -> None:
    """Scrolled into view, the element is what a tap at its centre reaches: no sticky bar
    lies over it. One look in the page (a poll may swap the table between two looks)."""
    for i in range(locator.count()):
        assert locator.nth(i).evaluate(REACHED), (locator, i, "covered")


@pytest.mark.parametrize("lang", ["de", "is"])
def test_the_match_end_on_a_phone(
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
    lang: str,
) -> None:
    """Going out wins the match: the sheet's totals are not covered, the rematch is at the
    result, and the final table shows the final scores."""
    game = _game(users, going_out_table(0, scores=[4900, 0]), lang)
    page = new_page({"width": 375, "height": 740}, user=users["alice"])
    page.goto(f"/games/{game.pk}/")
    page.locator("#actions button.go-out").click()
    sheet = page.locator(".panel.sheet")
    sheet.wait_for()
    _reachable(page, sheet.locator("tr.total"))
    _reachable(page, page.locator("#sheet-ack"))
    _reachable(page, page.locator(".sheet form.rematch button"))
    screenshot(page, f"phone-match-end-{lang}", full_page=False)
    totals = when_free(lambda: list(Game.objects.get(pk=game.pk).state.totals))
    assert totals[0] > 5000
    page.locator("#sheet-ack").click()
    page.locator(".side").first.wait_for()
    scores = [
        int(t.replace(".", "").replace(",", ""))
        for t in page.locator(".side .side-facts strong").all_inner_texts()
        if t.replace(".", "").replace(",", "").isdigit()
    ]
    mine = page.locator(".side.mine .side-facts strong").first.inner_text()
    assert int(mine.replace(".", "")) == totals[0], scores
    _reachable(page, page.locator(".turn-bar form.rematch button"))
    screenshot(page, f"phone-final-table-{lang}", full_page=False)


@pytest.mark.parametrize("lang", ["de", "is"])
def test_history_in_reading_order_and_the_chat_beside_the_table(
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
    lang: str,
) -> None:
    from games.services.chat import chat_post

    game = _game(users, FIT_TABLE, lang)
    page = new_page(SIZES["360x640"], user=users["alice"])
    page.goto(f"/games/{game.pk}/")
    # Table talk: the others' new lines are counted beside the turn until the chat is read.
    assert page.locator("#chat-unread").is_hidden()
    when_free(lambda: chat_post(game_id=game.pk, user=users["carol"], text="Hallo!"))
    when_free(lambda: chat_post(game_id=game.pk, user=users["dave"], text="Góðan dag"))
    page.locator("#chat-unread").wait_for()
    assert page.locator("#chat-unread [aria-hidden]").inner_text() == "2"
    _tappable(page, page.locator(".chat-link"))
    _fits(page)  # the link costs the table nothing
    screenshot(page, f"phone-chat-unread-{lang}", full_page=False)
    page.locator(".chat-link").click()
    page.locator("#chat-unread").wait_for(state="hidden")
    assert page.locator("#chat").get_by_text("Góðan dag").is_visible()
    page.evaluate("window.scrollTo(0, 0)")

    version = page.locator("#table").get_attribute("data-version")
    page.locator("#stock").click()
    wait_for_change(page, version)
    pick(page, "5S")
    version = page.locator("#table").get_attribute("data-version")
    page.locator("#actions button[value=discard]").click()
    wait_for_change(page, version)
    # alice's draw, then her discard: in that order, the newest at the end and in view.
    lines = page.locator(".history .moves li").all_inner_texts()
    assert len(lines) >= 2
    draw, discard = lines[-2], lines[-1]
    assert "5" in discard and "♠" in discard and "♠" not in draw.split()[0], lines
    # The newest move lies inside the history's box as it opens (one look, atomic: a poll
    # may swap the table between two looks).
    inside = page.evaluate(
        """() => {
        const box = document.querySelector('.history-scroll').getBoundingClientRect();
        const items = document.querySelectorAll('.history .moves li');
        const last = items[items.length - 1].getBoundingClientRect();
        return last.top >= box.top - 1 && last.bottom <= box.bottom + 1;
    }"""
    )
    assert inside
    # The shuffle's jargon is behind a disclosure.
    assert not page.locator(".hands .seed").first.is_visible()
    page.locator(".history").scroll_into_view_if_needed()
    screenshot(page, f"phone-history-{lang}", full_page=False)


@pytest.mark.parametrize("lang", ["de", "is"])
def test_an_invitation_by_address_on_a_phone(
    users: Any,  # noqa: F811
    new_page: Any,
    screenshot: Any,
    lang: str,
) -> None:
    """The waiting table names the invited address; the invitee's lobby offers the seat."""
    from games.services import invitations, lobby

    for name in ("bob", "carol"):
        preference_update(user=users[name], language=lang, time_zone=ZONES[lang])
    table = when_free(lambda: lobby.game_create(creator=users["bob"], variant="classic", players=2))
    when_free(
        lambda: invitations.invitation_add(
            game_id=table.pk, inviter=users["bob"], email="carol@example.com"
        )
    )
    page = new_page({"width": 375, "height": 740}, user=users["bob"])
    page.goto(f"/games/{table.pk}/")
    page.locator(".seat-list").get_by_text("carol@example.com").wait_for()
    assert "Bot" not in page.locator(".seat-list").inner_text()
    screenshot(page, f"phone-invited-table-{lang}", full_page=False)

    users["carol"].email = "carol@example.com"
    when_free(users["carol"].save)
    invitee = new_page({"width": 375, "height": 740}, user=users["carol"])
    invitee.goto("/")
    offer = invitee.locator(".invitations-for-me")
    offer.wait_for()
    _tappable(invitee, offer.locator("button"))
    screenshot(invitee, f"phone-invitation-in-lobby-{lang}", full_page=False)
    offer.locator("button[value=accept]").click()
    invitee.wait_for_url(f"**/games/{table.pk}/")
    assert when_free(lambda: Game.objects.get(pk=table.pk).status) == "active"
