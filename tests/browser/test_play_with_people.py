"""Two people at one table, each in their own browser: an invitation accepted from the lobby,
and each page noticing by itself (polling) that the other has moved."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games.models import Game
from tests.browser.helpers import (
    play_draw_and_discard,
    sign_in,
    table_of,
    wait_my_turn,
    when_free,
)
from tests.game_fixtures import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _create_table(page: Any, invite: str) -> str:
    page.goto("/games/new/")
    page.get_by_label("Variant").select_option("classic")
    page.get_by_label("Players", exact=True).select_option("2")
    options = page.get_by_role("group", name="Classic Canasta: options")
    options.get_by_label("Seating").select_option("invitation")
    page.get_by_label("Invite players").fill(invite)
    page.get_by_role("button", name="Create the table").click()
    page.get_by_role("heading", name=re.compile("Waiting for players")).wait_for()
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def test_two_people_take_turns_and_see_each_others_moves(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    people = {
        name: get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD)
        for name in ("alice", "bob")
    }
    pages = {"alice": new_page(user=people["alice"])}
    game_id = _create_table(pages["alice"], "bob")

    pages["bob"] = new_page()
    sign_in(pages["bob"], "bob")
    pages["bob"].get_by_role("button", name="Accept").click()
    pages["bob"].locator("#table").wait_for()
    pages["alice"].goto(f"/games/{game_id}/")
    game = when_free(lambda: Game.objects.prefetch_related("seats__user").get(pk=game_id))
    assert game.status == "active"
    by_seat = {s.number: s.user.get_username() for s in game.seats.all()}

    for _ in range(2):  # a turn each; the waiting page updates itself
        seat = table_of(game_id).turn
        page = pages[by_seat[seat]]
        wait_my_turn(page)
        card = play_draw_and_discard(page, game_id, seat)
        other = pages[by_seat[1 - seat]]
        wait_my_turn(other)
        assert other.locator(".pile-top .card").get_attribute("title") == page.locator(
            ".pile-top .card"
        ).get_attribute("title")
        assert table_of(game_id).discard[-1] == card  # the card clicked was discarded
    screenshot(pages[by_seat[table_of(game_id).turn]], "game-two-people")
