"""Bots decide from the player view alone: hidden cards never change what they play."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots.sampling import Sampler, sample_table, unseen_cards
from games.engine import Table, legal_actions, player_view

from .helpers import CONFIG_IDS, CONFIGS, all_bots, random_position

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
quick = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reshuffle_hidden(t: Table, seat: int, rng: random.Random) -> Table:
    """The same table with the cards ``seat`` cannot see dealt differently."""
    other = t.copy()
    others = [s for s in range(t.players) if s != seat]
    hidden = [c for s in others for c in t.hands[s]] + list(t.stock)
    rng.shuffle(hidden)
    ordinary = [c for c in hidden if not t.rules.is_bonus_three(c)]
    bonus = [c for c in hidden if t.rules.is_bonus_three(c)]
    for s in others:
        n = len(t.hands[s])
        other.hands[s], ordinary = ordinary[:n], ordinary[n:]
    other.stock = ordinary + bonus
    rng.shuffle(other.stock)
    return other


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@quick
@given(seed=seeds, play_seed=st.integers(0, 2**32), steps=st.integers(0, 160))
def test_it_plays_the_same_action_on_two_tables_with_the_same_view(
    variant, players, options, seed, play_seed, steps
):
    t, memories = random_position(variant, players, options, seed, play_seed, steps)
    seat = t.turn
    twin = reshuffle_hidden(t, seat, random.Random(play_seed))
    view = player_view(t, seat)
    assert player_view(twin, seat) == view
    for bot in all_bots():
        mine = bot.choose(view, memories[seat], random.Random(play_seed))
        theirs = bot.choose(player_view(twin, seat), memories[seat], random.Random(play_seed))
        assert mine == theirs, bot.name


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@quick
@given(seed=seeds, play_seed=st.integers(0, 2**32), steps=st.integers(0, 160))
def test_a_sampled_table_shows_the_seat_exactly_its_view(
    variant, players, options, seed, play_seed, steps
):
    t, memories = random_position(variant, players, options, seed, play_seed, steps)
    seat = t.turn
    view = player_view(t, seat)
    for memory in (memories[seat], None):
        if memory is not None:
            memory.sync(view)
        sampled = sample_table(view, memory, random.Random(play_seed))
        assert player_view(sampled, seat) == view
        assert sampled.all_cards() == Counter(t.rules.deck())
        # What the memory knows to be in a hand is there (and it is true).
        if memory is not None:
            memory.sync(view)
            for s in range(players):
                if s != seat:
                    assert not Counter(memory.known[s]) - Counter(sampled.hands[s])
                    assert not Counter(memory.known[s]) - Counter(t.hands[s])


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
@quick
@given(seed=seeds, play_seed=st.integers(0, 2**32), steps=st.integers(0, 160))
def test_the_listed_legal_actions_do_not_depend_on_the_hidden_cards(
    variant, players, options, seed, play_seed, steps
):
    t, memories = random_position(variant, players, options, seed, play_seed, steps)
    seat = t.turn
    sampler = Sampler(player_view(t, seat), memories[seat])
    rng = random.Random(play_seed)
    listed = legal_actions(t, seat).actions()
    assert legal_actions(sampler.base, seat).actions() == listed
    assert legal_actions(sampler.sample(rng), seat).actions() == listed


def test_unseen_cards_are_the_deck_minus_what_the_view_shows():
    t, _ = random_position("classic", 4, {}, "1" * 64, 5, 40)
    view = player_view(t, t.turn)
    hidden = Counter(t.stock)
    for s in range(4):
        if s != t.turn:
            hidden.update(t.hands[s])
    assert Counter(unseen_cards(view)) == hidden


def test_it_refuses_a_spectator_view():
    t, _ = random_position("classic", 4, {}, "1" * 64, 5, 10)
    with pytest.raises(ValueError):
        Sampler(player_view(t, None))
