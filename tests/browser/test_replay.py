"""The replay viewer in a browser: on a phone, step forward by tapping Next and back with the
arrow key; every hand is shown; the score sheet appears at the end of a hand."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import l10n
from games.models import Game, Hand
from games.services import lobby
from tests.browser.conftest import PHONE
from tests.browser.helpers import when_free
from tests.game_fixtures import PASSWORD, address_confirmed, play_random

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _finished_match() -> tuple[Game, Any]:
    # Confirmed addresses: only such players play rated matches (docs/ratings.md).
    users = {
        name: address_confirmed(
            get_user_model().objects.create_user(username=name, password=PASSWORD)
        )
        for name in ("ann", "ben")
    }
    game = lobby.game_create(
        creator=users["ann"],
        variant="classic",
        players=2,
        options={"seating": "invitation", "target": 100},
    )
    game = lobby.game_join(game_id=game.pk, user=users["ben"])
    rng = random.Random(5)
    while game.status == "active":
        game = play_random(game, 40, rng)
    return Game.objects.get(pk=game.pk), users["ann"]


def test_the_replay_viewer_steps_on_a_phone(new_page: Any, screenshot: Any) -> None:
    game, ann = _finished_match()
    page = new_page(PHONE, user=ann)
    page.goto(f"/games/{game.pk}/replay/")
    page.get_by_role("heading", name=re.compile("Replay of a Classic")).wait_for()
    assert page.locator(".replay-hand").count() == 2  # both hands open
    assert "Hand 1 is dealt." in page.locator(".replay-move").inner_text()

    page.locator("#replay-next").click()
    page.wait_for_url(re.compile(r"step=1"))
    assert "move 1 of" in page.locator(".meta").inner_text()
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"step=2"))
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"step=1"))

    # The end of the first hand shows its score sheet.
    page.get_by_role("link", name="End of this hand").click()
    page.get_by_role("heading", name="Score sheet of hand 1").wait_for()
    hand = when_free(lambda: Hand.objects.get(game=game, number=1))
    sheet = page.locator(".score-sheet").inner_text()
    for total in hand.result["totals"]:
        assert l10n.number(total, "en") in sheet  # grouped as English writes it
    # Fits a phone: nothing wider than the screen but the score table's own scroller.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"] + 1
    screenshot(page, "replay-phone")


def test_a_profile_draws_the_rating_chart(new_page: Any, screenshot: Any) -> None:
    _game, ann = _finished_match()
    page = new_page(PHONE, user=ann)
    page.goto("/players/ann/")
    chart = page.get_by_role("img", name=re.compile("Rating after each rated match"))
    chart.wait_for()
    box = chart.bounding_box()
    assert box is not None and 0 < box["width"] <= PHONE["width"]
    assert page.locator(".rating-chart circle").count() == 2  # the start, then one match
    page.get_by_role("link", name="Leaderboard").click()
    page.get_by_role("heading", name=re.compile("Leaderboard")).wait_for()
    page.goto("/players/ann/")
    screenshot(page, "profile-phone")


SWIPE = """dx => {
    const el = document.querySelector(".replay-table");
    const at = (x) => new Touch({ identifier: 1, target: el, clientX: x, clientY: 300 });
    const start = at(dx < 0 ? 300 : 60);
    const end = at(dx < 0 ? 300 + dx : 60 + dx);
    el.dispatchEvent(new TouchEvent("touchstart", {
        touches: [start], changedTouches: [start], bubbles: true }));
    el.dispatchEvent(new TouchEvent("touchend", {
        touches: [], changedTouches: [end], bubbles: true }));
}"""


def _at_step(page: Any, step: int) -> None:
    page.wait_for_function(
        "s => document.getElementById('replay').dataset.step === s", arg=str(step)
    )


@pytest.mark.parametrize("size", ["360x640", "390x844"])
def test_the_replay_steps_in_place_from_the_table(
    new_page: Any, screenshot: Any, size: str
) -> None:
    """No page load for a step (a mark left on the window survives): the buttons, the arrow
    keys, a swipe and the browser's Back; the table is on the first screen and the buttons
    stay in view (44 px) while it scrolls."""
    width, height = (int(n) for n in size.split("x"))
    game, ann = _finished_match()
    page = new_page({"width": width, "height": height}, user=ann)
    page.goto(f"/games/{game.pk}/replay/")
    page.evaluate("window.__stayed = 1")
    table = page.locator(".replay-table").bounding_box()
    screenshot(page, f"replay-start-{size}", full_page=False)
    assert table is not None and table["y"] < height / 2  # the table starts on the first screen
    for _ in range(3):
        page.locator("#replay-next").click()
    _at_step(page, 3)
    assert "step=3" in page.url and "move 3 of" in page.locator(".meta").inner_text()
    page.keyboard.press("ArrowLeft")
    _at_step(page, 2)
    page.evaluate(SWIPE, -200)  # right to left: the next step
    _at_step(page, 3)
    page.evaluate(SWIPE, 200)
    _at_step(page, 2)
    page.go_back()  # the address followed each step
    _at_step(page, 3)
    page.evaluate("window.scrollTo(0, 400)")
    page.locator("#replay-next").click()
    _at_step(page, 4)
    assert page.evaluate("window.scrollY") == 400  # the scroll stays
    for button in ("#replay-prev", "#replay-next"):
        box = page.locator(button).bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44
        assert box["y"] >= 0 and box["y"] + box["height"] <= height  # stuck at the top
    assert page.evaluate("window.__stayed") == 1  # no page load
    screenshot(page, f"replay-in-place-{size}", full_page=False)
