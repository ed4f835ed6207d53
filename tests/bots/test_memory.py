"""The bot's memory: only public facts, true ones, and JSON all the way."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots import BotMemory
from games.engine import apply, deal, event_for, player_view
from games.engine.randomplay import random_action

from .helpers import CONFIG_IDS, CONFIGS

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, play_seed=st.integers(0, 2**32))
def test_what_it_knows_is_in_the_hand_and_survives_json(variant, players, options, seed, play_seed):
    rng = random.Random(play_seed)
    t = deal(variant, players, seed, options=options)
    memories = [BotMemory(seat=s, players=players) for s in range(players)]
    while not t.over:
        outcome = apply(t, t.turn, random_action(t, rng))
        if outcome.table.over:
            break
        t = outcome.table
        for memory in memories:
            for event in outcome.events:
                memory.observe(event_for(event, memory.seat))
            memory.sync(player_view(t, memory.seat))
            for s in range(players):
                assert not Counter(memory.known[s]) - Counter(t.hands[s]), (memory.seat, s)
            data = json.loads(json.dumps(memory.to_json()))
            assert BotMemory.from_json(data).to_json() == memory.to_json()


def test_it_remembers_the_pile_a_player_took_until_it_is_melded_or_discarded():
    memory = BotMemory(seat=0, players=4)
    memory.observe({"type": "discard", "seat": 0, "card": "9H"})
    memory.observe({"type": "draw", "seat": 1, "count": 1})
    memory.observe({"type": "discard", "seat": 1, "card": "KS"})
    memory.observe({"type": "pickup", "seat": 2, "cards": ["9H", "3D", "KS"]})
    assert memory.known[2] == ["9H"]  # the red three is laid out, the top card melded
    assert memory.pickups[2] == 1
    memory.observe({"type": "meld", "seat": 2, "melds": [["9H", "9S", "9D"]], "add": {}})
    assert memory.known[2] == []
    memory.observe({"type": "pickup", "seat": 3, "cards": ["4C", "QD", "QH"]})
    memory.observe({"type": "discard", "seat": 3, "card": "QD"})
    assert memory.known[3] == ["4C"]
    assert memory.discards[3] == ["QD"]


def test_it_reads_no_pair_from_a_discard_and_from_a_pass():
    memory = BotMemory(seat=0, players=2)
    memory.observe({"type": "draw", "seat": 1, "count": 2})
    memory.observe({"type": "discard", "seat": 1, "card": "7C"})
    assert memory.evidence[1] == {"7": 2}
    memory.observe({"type": "draw", "seat": 0, "cards": ["4S", "4H"]})
    assert memory.evidence[0] == {"7": 0}  # drew with a 7 on top of the pile
    memory.observe({"type": "discard", "seat": 0, "card": "JK"})
    assert "J" not in memory.evidence[0]  # a joker is no jack


def test_it_forgets_the_hand_when_it_ends():
    memory = BotMemory(seat=1, players=4)
    memory.observe({"type": "pickup", "seat": 2, "cards": ["9H", "KS"]})
    memory.observe({"type": "hand_over", "reason": "went_out", "went_out": 0, "concealed": False})
    assert memory.hand == 2
    assert memory.known == [[], [], [], []]


def test_it_forgets_known_cards_melded_with_the_top_card():
    t = deal("classic", 4, "2" * 64)
    memory = BotMemory(seat=0, players=4)
    memory.observe({"type": "pickup", "seat": 1, "cards": ["KH", "QS", "7H"]})
    assert memory.known[1] == ["KH", "QS"]
    view = player_view(t, 0)
    view["melds"] = [{}, {"7": ["7H", "7D", "7C"]}]
    memory.sync(view)
    assert memory.known[1] == ["KH", "QS"]
    # Seat 1 takes the pile with the king it took before: the table shows it in the meld.
    memory.observe({"type": "pickup", "seat": 1, "cards": ["5S", "KD"]})
    view["melds"] = [{}, {"7": ["7H", "7D", "7C"], "K": ["KD", "KH", "KS"]}]
    memory.sync(view)
    assert memory.known[1] == ["QS", "5S"]
