import random
from datetime import timedelta

import pytest

from games import engine
from games.engine.randomplay import random_action
from games.models import EndReason, GameState, GameStatus, Hand, Move
from games.services.errors import ErrorKind, GameError
from games.services.lobby import game_abort
from games.services.moves import game_resign, moves_submit
from tests.game_fixtures import (
    current_table,
    play_random,
    play_until_hand_ends,
    start_game,
    user_at,
)


def _submit(game, actions, seat=None, version=None):
    table = current_table(game)
    return moves_submit(
        game_id=game.pk,
        user=user_at(game, table.turn if seat is None else seat),
        actions=actions,
        expected_version=game.version if version is None else version,
    )


def _error(call, *args, **kwargs) -> GameError:
    with pytest.raises(GameError) as info:
        call(*args, **kwargs)
    return info.value


def test_it_applies_an_action_logs_it_and_updates_the_snapshot(game):
    before = current_table(game)

    after = _submit(game, [{"type": "draw"}])

    expected = engine.apply(before, before.turn, {"type": "draw"})
    assert (after.version, after.last_seq) == (game.version + 1, 1)
    assert current_table(after).to_json() == expected.table.to_json()
    [move] = Move.objects.filter(game=game)
    assert (move.seq, move.hand, move.seat, move.actor) == (1, 1, before.turn, "player")
    assert move.action == {"type": "draw"}
    assert move.events == expected.events


def test_a_batch_is_all_or_nothing(game):
    game = _submit(game, [{"type": "draw"}])
    table = current_table(game)
    a_card = table.hands[table.turn][0]
    discard = {"type": "discard", "card": a_card}

    # Without a draw in it, a refused batch applies nothing (a draw stands: test_draws_stand).
    error = _error(_submit, game, [discard, discard])

    assert (error.kind, error.code, error.details["index"]) == (
        ErrorKind.ILLEGAL,
        "not_your_turn",
        1,
    )
    assert error.details["applied"] == 0
    assert current_table(game).to_json() == table.to_json()
    assert Move.objects.count() == 1

    game = _submit(game, [discard])
    table = current_table(game)
    drawn = engine.apply(table, table.turn, {"type": "draw"}).table
    a_card = drawn.hands[table.turn][0]
    after = _submit(game, [{"type": "draw"}, {"type": "discard", "card": a_card}])
    assert list(Move.objects.values_list("seq", flat=True)) == [1, 2, 3, 4]
    assert after.version == game.version + 1  # one batch, one version
    assert after.turn_seat == (table.turn + 1) % 4


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "fly"}, "invalid_action"),
        ({"type": "discard", "card": "ZZ"}, "invalid_action"),
        ({"type": "discard", "card": "4C"}, "wrong_phase"),
    ],
)
def test_it_passes_the_engines_code_on(game, action, code):
    assert _error(_submit, game, [action]).code == code


def test_it_refuses_a_player_out_of_turn(game):
    table = current_table(game)
    error = _error(_submit, game, [{"type": "draw"}], seat=(table.turn + 1) % 4)
    assert (error.kind, error.code) == (ErrorKind.ILLEGAL, "not_your_turn")


def test_it_rejects_a_stale_version(game):
    error = _error(_submit, game, [{"type": "draw"}], version=game.version - 1)

    assert (error.kind, error.code, error.details) == (
        ErrorKind.CONFLICT,
        "stale_version",
        {"version": game.version},
    )


def test_it_refuses_strangers_and_finished_games(users, game):
    error = _error(
        moves_submit,
        game_id=game.pk,
        user=users["eve"],
        actions=[{"type": "draw"}],
        expected_version=4,
    )
    assert (error.kind, error.code) == (ErrorKind.FORBIDDEN, "not_seated")

    game_abort(game_id=game.pk, user=users["alice"])
    error = _error(_submit, game, [{"type": "draw"}], version=5)
    assert (error.kind, error.code) == (ErrorKind.CONFLICT, "game_not_active")


def test_an_empty_batch_is_invalid(game):
    assert _error(_submit, game, []).kind == ErrorKind.INVALID


def test_the_end_of_a_hand_reveals_its_seed_and_deals_the_next(game):
    after = play_until_hand_ends(game, random.Random(7))

    first, second = Hand.objects.filter(game=game).order_by("number")
    assert first.finished_at is not None and second.finished_at is None
    assert first.result["reason"] == first.end_reason
    state = GameState.objects.get(game=game)
    assert state.totals == first.result["totals"]
    assert state.hand_commitment == second.commitment
    table = current_table(after)
    assert (table.hand, table.scores) == (2, first.result["totals"])
    assert (
        table.to_json()
        == engine.deal(
            "classic", 4, second.seed, hand_number=2, scores=state.totals, options=game.options
        ).to_json()
    )
    closing = Move.objects.filter(game=game, hand=1).order_by("-seq").first()
    kinds = [event["type"] for event in closing.events]
    assert kinds[-3:] == ["hand_over", "hand_result", "deal"]
    assert closing.events[-2]["seed"] == first.seed
    assert closing.events[-1] == {
        "type": "deal",
        "hand": 2,
        "dealer": 0,
        "commitment": second.commitment,
    }


def test_actions_after_the_end_of_a_hand_in_one_batch_are_refused(game):
    rng = random.Random(11)
    # Play until the next action ends the hand, then add one more action to the batch.
    while True:
        table = current_table(game)
        action = random_action(table, rng)
        if engine.apply(table, table.turn, action).table.over:
            break
        game = _submit(game, [action])
    error = _error(_submit, game, [action, {"type": "draw"}])
    assert (error.code, error.details["index"]) == ("hand_over", 1)


def test_a_match_ends_by_the_rules(users):
    game = start_game(users, options={"target": 100})
    rng = random.Random(5)
    while game.status == GameStatus.ACTIVE:
        game = play_random(game, 50, rng)

    assert (game.status, game.end_reason) == (GameStatus.FINISHED, EndReason.MATCH_OVER)
    last = Hand.objects.filter(game=game).order_by("number").last()
    assert last.result["match_over"] is True
    assert game.winner_side == last.result["winner"]
    assert (game.turn_seat, game.deadline) == (None, None)
    assert Move.objects.filter(game=game).order_by("seq").last().events[-1] == {
        "type": "match_over",
        "reason": "match_over",
        "winner": game.winner_side,
    }


def test_resigning_loses_the_match_and_is_logged(users, game):
    game = play_random(game, 3)

    after = game_resign(game_id=game.pk, user=users["carol"])  # seat 1, side 1

    assert (after.status, after.end_reason, after.winner_side) == (
        GameStatus.FINISHED,
        EndReason.RESIGNED,
        0,
    )
    move = Move.objects.get(game=game, seq=4)
    assert (move.action, move.seat) == ({"type": "resign"}, 1)
    assert Hand.objects.get(game=game).end_reason == "resigned"
    assert _error(game_resign, game_id=game.pk, user=users["alice"]).code == "game_not_active"


def test_the_clock_restarts_only_when_the_turn_changes_hands(users):
    game = start_game(users, turn_seconds=600)
    started_deadline = game.deadline
    table = current_table(game)

    drawn = _submit(game, [{"type": "draw"}])
    assert drawn.deadline == started_deadline  # same player still to act

    card = current_table(drawn).hands[table.turn][0]
    passed = _submit(drawn, [{"type": "discard", "card": card}])
    assert passed.deadline > started_deadline
    assert passed.deadline <= passed.state.updated_at + timedelta(seconds=601)
