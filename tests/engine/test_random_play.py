"""Hypothesis plays complete random legal hands and matches in every variant."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import EngineError, Match, apply, deal, legal_actions, score_hand
from games.engine.randomplay import play_random_hand, random_action

from .helpers import CONFIG_IDS, CONFIGS, check_invariants

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)

BOGUS = [
    {"type": "draw"},
    {"type": "discard", "card": "JK"},
    {"type": "pickup"},
    {"type": "meld", "melds": [["AS", "AH", "AD"]]},
    {"type": "meld", "add": {"K": ["KS"]}},
    {"type": "answer", "yes": True},
    {"type": "ask_partner"},
    {"type": "fly"},
    {"type": "discard", "card": "ZZ"},
]


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@given(seed=seeds, play_seed=st.integers(0, 2**32))
def test_it_plays_random_hands_keeping_every_invariant(variant, players, options, seed, play_seed):
    rng = random.Random(play_seed)
    t = deal(variant, players, seed, options=options)
    check_invariants(t)
    steps = 0
    while not t.over:
        before = t.to_json()
        # A rejected action changes nothing; an accepted one is checked below.
        bogus = rng.choice(BOGUS)
        try:
            after = apply(t, t.turn, bogus).table
        except EngineError as exc:
            assert exc.code and exc.message
            assert t.to_json() == before
        else:
            check_invariants(after)
        # Wrong seat is always refused.
        with pytest.raises(EngineError) as refused:
            apply(t, (t.turn + 1) % t.players, {"type": "draw"})
        assert refused.value.code == "not_your_turn"
        if steps % 7 == 0:
            # Every enumerated legal action is accepted.
            for action in legal_actions(t):
                apply(t, t.turn, action)
        t = apply(t, t.turn, random_action(t, rng)).table
        check_invariants(t)
        steps += 1
    result = score_hand(t)
    assert [a + b for a, b in zip(t.scores, result.scores, strict=True)] == result.totals
    assert sum(d.total for d in result.detail) == sum(result.scores)


def _short_match_options(variant: str, options: dict) -> dict:
    if variant == "tiles":
        return {**options, "match": "three_rounds"}
    return {**options, "target": 800}


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@given(play_seed=st.integers(0, 2**32))
def test_it_plays_whole_matches_and_replays_them_from_seeds_and_actions(
    variant, players, options, play_seed
):
    rng = random.Random(play_seed)
    options = _short_match_options(variant, options)
    match = Match(
        variant, players, lambda: rng.getrandbits(256).to_bytes(32, "big").hex(), options=options
    )
    hands = 0
    while not match.over and hands < 60:
        assert match.table is not None
        _table, log = play_random_hand(match.table, rng)
        for seat, action in log:
            match.act(seat, action)
        hands = len(match.hands)
    if not match.over:
        pytest.skip("random play kept the match level for 60 hands")
    assert match.winner is not None
    last = match.hands[-1].result
    assert last is not None and last.match_over and max(last.totals) == last.totals[match.winner]
    assert list(last.totals).count(max(last.totals)) == 1, "a tie never ends the match"
    for record in match.hands:
        assert record.result is not None
    # Dealers rotate (docs/rules.md#players-sides-and-seats) and scores carry over.
    replay = Match.replay(
        variant,
        players,
        [(h.seed, h.actions) for h in match.hands],
        options=options,
    )
    assert replay.totals == match.totals
    assert replay.winner == match.winner
    assert replay.table is not None and match.table is not None
    assert replay.table.to_json() == match.table.to_json()
    for number, record in enumerate(match.hands, start=1):
        assert record.number == number
