"""games.engine.public: the facts behind the forced draw of play by email read only what the
whole table sees. Hypothesis plays random hands; at every turn's start the hidden cards (all
hands and the stock) are dealt again, keeping their sizes, and no answer may change. The facts
are also sound: a closed pile cannot be taken, and a draw judged safe never ends the hand."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Table, apply, deal
from games.engine.legal import pickup_actions
from games.engine.public import draw_may_end_hand, pile_closed, unseen_bonus_threes
from games.engine.randomplay import random_action

from .helpers import CONFIG_IDS, CONFIGS

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


def _dealt_again(t: Table, rng: random.Random) -> Table:
    """The same public table with every hidden card moved: red threes stay in the stock (a
    hand never holds one)."""
    other = t.copy()
    bonus = other.rules.is_bonus_three
    pool = [c for hand in other.hands for c in hand] + list(other.stock)
    rng.shuffle(pool)
    held = [c for c in pool if not bonus(c)]
    for seat, hand in enumerate(other.hands):
        other.hands[seat], held = held[: len(hand)], held[len(hand) :]
    other.stock = held + [c for c in pool if bonus(c)]
    rng.shuffle(other.stock)
    return other


def _facts(t: Table) -> tuple[bool, bool, int]:
    return pile_closed(t, t.turn), draw_may_end_hand(t), unseen_bonus_threes(t)


def _check(t: Table, rng: random.Random) -> None:
    facts = _facts(t)
    for _ in range(3):
        twin = _dealt_again(t, rng)
        assert _facts(twin) == facts  # public: the hidden cards change nothing
        _check_sound(twin)
    _check_sound(t)


def _check_sound(t: Table) -> None:
    if pile_closed(t, t.turn):
        assert not pickup_actions(t, t.turn, first_only=True)
    if not draw_may_end_hand(t):
        assert not apply(t, t.turn, {"type": "draw"}).table.over
    assert unseen_bonus_threes(t) == sum(1 for c in t.stock if t.rules.is_bonus_three(c))


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=15)
@given(seed=seeds, play_seed=st.integers(0, 2**32))
def test_the_forced_draw_facts_are_public_and_sound(variant, players, options, seed, play_seed):
    rng = random.Random(play_seed)
    t = deal(variant, players, seed, options=options)
    while not t.over:
        if t.phase == "draw":
            _check(t, rng)
        t = apply(t, t.turn, random_action(t, rng)).table


def test_a_pile_blocked_on_top_is_closed_and_a_natural_on_top_is_not():
    t = deal("classic", 4, "00" * 32)
    t.phase = "draw"
    t.discard = ["7H", "3S"]
    assert pile_closed(t, t.turn)
    t.discard = ["3S", "7H"]
    assert not pile_closed(t, t.turn)
    t.discard = []
    assert pile_closed(t, t.turn)


def test_a_draw_near_the_end_of_the_stock_may_end_the_hand():
    t = deal("classic", 4, "00" * 32)
    t.discard = ["7H"]
    t.red_threes = [["3H", "3D"], ["3H"]]  # three of the four are out: one may be in the stock
    t.stock = ["5C", "8D"]
    assert not draw_may_end_hand(t)
    t.stock = ["5C"]
    assert draw_may_end_hand(t)  # the one card could be the last red three
    t.red_threes = [["3H", "3D"], ["3H", "3D"]]
    assert not draw_may_end_hand(t)
    t.stock = []
    assert draw_may_end_hand(t)
