"""Steps the browser tests share: real clicks and typing, the database only to look."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import OperationalError

from games import engine
from games.engine.cards import sort_key
from games.models import GameState
from tests.game_fixtures import PASSWORD

T = TypeVar("T")


def sign_up(page: Any, username: str) -> None:
    page.goto("/")
    page.get_by_role("link", name="Create an account").click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Email").fill(f"{username}@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.get_by_text(f"Welcome, {username}!").wait_for()


def sign_in(page: Any, username: str) -> None:
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name=re.compile("Your games")).wait_for()


def when_free(query: Callable[[], T]) -> T:
    """Run a query from the test's thread, retrying while the live server holds the shared
    in-memory database (SQLite answers "database table is locked" instead of waiting)."""
    for _ in range(100):
        try:
            return query()
        except OperationalError as error:
            if "locked" not in str(error):
                raise
            time.sleep(0.05)
    return query()


def table_of(game_id: Any) -> engine.Table:
    return when_free(lambda: engine.from_json(GameState.objects.get(game_id=game_id).table))


def wait_my_turn(page: Any, timeout: float = 20_000) -> None:
    """The page updates by itself (polling): no reload here. A hand's score sheet shown on
    the way (the bots may end a hand) is read and acknowledged, as a player does."""
    turn = page.locator("#turn-text .badge.turn")
    ack = page.locator("#sheet-ack")
    turn.or_(ack).first.wait_for(timeout=timeout)
    while ack.count():
        ack.click()
        turn.or_(ack).first.wait_for(timeout=timeout)
    turn.wait_for(timeout=timeout)


def pick(page: Any, code: str, occurrence: int = 1) -> None:
    """Select a card (clicking its label toggles it). A refresh caused by others gives the
    selection back, so the card may be selected already: then clicking would unselect it."""
    if not page.locator(f"#c-{code}-{occurrence}").is_checked():
        page.locator(f"label[for='c-{code}-{occurrence}']").click()


def play_draw_and_discard(page: Any, game_id: Any, seat: int) -> str:
    """Draw from the stock, then discard a card by clicking it; returns the card."""
    page.get_by_role("button", name="Draw from the stock").click()
    page.get_by_role("button", name="Discard", exact=True).wait_for()
    hand = table_of(game_id).hands[seat]
    card = _a_discard(hand)
    pick(page, card)
    version = page.locator("#table").get_attribute("data-version")
    page.get_by_role("button", name="Discard", exact=True).click()
    wait_for_change(page, version)
    return card


def wait_for_change(page: Any, version: str | None) -> None:
    """Until the page shows a newer version of the game than ``version``."""
    page.wait_for_function(
        "v => { const t = document.getElementById('table'); return t && t.dataset.version !== v; }",
        arg=version,
    )


def _a_discard(hand: list[str]) -> str:
    # Any card does; prefer a lone natural so the hand keeps its pairs.
    counts: dict[str, int] = {}
    for card in hand:
        counts[card[0]] = counts.get(card[0], 0) + 1
    for card in sorted(hand, key=sort_key):
        if card != "JK" and card[0] != "2" and counts[card[0]] == 1:
            return card
    return hand[0]
