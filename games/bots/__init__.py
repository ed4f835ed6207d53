"""Bots: players for empty seats, absent players and newcomers (pure Python, no Django).

Every bot answers one question: given a player view (docs/formats.md) and what it
remembers of the hand, which action does it play? It never sees a Table.

    bot = get_bot("strong")
    action = bot.choose(view, memory, rng)
"""

from __future__ import annotations

import os
import random
from dataclasses import replace
from typing import Any, Protocol

from .basic import BasicBot
from .memory import BotMemory
from .random_bot import RandomBot
from .strong import Budget, StrongBot

BOT_LEVELS = ("random", "basic", "strong")


class Bot(Protocol):
    name: str

    def choose(
        self, view: dict[str, Any], memory: BotMemory | None, rng: random.Random
    ) -> dict[str, Any]:
        """One action (docs/formats.md) for the seat ``view["seat"]``, whose turn it is."""
        ...


# Measuring only (docs/bots.md): `CANASTA_STRONG_SHORT=ROUNDS,DEALS[,KINDS[,HELD]]` turns on `strong`'s short
# look-ahead on discards and pickups in this process (and the simulator's workers).
SHORT_LOOKAHEAD_VARIABLE = "CANASTA_STRONG_SHORT"
# Measuring only: `CANASTA_STRONG_MATCH=1` turns on `strong`'s match-aware look-ahead.
MATCH_AWARE_VARIABLE = "CANASTA_STRONG_MATCH"


def strong_budget() -> Budget:
    """`strong`'s thinking budget: the default, or the short look-ahead being measured."""
    setting = os.environ.get(SHORT_LOOKAHEAD_VARIABLE, "").strip()
    aware = os.environ.get(MATCH_AWARE_VARIABLE, "").strip() not in ("", "0")
    if not setting:
        return replace(Budget(), match_aware=aware)
    # ROUNDS,DEALS[,KINDS[,HELD]]: KINDS "d" discards, "p" pickups (default both); HELD the
    # points a card still held is worth at the horizon.
    rounds, deals, kinds, held = [*setting.split(","), "", "", ""][:4]
    kinds = kinds or "dp"
    return replace(
        Budget(),
        match_aware=aware,
        short_rounds=int(rounds),
        short_samples=int(deals or 4),
        short_discards=Budget.short_discards if "d" in kinds else 0,
        short_pickups="p" in kinds,
        held_card=float(held) if held else Budget.held_card,
    )


def get_bot(level: str) -> Bot:
    if level == "random":
        return RandomBot()
    if level == "basic":
        return BasicBot()
    if level == "strong":
        return StrongBot(strong_budget())
    raise ValueError(f"unknown bot level {level!r}; known: {', '.join(BOT_LEVELS)}")


__all__ = ["BOT_LEVELS", "Bot", "BotMemory", "get_bot"]
