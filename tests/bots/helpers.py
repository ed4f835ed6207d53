"""Shared helpers for bot tests: positions reached by random play (the configurations are the
engine tests')."""

from __future__ import annotations

import random

from games.bots import BotMemory
from games.bots.basic import BasicBot
from games.bots.random_bot import RandomBot
from games.bots.strong import Budget, StrongBot
from games.engine import Table, apply, deal, event_for
from games.engine.randomplay import random_action
from tests.engine.helpers import CONFIG_IDS as CONFIG_IDS
from tests.engine.helpers import CONFIGS as CONFIGS

# The strong bot with a small thinking budget, so property tests stay fast.
QUICK_STRONG = Budget(samples=2, min_samples=2, work=120, horizon=30)


def all_bots() -> list:
    return [RandomBot(), BasicBot(), StrongBot(QUICK_STRONG)]


def feed(memories: list[BotMemory], events: list[dict]) -> None:
    for memory in memories:
        for event in events:
            memory.observe(event_for(event, memory.seat))


def random_position(
    variant: str, players: int, options: dict, seed: str, play_seed: int, steps: int
) -> tuple[Table, list[BotMemory]]:
    """The table after up to ``steps`` random legal actions (never a finished hand)."""
    rng = random.Random(play_seed)
    t = deal(variant, players, seed, options=options)
    memories = [BotMemory(seat=s, players=players) for s in range(players)]
    for _ in range(steps):
        outcome = apply(t, t.turn, random_action(t, rng))
        if outcome.table.over:
            break
        feed(memories, outcome.events)
        t = outcome.table
    return t, memories
