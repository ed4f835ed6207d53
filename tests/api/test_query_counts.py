"""Each endpoint runs a bounded number of queries, the same at move 5 as at move 150."""

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.helpers import url
from tests.game_fixtures import current_table, play_random

NAME_AT = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}

READS = {"": 4, "legal": 4, "moves": 4, "hands": 4}


# Transaction control is not counted: the test's own transaction turns every BEGIN/COMMIT of
# production into a SAVEPOINT/RELEASE pair, so counting them would count the test harness.
CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def _count(call) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = call()
    assert response.status_code == 200, response.content
    return sum(
        1 for query in queries.captured_queries if not query["sql"].upper().startswith(CONTROL)
    )


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


# A move that keeps the turn (a draw) and one that passes it (the discard after it), in SQL
# statements without transaction control (docs/move-path-speed.md). Keeping the turn: the
# token; the seats joined to the game (locked), its state and the seated users' email
# preference, play-by-email choice, whether they may be absent and whether anything was said
# at the table since their last move; the move; the snapshot; the game row; the recipients
# locked with the last announced `move` event read in the same statement; the `move` event.
# Passing it adds the turn email (one INSERT; the `your_turn` event goes into the `move`
# event's INSERT). An Idempotency-Key adds the stored answer, one INSERT inside the move's
# transaction. The turn email reads the table talk since the recipient's last move only when
# there is some (one SELECT, docs/table-talk.md; tested below).
MOVE_QUERIES = {"keep": 7, "keep+key": 8, "pass": 8, "pass+key": 9}


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
    assert keep == MOVE_QUERIES["keep" + suffix]
    from games import engine

    table = current_table(game)
    card = engine.legal_actions(table, table.turn).discards[0]
    passed = _post_counted(clients, game, [{"type": "discard", "card": card}], key and f"{key}-2")
    assert current_table(game).turn != table.turn
    assert passed == MOVE_QUERIES["pass" + suffix]


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


def test_a_moves_answer_still_shows_an_absence(clients, users, game):
    """The seats are loaded knowing whether anyone may be absent (no absences query when
    nobody is): when someone is, the answer shows it, at the cost of that one query."""
    from datetime import timedelta

    from django.utils import timezone

    from notifications.models import Absence

    starts = timezone.now() + timedelta(days=1)
    Absence.objects.create(user=users["bob"], starts_at=starts, ends_at=starts + timedelta(days=2))
    table = current_table(game)
    client = clients[NAME_AT[table.turn]]
    version = client.get(url(game)).json()["version"]
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            url(game, "actions"),
            {"actions": [{"type": "draw"}], "expected_version": version},
            format="json",
        )
    assert response.status_code == 200, response.content
    absent = {seat["username"]: seat["absent"] for seat in response.json()["seats"]}
    assert absent["bob"] and absent["alice"] == [] and absent["carol"] == []
    counted = [q for q in queries.captured_queries if not q["sql"].upper().startswith(CONTROL)]
    assert len(counted) == MOVE_QUERIES["keep"] + 1


def test_table_talk_costs_its_query_only_when_the_turn_email_has_some(clients, users, game):
    """The seats are loaded knowing whether anything was said since each one's last move: the
    turn email reads the chat (one query) only then, and shows what was said."""
    from games import engine
    from games.services.chat import chat_post
    from notifications.models import Outbox, OutboxKind

    for user in users.values():
        user.email = f"{user.username}@example.com"
        user.save(update_fields=["email"])
    mover_seat = current_table(game).turn
    mover = users[NAME_AT[mover_seat]]
    next_player = users[NAME_AT[(mover_seat + 1) % 4]]
    assert _post_counted(clients, game, [{"type": "draw"}]) == MOVE_QUERIES["keep"]
    chat_post(game_id=game.pk, user=mover, text="your turn soon")
    table = current_table(game)
    card = engine.legal_actions(table, table.turn).discards[0]

    passed = _post_counted(clients, game, [{"type": "discard", "card": card}])

    assert passed == MOVE_QUERIES["pass"] + 1
    email = Outbox.objects.get(recipient=next_player, kind=OutboxKind.YOUR_TURN)
    assert email.payload["chat"] == [{"name": mover.username, "text": "your turn soon"}]
