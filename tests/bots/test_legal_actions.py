"""Bots never produce an illegal action, in any variant, player count or phase."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots import BotMemory, get_bot
from games.bots.strong import StrongBot
from games.engine import apply, deal, is_legal, player_view

from .helpers import CONFIG_IDS, CONFIGS, QUICK_STRONG, all_bots, feed, random_position

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, play_seed=st.integers(0, 2**32), steps=st.integers(0, 160))
def test_every_bot_plays_a_legal_action_in_a_random_position(
    variant, players, options, seed, play_seed, steps
):
    t, memories = random_position(variant, players, options, seed, play_seed, steps)
    view = player_view(t, t.turn)
    for bot in all_bots():
        for memory in (memories[t.turn], None):
            action = bot.choose(view, memory, random.Random(play_seed))
            assert is_legal(t, t.turn, action), (bot.name, t.phase, action)


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
def test_bots_play_a_whole_hand_against_each_other(variant, players, options):
    bots = [StrongBot(QUICK_STRONG) if s % 2 else get_bot("basic") for s in range(players)]
    if players == 3:
        bots[2] = get_bot("random")
    t = deal(variant, players, "7" * 64, options=options)
    memories = [BotMemory(seat=s, players=players) for s in range(players)]
    rng = random.Random(3)
    actions = 0
    while not t.over:
        action = bots[t.turn].choose(player_view(t, t.turn), memories[t.turn], rng)
        outcome = apply(t, t.turn, action)  # raises on an illegal action
        feed(memories, outcome.events)
        t = outcome.table
        actions += 1
        assert actions < 2000, "a hand between bots ends"
