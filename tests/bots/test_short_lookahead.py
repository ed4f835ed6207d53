"""`strong`'s short look-ahead on discards and pickups (off by default; docs/bots.md)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.bots import SHORT_LOOKAHEAD_VARIABLE, get_bot, strong_budget
from games.bots.sampling import Sampler
from games.bots.strong import Budget, StrongBot, evaluate, evaluate_short
from games.engine import apply, deal, is_legal, player_view

SHORT = replace(Budget(), short_rounds=1, short_samples=2)


def _discard_position():
    t = deal("classic", 4, "7" * 64)
    return apply(t, t.turn, {"type": "draw"}).table


def test_it_is_off_unless_asked_for(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(SHORT_LOOKAHEAD_VARIABLE, raising=False)
    assert strong_budget() == Budget() and Budget().short_rounds == 0
    monkeypatch.setenv(SHORT_LOOKAHEAD_VARIABLE, "2,6")
    assert (strong_budget().short_rounds, strong_budget().short_samples) == (2, 6)
    assert get_bot("strong").budget.short_rounds == 2  # type: ignore[attr-defined]
    monkeypatch.setenv(SHORT_LOOKAHEAD_VARIABLE, "1,4,p,0")
    budget = strong_budget()
    assert (budget.short_discards, budget.short_pickups, budget.held_card) == (0, True, 0.0)
    t = _discard_position()
    bot = StrongBot(budget)
    assert bot.short_candidates(t, None, bot.policy.act(t)) == [bot.policy.act(t)]


def test_discard_candidates_are_the_heuristic_s_then_its_cheapest_rivals():
    t = _discard_position()
    bot = StrongBot(SHORT)
    default = bot.policy.act(t)
    assert default["type"] == "discard"
    candidates = bot.short_candidates(t, None, default)
    assert candidates[0] == default and 2 <= len(candidates) <= 1 + SHORT.short_discards
    assert all(c["type"] == "discard" and is_legal(t, t.turn, c) for c in candidates)


def test_it_plays_a_legal_discard_and_the_same_one_for_the_same_seed():
    t = _discard_position()
    view = player_view(t, t.turn)
    chosen = {str(StrongBot(SHORT).choose(view, None, random.Random(5))) for _ in range(2)}
    assert len(chosen) == 1
    bot = StrongBot(SHORT)
    action = bot.choose(view, None, random.Random(5))
    assert action["type"] == "discard" and is_legal(t, t.turn, action)


def test_the_search_leaves_the_heuristic_only_for_a_clear_gain_on_the_deals():
    t = _discard_position()
    bot = StrongBot(SHORT)
    sampler = Sampler(player_view(t, t.turn), None)
    candidates = bot.short_candidates(t, None, bot.policy.act(t))
    side = t.side_of(t.turn)
    rng = random.Random(3)
    deals = [sampler.sample(rng, None, pairs=SHORT.pairs) for _ in range(SHORT.short_samples)]
    values = [[bot.short_rollout(d, c, side, t.players) for d in deals] for c in candidates]
    gains = [sum(v) / len(v) - sum(values[0]) / len(values[0]) for v in values]
    best = bot.short_search(sampler, candidates, random.Random(3), None)
    assert best == 0 or gains[best] == max(gains) > SHORT.margin
    # With no margin to beat and no error to allow for, the best candidate on the deals wins.
    eager = StrongBot(replace(SHORT, margin=-1e9, confidence=0.0))
    chosen = eager.short_search(sampler, candidates, random.Random(3), None)
    assert gains[chosen] == max(gains)


def test_a_held_card_counts_as_an_asset_at_the_short_horizon():
    t = _discard_position()
    side = t.side_of(t.turn)
    # Nothing melded: the hand as it stands charges every card; a few turns ahead it does not.
    assert evaluate(t, side) != evaluate_short(t, side, 5.0)
    ours = len(t.hands[t.turn]) + len(t.hands[(t.turn + 2) % 4])
    theirs = len(t.hands[(t.turn + 1) % 4]) + len(t.hands[(t.turn + 3) % 4])
    gained = evaluate_short(t, side, 5.0) - evaluate_short(t, side, 0.0)
    assert gained == pytest.approx(5.0 * (ours - theirs))
