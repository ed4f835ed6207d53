"""Bots: players for empty seats, absent players and newcomers (pure Python, no Django).

Every bot answers one question: given a player view (docs/formats.md) and what it
remembers of the hand, which action does it play? It never sees a Table.

    bot = get_bot("strong")
    action = bot.choose(view, memory, rng)
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from .basic import BasicBot
from .memory import BotMemory
from .random_bot import RandomBot
from .strong import StrongBot

BOT_LEVELS = ("random", "basic", "strong")


class Bot(Protocol):
    name: str

    def choose(
        self, view: dict[str, Any], memory: BotMemory | None, rng: random.Random
    ) -> dict[str, Any]:
        """One action (docs/formats.md) for the seat ``view["seat"]``, whose turn it is."""
        ...


def get_bot(level: str) -> Bot:
    if level == "random":
        return RandomBot()
    if level == "basic":
        return BasicBot()
    if level == "strong":
        return StrongBot()
    raise ValueError(f"unknown bot level {level!r}; known: {', '.join(BOT_LEVELS)}")


__all__ = ["BOT_LEVELS", "Bot", "BotMemory", "get_bot"]
