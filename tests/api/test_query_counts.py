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


# A move that keeps the turn (a draw) and one that passes it (the discard after it). Keeping
# the turn: the token, the game and its seats (locked), the move, the snapshot, the game row,
# the recipients locked with the last announced `move` event read in the same statement, the
# `move` events, the answer's absences, and the savepoint pair of the test's transaction.
# Passing it adds the auto-draw check, the reply token (2), the `your_turn` event (the
# recipients are locked already) and the email: its recipient's preferences and the INSERT
# in its savepoint pair. An Idempotency-Key adds 4 here: the claim in its savepoint pair
# (its own transaction in production) and the stored answer.
MOVE_QUERIES = {"keep": 11, "keep+key": 15, "pass": 19, "pass+key": 23}


def _post_counted(clients, game, actions, key=None):
    table = current_table(game)
    client = clients[NAME_AT[table.turn]]
    version = client.get(url(game)).json()["version"]
    extra = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return _count(
        lambda: client.post(
            url(game, "actions"),
            {"actions": actions, "expected_version": version},
            format="json",
            **extra,
        )
    )


@pytest.mark.parametrize("key", [None, "bounded"])
def test_a_move_is_bounded(clients, users, game, key):
    for user in users.values():
        user.email = f"{user.username}@example.com"  # so that the turn email is really written
        user.save(update_fields=["email"])
    suffix = "+key" if key else ""
    keep = _post_counted(clients, game, [{"type": "draw"}], key and f"{key}-1")
    assert keep <= MOVE_QUERIES["keep" + suffix]
    from games import engine

    table = current_table(game)
    card = engine.legal_actions(table, table.turn).discards[0]
    passed = _post_counted(clients, game, [{"type": "discard", "card": card}], key and f"{key}-2")
    assert current_table(game).turn != table.turn
    assert passed <= MOVE_QUERIES["pass" + suffix]


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
