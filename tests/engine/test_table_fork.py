"""`apply` shares unchanged lists with the table it is given (Table.fork), yet never changes it.

Every legal action (and the going-out sequences) is played from random positions of
every configuration; the given table must read the same afterwards, and the new
table must own every list it changed.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import apply, deal, legal_actions
from games.engine.randomplay import random_action

from .helpers import CONFIG_IDS, CONFIGS, check_invariants

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@given(seed=seeds, play_seed=st.integers(0, 2**32))
def test_apply_never_changes_the_given_table(variant, players, options, seed, play_seed):
    rng = random.Random(play_seed)
    t = deal(variant, players, seed, options=options)
    while not t.over:
        before = t.to_json()
        actions = legal_actions(t).actions()
        for action in rng.sample(actions, min(3, len(actions))):
            after = apply(t, t.turn, action).table
            assert t.to_json() == before, action
            # Later moves on the new table do not reach back either.
            for _ in range(4):
                if after.over:
                    break
                after = apply(after, after.turn, random_action(after, rng)).table
            assert t.to_json() == before, action
        t = apply(t, t.turn, rng.choice(actions)).table
    check_invariants(t)


def test_fork_shares_only_what_apply_replaces():
    t = deal("classic", 4, "ab" * 32)
    fork = t.fork()
    assert fork.hands is not t.hands and fork.hands[t.turn] is not t.hands[t.turn]
    assert fork.melds is not t.melds and fork.melded is not t.melded
    # Shared until replaced: the stock (about 80 cards) and the other hands.
    assert fork.stock is t.stock and fork.hands[(t.turn + 1) % 4] is t.hands[(t.turn + 1) % 4]
    drawn = apply(t, t.turn, {"type": "draw"}).table
    assert drawn.stock is not t.stock and len(drawn.stock) < len(t.stock)
    # Table.copy (not copy.deepcopy: the compiled build's classes do not support it) owns all.
    owned = t.copy()
    assert owned.to_json() == t.to_json() and owned.stock is not t.stock
