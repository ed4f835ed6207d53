"""Score sheets (games/scoresheet.py): each side's lines add up to the engine's score, the
kept final table and the replay from the log agree, and a hand in play has no sheet."""

from __future__ import annotations

import random
from typing import Any

from games import engine
from games.models import Game, Hand
from games.scoresheet import last_scored_hand, scoresheet_hand, scoresheet_match
from games.services.replay import game_verify
from tests.game_fixtures import current_table, play_until_hand_ends


def _fresh(game: Game) -> Game:
    # A new instance: no memoised sheets.
    return Game.objects.get(pk=game.pk)


def test_a_finished_hand_has_a_sheet_that_adds_up_to_the_engines_score(game: Game) -> None:
    assert scoresheet_hand(game=game, number=1) is None  # in play: nothing to show
    game = play_until_hand_ends(game, random.Random(3))
    hand = Hand.objects.get(game=game, number=1)
    sheet = scoresheet_hand(game=_fresh(game), number=1)
    assert sheet is not None and hand.result is not None
    assert sheet.scores == hand.result["scores"]
    assert sheet.totals == hand.result["totals"]
    for side, detail in zip(sheet.sides, hand.result["detail"], strict=True):
        assert side.melded == detail["melded"]
        assert side.canasta_points == detail["canastas"]
        assert side.red_three_points == detail["red_threes"]
        assert side.going_out == detail["going_out"]
        assert side.in_hand == detail["in_hand"]
        lines = (
            side.melded
            + side.canasta_points
            + side.red_three_points
            + side.going_out
            - side.in_hand
        )
        assert lines == side.total == detail["total"]
        assert sorted(side.hands) == side.seats
    # Every card of the deck is somewhere on the sheet or in what was left of the stock/pile.
    table = engine.from_json(hand.final_table)
    assert table.over
    assert last_scored_hand(game=game) == 1
    # The hand in play (hand 2) still has no sheet.
    assert current_table(game).hand == 2
    assert scoresheet_hand(game=_fresh(game), number=2) is None


def test_the_replay_gives_the_same_sheet_as_the_kept_table(game: Game) -> None:
    game = play_until_hand_ends(game, random.Random(5))
    kept = scoresheet_hand(game=_fresh(game), number=1)
    Hand.objects.filter(game=game, number=1).update(final_table=None)
    replayed = scoresheet_match(game=_fresh(game))
    assert kept is not None and [s.to_json() for s in replayed] == [kept.to_json()]
    assert game_verify(game=game).ok


def test_verify_notices_a_final_table_that_the_log_does_not_give(game: Game) -> None:
    game = play_until_hand_ends(game, random.Random(5))
    hand = Hand.objects.get(game=game, number=1)
    table: dict[str, Any] = dict(hand.final_table or {})
    table["scores"] = [1, 2]
    Hand.objects.filter(pk=hand.pk).update(final_table=table)
    problems = game_verify(game=game).problems
    assert any("final table" in p for p in problems)
