"""The rating chart in German in Chromium: its SVG coordinates stay plain numbers ("92.0",
never "92,0"), so the dots sit where they belong and the console shows no error."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games.services import lobby
from games.services.moves import game_resign
from notifications.services.preferences import preference_update
from tests.game_fixtures import PASSWORD, address_confirmed, play_long_enough, user_at

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _rated_matches() -> Any:
    # Confirmed addresses and matches long enough to be rated (docs/ratings.md).
    users = {
        name: address_confirmed(
            get_user_model().objects.create_user(username=name, password=PASSWORD)
        )
        for name in ("hilde", "klaus", "karin", "jorg")
    }
    for seed in (1, 2):
        game = lobby.game_create(
            creator=users["hilde"],
            variant="classic",
            players=4,
            options={"seating": "invitation", "target": 100},
            is_public=True,
        )
        for name in ("klaus", "karin", "jorg"):
            game = lobby.game_join(game_id=game.pk, user=users[name])
        game = play_long_enough(game, seed)
        game_resign(game_id=game.pk, user=user_at(game, 1))
    preference_update(user=users["hilde"], language="de", time_zone="Europe/Berlin")
    return users["hilde"]


def test_the_german_rating_chart_draws_without_console_errors(
    new_page: Any, screenshot: Any
) -> None:
    hilde = _rated_matches()
    page = new_page(user=hilde)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto("/players/hilde/")
    page.locator("svg.rating-chart").wait_for()
    assert page.locator("html").get_attribute("lang") == "de"
    dots = page.locator("svg.rating-chart circle.dot")
    assert dots.count() == 3
    xs = [dots.nth(i).bounding_box()["x"] for i in range(dots.count())]
    assert len(set(xs)) == 3 and xs == sorted(xs)  # spread left to right, not in a corner
    assert all("," not in (dots.nth(i).get_attribute("cx") or ",") for i in range(3))
    screenshot(page, "profile-de")
    assert not errors, errors
