"""Each endpoint runs a bounded number of queries, the same at move 5 as at move 150."""

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.helpers import url
from tests.game_fixtures import current_table, play_random

NAME_AT = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}

READS = {"": 4, "legal": 4, "moves": 4, "hands": 4}


def _count(call) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = call()
    assert response.status_code == 200, response.content
    return len(queries.captured_queries)


def _reads(clients, game):
    return {what: _count(lambda w=what: clients["alice"].get(url(game, w))) for what in READS}


def _turn(table, rng):
    """A whole turn, draw then discard: the turn changes hands, a mail is written."""
    from games import engine

    after = engine.apply(table, table.turn, {"type": "draw"}).table
    if after.over or after.turn != table.turn:
        return None
    return [{"type": "draw"}, {"type": "discard", "card": rng.choice(after.hands[after.turn])}]


def _move(clients, game, rng):
    table = current_table(game)
    while table.phase != "draw" or _turn(table, rng) is None:
        game = play_random(game, 1, rng)
        table = current_table(game)
    client = clients[NAME_AT[table.turn]]
    actions = _turn(table, rng)
    version = client.get(url(game)).json()["version"]
    return _count(
        lambda: client.post(
            url(game, "actions"),
            {"actions": actions, "expected_version": version},
            format="json",
            HTTP_IDEMPOTENCY_KEY=f"k-{version}",
        )
    )


@pytest.mark.parametrize(("what", "most"), list(READS.items()))
def test_reads_are_bounded(clients, game, django_assert_max_num_queries, what, most):
    with django_assert_max_num_queries(most):
        assert clients["alice"].get(url(game, what)).status_code == 200


def test_lobby_reads_are_bounded(clients, users, game, django_assert_max_num_queries):
    for path in ("/api/v1/games/", "/api/v1/games/open/", "/api/v1/variants/"):
        with django_assert_max_num_queries(6):
            assert clients["bob"].get(path).status_code == 200


def test_a_move_is_bounded(clients, game, django_assert_max_num_queries):
    table = current_table(game)
    # 13: the answer (the game) shows the players' absences since the background-work issue,
    # one query for every seat's. 16: the clients issue writes each player's `move` event
    # (read the batch's moves, lock the recipients and see who has webhooks, insert).
    with django_assert_max_num_queries(16):
        response = clients[NAME_AT[table.turn]].post(
            url(game, "actions"),
            {"actions": [{"type": "draw"}], "expected_version": game.version},
            format="json",
            HTTP_IDEMPOTENCY_KEY="bounded",
        )
    assert response.status_code == 200


def test_query_counts_do_not_grow_with_the_game(clients, game):
    rng = random.Random(3)
    game = play_random(game, 5, rng)
    early_reads, early_move = _reads(clients, game), _move(clients, game, rng)
    game.refresh_from_db()
    game = play_random(game, 60, rng)
    # The same kind of move both times (a whole turn) for a like-for-like count.
    late_reads, late_move = _reads(clients, game), _move(clients, game, rng)

    assert late_reads == early_reads
    assert late_move == early_move
