"""Positions reached by random play, in every variant (for round-trip and rendering tests).

Per configuration: a few ordinary positions plus, where random play reaches them, positions
where the pile can be taken, where the player can go out, an "answer" phase and the `tiles`
opening discard, so every kind of legal action is covered.
"""

from __future__ import annotations

import random
from functools import cache

from games.engine import Table, apply, deal, legal_actions
from games.engine.randomplay import random_action
from tests.engine.helpers import CONFIGS

HANDS_PER_CONFIG = 3
WANTED = {
    "plain": 4,
    "pickup": 3,
    "pickup_cards_none": 2,
    "going_out": 3,
    "answer": 2,
    "discard": 1,
}


def _features(t: Table) -> tuple[list[str], Table | None]:
    """The kinds of legal action at ``t``, and the "answer" position after asking, if any."""
    if t.phase in ("answer", "discard"):
        return [t.phase], None
    legal = legal_actions(t)
    found = []
    asked = None
    if legal.ask_partner:
        asked = apply(t, t.turn, {"type": "ask_partner"}).table
    if legal.pickups:
        found.append("pickup")
    if any("cards" not in p for p in legal.pickups):
        found.append("pickup_cards_none")
    if legal.going_out:
        found.append("going_out")
    return found, asked


@cache
def positions() -> tuple[tuple[str, Table], ...]:
    found: list[tuple[str, Table]] = []
    for index, (variant, players, options) in enumerate(CONFIGS):
        label = f"{variant}-{players}{'-opts' if options else ''}"
        rng = random.Random(1000 + index)
        counts = dict.fromkeys(WANTED, 0)
        for hand in range(1, HANDS_PER_CONFIG + 1):
            t = deal(variant, players, f"{index * 100 + hand:064x}", options=options)
            step = 0
            while not t.over and any(counts[k] < WANTED[k] for k in WANTED):
                kinds, asked = _features(t)
                kinds += ["plain"] if step % 9 == 4 else []
                if any(counts[k] < WANTED[k] for k in kinds):
                    for k in kinds:
                        counts[k] += 1
                    found.append((label, t))
                if asked is not None and counts["answer"] < WANTED["answer"]:
                    counts["answer"] += 1
                    found.append((label, asked))
                t = apply(t, t.turn, random_action(t, rng)).table
                step += 1
    return tuple(found)
