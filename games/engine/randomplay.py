"""A cheap random legal player, for property tests, benchmarks and fuzzing.

It does not enumerate every legal action (see `legal.py` for that); it picks a
kind of move at random and builds one candidate, which `play.apply` then
validates like any other action. Randomness comes from the caller's
`random.Random`, so a game is reproducible from its seed.
"""

from __future__ import annotations

import random
from typing import Any

from .cards import is_black_three, is_wild
from .legal import allowed, legal_discards
from .pickups import pickup_actions
from .play import Outcome, apply, find_going_out, must_take_pile
from .table import Table

ActionJSON = dict[str, Any]


def _meld_candidate(t: Table, rng: random.Random) -> ActionJSON | None:
    hand = t.hands[t.turn]
    side = t.melds[t.side_of(t.turn)]
    groups: dict[str, list[str]] = {}
    wilds = [c for c in hand if is_wild(c)]
    for c in hand:
        if not is_wild(c) and not is_black_three(c):
            groups.setdefault(c[0], []).append(c)
    choices: list[ActionJSON] = []
    for rank, cards in groups.items():
        if rank in side:
            choices.append({"type": "meld", "add": {rank: cards}})
        elif len(cards) >= 3 or (len(cards) == 2 and wilds):
            extra = wilds[: rng.randint(1 if len(cards) == 2 else 0, min(len(wilds), 2))]
            choices.append({"type": "meld", "melds": [cards + extra]})
    if wilds and side:
        rank = rng.choice(list(side))
        choices.append({"type": "meld", "add": {rank: [rng.choice(wilds)]}})
    return rng.choice(choices) if choices else None


def _draw_action(t: Table, rng: random.Random) -> ActionJSON:
    """Take the pile now and then when the top card could plausibly go with the hand."""
    seat = t.turn
    top = t.discard[-1] if t.discard else None
    hand = t.hands[seat]
    plausible = top is not None and (
        top[0] in t.melds[t.side_of(seat)] or sum(1 for c in hand if c[0] == top[0]) >= 1
    )
    if plausible and (rng.random() < 0.6 or (not t.stock and must_take_pile(t, seat))):
        options = pickup_actions(t, seat)
        if options:
            return rng.choice(options)
    return {"type": "draw"}


def _going_out(t: Table, why: str) -> ActionJSON:
    out = find_going_out(t)
    assert out is not None, why
    return out[0]


def _ask_or_meld(t: Table, rng: random.Random) -> ActionJSON | None:
    """Now and then ask the partner, or lay a random meld the rules allow."""
    asking = t.settings.get("ask_partner") and t.go_out is None and rng.random() < 0.05
    if asking and len(t.hands[t.turn]) >= 2 and find_going_out(t):
        return {"type": "ask_partner"}
    if rng.random() < 0.5:
        candidate = _meld_candidate(t, rng)
        # Decided by the rules as legal_actions decides (no trial move): same answer as apply.
        if candidate is not None and allowed(t, candidate):
            return candidate
    return None


def _play_action(t: Table, rng: random.Random) -> ActionJSON:
    """Phase play: mostly go out when possible, else meld now and then, else discard."""
    if t.go_out is not False and rng.random() < 0.7:
        out = find_going_out(t)
        if out:
            return out[0]
    chosen = _ask_or_meld(t, rng)
    if chosen is not None:
        return chosen
    if t.go_out is True:
        return _going_out(t, "a binding yes always has a way out")
    discards = legal_discards(t)
    if not discards:
        return _going_out(t, "a player in phase play can always discard or go out")
    return {"type": "discard", "card": rng.choice(discards)}


def random_action(t: Table, rng: random.Random) -> ActionJSON:
    """One legal action for the seat to move (the table must not be over)."""
    if t.phase == "answer":
        return {"type": "answer", "yes": rng.random() < 0.5}
    if t.phase == "discard":
        return {"type": "discard", "card": rng.choice(t.hands[t.turn])}
    if t.phase == "draw":
        return _draw_action(t, rng)
    return _play_action(t, rng)


def play_random_hand(t: Table, rng: random.Random) -> tuple[Table, list[tuple[int, ActionJSON]]]:
    """Play the hand to its end; returns the final table and the actions taken."""
    log: list[tuple[int, ActionJSON]] = []
    while not t.over:
        action = random_action(t, rng)
        seat = t.turn
        outcome: Outcome = apply(t, seat, action)
        log.append((seat, action))
        t = outcome.table
    return t, log
