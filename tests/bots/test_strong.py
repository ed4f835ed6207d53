"""The strong bot's choices of style per variant."""

from __future__ import annotations

import random
from dataclasses import replace

from games.bots.basic import BASIC_STYLE, BasicPolicy
from games.bots.strong import STRONG_STYLE, StrongBot, strong_style
from games.engine import deal, is_legal, player_view

from .helpers import QUICK_STRONG


def test_it_plays_each_variant_in_its_own_style():
    assert strong_style("classic", 2) != STRONG_STYLE
    assert strong_style("classic", 2).keep_cards == strong_style("classic", 4).keep_cards == 7
    assert strong_style("classic", 4).danger_weight > strong_style("classic", 2).danger_weight
    assert (
        strong_style("classic", 4).partner_cards == 3
        and not strong_style("classic", 2).partner_cards
    )
    assert strong_style("family", 4).keep_cards == strong_style("family", 2).keep_cards == 7
    assert strong_style("family", 2).danger_weight == strong_style("family", 4).danger_weight == 2
    assert strong_style("tiles").danger_weight == 2 < STRONG_STYLE.danger_weight
    assert strong_style("tiles").keep_cards == 7
    assert strong_style("party", 2) == replace(
        STRONG_STYLE, danger_weight=2, freeze_at=99, take_min_pile=3, out_canastas=2
    )
    assert strong_style("party", 4) == STRONG_STYLE
    assert strong_style("party", 3) == replace(STRONG_STYLE, danger_weight=1, freeze_at=99)
    assert strong_style("party", 6) == STRONG_STYLE
    bot = StrongBot(QUICK_STRONG)
    for variant in ("tiles", "classic", "tiles"):
        t = deal(variant, 4, "5" * 64)
        action = bot.choose(player_view(t, t.turn), None, random.Random(1))
        assert is_legal(t, t.turn, action)
        assert bot.policy.style == strong_style(variant, 4)


def test_a_style_given_to_the_bot_holds_in_every_variant():
    style = strong_style("tiles")
    bot = StrongBot(QUICK_STRONG, style=style)
    t = deal("classic", 4, "5" * 64)
    bot.choose(player_view(t, t.turn), None, random.Random(1))
    assert bot.policy.style == style


def test_in_classic_it_starts_a_meld_only_while_seven_cards_stay_in_hand():
    t = deal("classic", 4, "5" * 64)
    seat = t.turn
    t.phase = "play"
    t.melds[t.side_of(seat)] = {"K": ["KS", "KH", "KD"]}
    t.hands[seat] = ["7S", "7H", "7D", "4C", "5D", "6H", "8S", "9C", "TD"]
    triple = {"type": "meld", "melds": [["7S", "7H", "7D"]]}
    assert BasicPolicy(BASIC_STYLE).meld_step(t, seat) == triple  # 6 cards stay: basic melds
    strong = BasicPolicy(strong_style("classic", 4))
    assert strong.meld_step(t, seat) is None
    t.hands[seat] += ["JD", "QC"]
    assert strong.meld_step(t, seat) == triple  # 8 cards stay


def test_with_a_canasta_it_sheds_once_its_partner_may_go_out() -> None:
    t = deal("classic", 4, "5" * 64)
    seat = t.turn
    partner = t.partners(seat)[0]
    t.phase = "play"
    t.melds[t.side_of(seat)] = {"K": ["KS", "KH", "KD", "KC", "KS", "KH", "KD"]}
    t.hands[seat] = ["7S", "7H", "7D", "4C", "5D", "6H", "8S", "9C", "TD"]
    triple = {"type": "meld", "melds": [["7S", "7H", "7D"]]}
    holding = BasicPolicy(replace(strong_style("classic", 4), partner_cards=0))
    shedding = BasicPolicy(replace(strong_style("classic", 4), partner_cards=3))
    t.hands[partner] = t.hands[partner][:4]
    assert holding.meld_step(t, seat) is None
    assert shedding.meld_step(t, seat) is None  # the partner holds 4: it keeps 7 cards
    t.hands[partner] = t.hands[partner][:3]
    assert holding.meld_step(t, seat) is None
    assert shedding.meld_step(t, seat) == triple
    t.melds[t.side_of(seat)] = {"K": ["KS", "KH", "KD"]}  # no canasta: no going out yet
    assert shedding.meld_step(t, seat) is None
