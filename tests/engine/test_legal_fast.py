"""The fast legal-action generator equals the trial-apply oracle on random positions.

`legal_actions` decides every candidate by the rules directly; `trial_legal_actions`
plays each one on a copy of the table. Positions come from random play in every
variant, player count and option set of the test configurations, with side scores
that set every initial-meld minimum, so that pickups with melds, initial melds,
additions, going out, "may I go out?" and its answers all occur.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import apply, deal, from_json, goingout
from games.engine.cards import is_black_three, is_wild
from games.engine.legal import legal_actions, trial_legal_actions
from games.engine.play import find_going_out
from games.engine.randomplay import random_action
from games.engine.table import Table

from .helpers import CONFIG_IDS, CONFIGS

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
# Side scores on both sides of every minimum step (classic 15/50/90/120, party, tiles).
scores = st.sampled_from([-100, 0, 1500, 3000, 5000, 7000])


def as_set(legal: Any) -> dict[str, Any]:
    """The listing with each list as a set of JSON texts: order-insensitive."""
    out: dict[str, Any] = {}
    for key, value in legal.to_json().items():
        if isinstance(value, list):
            out[key] = sorted(json.dumps(v, sort_keys=True) for v in value)
        else:
            out[key] = value
    return out


def assert_same(t: Table) -> None:
    fast = legal_actions(t)
    oracle = trial_legal_actions(t)
    assert as_set(fast) == as_set(oracle), json.dumps(t.to_json())
    # The same order too, so bots choosing by index behave as before.
    assert fast.to_json() == oracle.to_json()
    assert_sequence_is_the_listing(fast)
    other = (t.turn + 1) % t.players
    assert legal_actions(t, other).actions() == trial_legal_actions(t, other).actions() == []
    assert_same_way_out(t)


def assert_sequence_is_the_listing(legal: Any) -> None:
    """`len(legal)` and `legal[i]` (which build one action) agree with `legal.actions()`, so a
    choice by index, `rng.choice(legal)`, picks what `rng.choice(legal.actions())` picks."""
    listed = legal.actions()
    assert len(legal) == len(listed) == legal.count()
    assert [legal[i] for i in range(len(listed))] == listed
    assert [legal[i - len(listed)] for i in range(len(listed))] == listed
    for index in (len(listed), -len(listed) - 1):
        with pytest.raises(IndexError):
            legal[index]
    assert list(legal) == listed
    rng_a, rng_b = random.Random(len(listed)), random.Random(len(listed))
    if listed:
        assert rng_a.choice(legal) == rng_b.choice(listed)


def assert_same_way_out(t: Table) -> None:
    """The going-out search checked by the rules finds what it finds checked by trial moves."""
    fast = find_going_out(t)
    assert fast == goingout.going_out_search(t, apply), json.dumps(t.to_json())
    if t.go_out is True:
        assert fast is not None  # a binding yes always leaves a way out


def play_and_compare(t: Table, rng: random.Random) -> int:
    """Play the hand out, mixing uniform legal choices and randomplay; compare every position."""
    positions = 0
    while not t.over:
        assert_same(t)
        positions += 1
        if rng.random() < 0.5:
            action = rng.choice(legal_actions(t).actions())
        else:
            action = random_action(t, rng)
        t = apply(t, t.turn, action).table
    assert_same(t)
    return positions


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@given(seed=seeds, play_seed=st.integers(0, 2**32), side_scores=st.lists(scores, min_size=3))
def test_fast_generator_equals_the_trial_apply_oracle(
    variant, players, options, seed, play_seed, side_scores
):
    t = deal(variant, players, seed, options=options)
    t = deal(variant, players, seed, options=options, scores=side_scores[: t.sides])
    assert play_and_compare(t, random.Random(play_seed)) > 0


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
def test_fast_generator_equals_the_oracle_over_many_seeded_hands(variant, players, options):
    """A fixed sweep besides Hypothesis: 6 hands per configuration, every position."""
    rng = random.Random(f"{variant}{players}{sorted(options.items())}")
    positions = 0
    for hand in range(6):
        seed = rng.getrandbits(256).to_bytes(32, "big").hex()
        side_scores = [rng.choice([0, 1500, 3000]) for _ in range(3)]
        t = deal(variant, players, seed, options=options, hand_number=hand + 1)
        t = deal(
            variant,
            players,
            seed,
            options=options,
            hand_number=hand + 1,
            scores=side_scores[: t.sides],
        )
        positions += play_and_compare(t, rng)
    assert positions > 100


def old_could_go_out(t: Table) -> bool:
    """goingout._could_go_out before it became one pass (the reference it must equal)."""
    rules = t.rules
    side = t.melds[t.side_of(t.turn)]
    hand = t.hands[t.turn]
    counts = Counter(c[0] for c in hand if not is_wild(c) and not is_black_three(c))
    wilds = sum(1 for c in hand if is_wild(c))
    threes = sum(1 for c in hand if is_black_three(c))
    loose = sum(n for rank, n in counts.items() if n == 1 and rank not in side)
    if threes and threes not in rules.black_three_meld_sizes:
        loose += threes
    if loose > 1:
        return False
    have = sum(1 for k, cards in side.items() if len(cards) >= 7)
    need = rules.canastas_needed(t.players)
    if have >= need:
        return True
    sizes = {
        rank: len(side.get(rank, [])) + counts.get(rank, 0) for rank in set(side) | set(counts)
    }
    reachable = sum(1 for size in sizes.values() if size + wilds >= 7)
    return have + reachable >= need


def check_going_out_shortcuts(t: Table) -> None:
    """The going-out search's shortcuts change no answer.

    `_could_go_out` equals its old form, and every discard `_Shape` skips is one for which
    `_plan` answers None (so the first way out found is the same as without skipping).
    """
    if t.phase != "play" or t.over:
        return
    assert goingout._could_go_out(t) == old_could_go_out(t), json.dumps(t.to_json())
    assert_same_way_out(t)
    shape = goingout._Shape(t)
    hand = t.hands[t.turn]
    for discard in [None, *dict.fromkeys(hand)]:
        rest = list(hand)
        if discard is not None:
            rest.remove(discard)
        if rest and shape.plan_fails(discard):
            for prefer_big in (True, False):
                assert goingout._plan(t, rest, prefer_big) is None, (discard, t.to_json())


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@given(seed=seeds, play_seed=st.integers(0, 2**32))
def test_going_out_shortcuts_change_no_answer(variant, players, options, seed, play_seed):
    rng = random.Random(play_seed)
    t = deal(variant, players, seed, options=options)
    while not t.over:
        check_going_out_shortcuts(t)
        # Pickups make the big hands where going out is near.
        legal = legal_actions(t)
        action = rng.choice(legal.pickups or legal.actions())
        t = apply(t, t.turn, action).table


END_GAME_HANDS = [["7H", "7S"], ["7H", "7S", "9C"], ["7H", "2C", "9C"], ["7H", "7S", "2C", "JK"]]


@pytest.mark.parametrize("variant", ["classic", "family", "party", "tiles"])
@pytest.mark.parametrize("hand", END_GAME_HANDS)
@pytest.mark.parametrize("pile", [["7D"], ["5C", "7D"], ["3H", "7D"]])
@pytest.mark.parametrize("canasta", [False, True])
@pytest.mark.parametrize("phase", ["draw", "play"])
def test_fast_generator_equals_the_oracle_with_few_cards_left(variant, hand, pile, canasta, phase):
    """Positions random play rarely reaches: a pickup or a meld that leaves one card or none,
    with and without the canasta that going out needs."""
    melds = {"K": ["KH", "KS", "KD"] + (["KC", "KH", "KS", "KD"] if canasta else [])}
    if variant != "classic":
        melds["K"] += ["KC"]  # family and the others need more canastas: still not enough
    data = {
        "variant": variant,
        "players": 4,
        "dealer": 3,
        "turn": 0,
        "phase": phase,
        "scores": [0, 0],
        "hands": [hand, ["8H"], ["8S"], ["8D"]],
        "stock": ["9H", "9S"],
        "discard": pile,
        "melds": [melds, {}],
        "red_threes": [[], []],
    }
    assert_same(from_json(data))
