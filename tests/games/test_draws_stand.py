"""A draw from the stock stands (docs/fair-play.md): in a batch, a refusal after a draw keeps
the moves up to and including the draw, commits them, and refuses the rest."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from games import engine
from games.models import Actor, Game, Move
from games.services.errors import ErrorKind, GameError
from games.services.moves import DRAW_STANDS, batch_commit, moves_submit
from tests.game_fixtures import current_table, user_at

EVERY_CARD = engine.get_rules("classic").deck()


def _submit(game: Game, actions: list[Any]) -> GameError:
    table = current_table(game)
    with pytest.raises(GameError) as info:
        moves_submit(
            game_id=game.pk,
            user=user_at(game, table.turn),
            actions=actions,
            expected_version=game.version,
        )
    return info.value


def test_a_refusal_after_a_draw_keeps_the_draw_and_says_so(game: Game) -> None:
    before = current_table(game)
    drew = engine.apply(before, before.turn, {"type": "draw"})

    error = _submit(game, [{"type": "draw"}, {"type": "meld", "melds": [EVERY_CARD]}])

    assert (error.kind, error.code) == (ErrorKind.ILLEGAL, "card_not_in_hand")
    assert error.message.startswith(DRAW_STANDS)
    [drawn] = [e["cards"] for e in drew.events if e["type"] == "draw"]
    assert error.details == {
        "index": 1,
        "applied": 1,
        "hand_over": False,
        "drawn": drawn,
        "version": game.version + 1,
    }
    [move] = Move.objects.filter(game=game)
    assert (move.seat, move.actor, move.action) == (before.turn, Actor.PLAYER, {"type": "draw"})
    assert current_table(game).to_json() == drew.table.to_json()
    stored = Game.objects.get(pk=game.pk)
    assert (stored.version, stored.last_seq, stored.turn_seat) == (
        game.version + 1,
        1,
        before.turn,
    )


def test_only_the_moves_up_to_the_draw_are_kept(game: Game) -> None:
    before = current_table(game)
    held = before.hands[before.turn][0]
    drew = engine.apply(before, before.turn, {"type": "draw"})

    # The discard was legal, the second draw is not (it is the next player's turn).
    error = _submit(game, [{"type": "draw"}, {"type": "discard", "card": held}, {"type": "draw"}])

    assert (error.code, error.details["index"], error.details["applied"]) == (
        "not_your_turn",
        2,
        1,
    )
    assert Move.objects.filter(game=game).count() == 1
    assert current_table(game).to_json() == drew.table.to_json()  # the discard was not played


def test_a_malformed_action_after_a_draw_changes_nothing(game: Game) -> None:
    before = current_table(game)

    error = _submit(game, [{"type": "draw"}, {"type": "fly"}])

    assert (error.code, error.details["index"], error.details["applied"]) == (
        "invalid_action",
        1,
        0,
    )
    assert not Move.objects.filter(game=game).exists()
    assert current_table(game).to_json() == before.to_json()


def test_a_refused_draw_keeps_nothing(game: Game) -> None:
    error = _submit(game, [{"type": "pickup"}, {"type": "draw"}])

    assert error.details["applied"] == 0
    assert not Move.objects.filter(game=game).exists()


def test_a_system_batch_keeps_nothing_when_refused(game: Game) -> None:
    """Timeouts plan on the whole table: a refusal there is a bug, and rolls everything back."""
    before = current_table(game)
    with pytest.raises(GameError), transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        seat = next(s for s in locked.seats.all() if s.number == before.turn)
        batch_commit(
            game=locked,
            seat=seat,
            actions=[{"type": "draw"}, {"type": "meld", "melds": [EVERY_CARD]}],
            actor=Actor.SYSTEM,
        )
    assert not Move.objects.filter(game=game).exists()
    assert current_table(game).to_json() == before.to_json()
