"""`strong`'s race look-ahead near the end of the hand (issue 31, docs/bots.md)."""

from __future__ import annotations

import random
from dataclasses import replace

from games.bots.sampling import Sampler
from games.bots.strong import Budget, StrongBot, strong_style
from games.engine import deal, is_legal, player_view

from .helpers import QUICK_STRONG

CANASTA = ["KS", "KH", "KD", "KC", "KS", "KH", "KD"]


def _take_canasta(t):
    """Seven kings taken out of the stock and the hands (the cards still add up)."""
    taken = []
    for cards in [t.stock, *t.hands]:
        for card in [c for c in cards if c[0] == "K"]:
            if len(taken) < 7:
                cards.remove(card)
                taken.append(card)
    assert len(taken) == 7
    return taken


def _play_position():
    t = deal("classic", 4, "5" * 64)
    t.phase = "play"
    return t, t.turn


def test_it_races_in_four_player_classic_only_near_the_end_of_the_hand():
    t, seat = _play_position()
    bot = StrongBot(QUICK_STRONG)
    bot.policy = bot.policy.__class__(strong_style("classic", 4))
    assert not bot.racing(t)
    opponent = (seat + 1) % 4
    t.melds[t.side_of(opponent)] = {"K": list(CANASTA)}
    t.hands[opponent] = t.hands[opponent][:4]
    assert not bot.racing(t)  # 4 cards: not yet
    t.hands[opponent] = t.hands[opponent][:3]
    assert bot.racing(t)
    assert not StrongBot(replace(QUICK_STRONG, racing=())).racing(t)
    two = deal("classic", 2, "5" * 64)
    two.phase = "play"
    assert not bot.racing(two)


OWN = replace(QUICK_STRONG, race_own=99)


def test_with_race_own_it_races_once_its_own_side_may_go_out():
    t, seat = _play_position()
    bot = StrongBot(OWN)
    t.melds[t.side_of(seat)] = {"K": list(CANASTA)}
    assert bot.racing(t)
    assert not StrongBot(QUICK_STRONG).racing(t)  # off by default (measured, docs/bots.md)
    race = bot.race_policy().style
    assert race.keep_cards == Budget().race_keep and race.shed_with_canasta


def test_a_race_decision_is_legal_and_the_same_for_the_same_seed():
    t, seat = _play_position()
    t.melds[t.side_of(seat)] = {"K": _take_canasta(t)}
    t.melded[t.side_of(seat)] = True
    view = player_view(t, seat)
    chosen = [StrongBot(OWN).choose(view, None, random.Random(3)) for _ in range(2)]
    assert chosen[0] == chosen[1] and is_legal(t, seat, chosen[0])
    bot = StrongBot(OWN)
    bot.choose(view, None, random.Random(3))
    sampler = Sampler(view, None)
    action = bot.race(sampler, None, bot.policy.act(sampler.base), random.Random(4))
    assert is_legal(t, seat, action)
