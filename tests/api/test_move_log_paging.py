"""Paging the move log at every page size, the largest included (issue 15, item 9)."""

from __future__ import annotations

import random

import pytest

from games import selectors
from games.models import Game, Move
from games.selectors import MOVES_PAGE_MAX
from tests.api.helpers import url
from tests.game_fixtures import play_random

# More moves than the largest page, and more than two of them, so every page size has a
# page that is followed by another.
LOG_LENGTH = 2 * MOVES_PAGE_MAX + 3


def _long_log(game: Game) -> Game:
    """A log of LOG_LENGTH moves: a few real ones, then copies of them with later seqs (the
    paging reads rows, not the rules, and playing 1,000 moves would take a minute)."""
    game = play_random(game, 4, random.Random(5))
    played = list(Move.objects.filter(game=game).order_by("seq"))
    copies = [
        Move(
            game=game,
            seq=seq,
            hand=played[seq % len(played)].hand,
            seat=played[seq % len(played)].seat,
            action=played[seq % len(played)].action,
            events=played[seq % len(played)].events,
        )
        for seq in range(len(played) + 1, LOG_LENGTH + 1)
    ]
    Move.objects.bulk_create(copies)
    Game.objects.filter(pk=game.pk).update(last_seq=LOG_LENGTH)
    return Game.objects.get(pk=game.pk)


@pytest.mark.django_db
def test_every_page_size_says_whether_more_moves_follow(game):
    game = _long_log(game)
    for limit in range(1, MOVES_PAGE_MAX + 1):
        # limit + 1 moves left: a full page, and more to come.
        page, more = selectors.moves_page(game=game, after=LOG_LENGTH - limit - 1, limit=limit)
        assert (len(page), more) == (limit, True), limit
        assert page[0].seq == LOG_LENGTH - limit
    for limit in (1, 2, MOVES_PAGE_MAX // 2, MOVES_PAGE_MAX - 1, MOVES_PAGE_MAX):
        # Exactly limit moves left: a full page, and the last.
        page, more = selectors.moves_page(game=game, after=LOG_LENGTH - limit, limit=limit)
        assert (len(page), more) == (limit, False), limit
        assert page[-1].seq == LOG_LENGTH


@pytest.mark.django_db
@pytest.mark.parametrize("limit", [MOVES_PAGE_MAX, MOVES_PAGE_MAX - 1, 97])
def test_a_client_paging_through_the_api_sees_every_move_once(clients, game, limit):
    game = _long_log(game)
    seen: list[int] = []
    after, more = 0, True
    while more:
        page = clients["alice"].get(url(game, "moves"), {"after": after, "limit": limit}).json()
        assert len(page["moves"]) == min(limit, LOG_LENGTH - after)
        seen += [move["seq"] for move in page["moves"]]
        after, more = seen[-1], page["has_more"]
        assert page["last_seq"] == LOG_LENGTH
    assert seen == list(range(1, LOG_LENGTH + 1))
