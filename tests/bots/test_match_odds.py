"""The strong bot's match-aware look-ahead: a rollout's end scored by the chance to win."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.bots import MATCH_AWARE_VARIABLE, strong_budget
from games.bots.strong import Budget, MatchOdds, StrongBot
from games.engine import deal, is_legal, player_view

from .helpers import QUICK_STRONG


def test_a_hand_that_ends_the_match_is_worth_all_or_nothing() -> None:
    t = deal("classic", 4, "5" * 64, hand_number=5, scores=[4600, 3900])
    odds = MatchOdds.of(t, 1.2)
    assert odds is not None
    assert odds.chance([5100, 4000], 0) == 1.0
    assert odds.chance([5100, 4000], 1) == 0.0
    # Not over yet: the chance grows with the lead, and is even at a tie.
    assert odds.chance([4000, 4000], 0) == 0.5
    assert 0.5 < odds.chance([4500, 4000], 0) < odds.chance([4900, 4000], 0) < 1.0
    # The same lead counts for more close to the target than far from it.
    assert odds.chance([4900, 4400], 0) > odds.chance([1500, 1000], 0)


def test_near_the_start_a_point_of_lead_is_worth_about_a_point() -> None:
    t = deal("classic", 4, "5" * 64)
    odds = MatchOdds.of(t, 1.2)
    assert odds is not None
    slope = odds.scale * (odds.chance([1010, 1000], 0) - odds.chance([1000, 1000], 0)) / 10
    assert 0.8 < slope < 1.3


def test_tiles_has_no_match_odds_and_the_bot_plays_either_way() -> None:
    assert MatchOdds.of(deal("tiles", 4, "5" * 64), 1.2) is None
    assert not Budget().match_aware  # off by default, as measured
    t = deal("classic", 4, "5" * 64, hand_number=3, scores=[3000, 2500])
    for aware in (False, True):
        bot = StrongBot(replace(QUICK_STRONG, match_aware=aware))
        action = bot.choose(player_view(t, t.turn), None, random.Random(1))
        assert is_legal(t, t.turn, action)


def test_the_measuring_variable_turns_it_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MATCH_AWARE_VARIABLE, raising=False)
    assert not strong_budget().match_aware
    monkeypatch.setenv(MATCH_AWARE_VARIABLE, "1")
    assert strong_budget().match_aware
