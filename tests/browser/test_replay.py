"""The replay viewer in a browser: on a phone, step forward by tapping Next and back with the
arrow key; every hand is shown; the score sheet appears at the end of a hand."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games.models import Game, Hand
from games.services import lobby
from tests.browser.conftest import PHONE
from tests.browser.helpers import when_free
from tests.game_fixtures import PASSWORD, play_random

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _finished_match() -> tuple[Game, Any]:
    users = {
        name: get_user_model().objects.create_user(username=name, password=PASSWORD)
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
        assert str(total) in sheet
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
