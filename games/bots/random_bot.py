"""The `random` bot: uniform over the engine's listed legal actions.

The list (`legal_actions(...).actions()`) depends only on the seat's own hand
and public facts, so it is the same on every table sampled from the view.
"""

from __future__ import annotations

import random
from typing import Any

from games.engine import legal_actions

from .memory import BotMemory
from .sampling import Sampler


class RandomBot:
    name = "random"

    def choose(
        self, view: dict[str, Any], memory: BotMemory | None, rng: random.Random
    ) -> dict[str, Any]:
        if view.get("turn") != view.get("seat") or view.get("phase") == "over":
            raise ValueError("it is not this seat's turn")
        if memory is not None:
            memory.sync(view)
        t = Sampler(view, memory).base  # hidden cards do not change the list
        return rng.choice(legal_actions(t, view["seat"]).actions())
