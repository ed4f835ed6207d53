"""Dealing a hand from a seed (docs/rules.md#the-deal, docs/fair-shuffle.md, docs/variants.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .cards import Card
from .shuffle import shuffle
from .table import Table
from .variants import get_rules


def dealer_for_hand(players: int, hand_number: int) -> int:
    """docs/rules.md#players-sides-and-seats: dealer of hand k is (n-1 + k-1) mod n."""
    return (players - 1 + hand_number - 1) % players


def deal(
    variant: str,
    players: int,
    seed_hex: str,
    *,
    hand_number: int = 1,
    scores: Sequence[int] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Table:
    """The table at the start of a hand, dealt from ``seed_hex``."""
    rules = get_rules(variant)
    if players not in rules.player_counts:
        raise ValueError(f"{variant} is played by {rules.player_counts} players")
    given = dict(options or {})
    settings = rules.resolve_options(given)
    sides = rules.sides(players)
    dealer = dealer_for_hand(players, hand_number)
    stock = shuffle(seed_hex, rules.deck())
    order = [(dealer + 1 + i) % players for i in range(players)]
    hands: list[list[Card]] = [[] for _ in range(players)]
    # One card at a time, starting with the player after the dealer (docs/fair-shuffle.md).
    for _ in range(rules.hand_size(players)):
        for seat in order:
            hands[seat].append(stock.pop(0))
    if rules.first_player_extra_card:
        hands[order[0]].append(stock.pop(0))  # tiles: 15 for the first player
    discard: list[Card] = []
    if rules.has_upcard:
        # docs/rules.md#the-deal: turn cards until a natural card is on top.
        discard.append(stock.pop(0))
        while rules.upcard_covered(discard[-1]):
            discard.append(stock.pop(0))
    red_threes: list[list[Card]] = [[] for _ in range(sides)]
    for seat in order:
        # docs/rules.md#the-deal: red threes are laid out and replaced, in turn order, again and again
        while any(rules.is_bonus_three(c) for c in hands[seat]):
            card = next(c for c in hands[seat] if rules.is_bonus_three(c))
            hands[seat].remove(card)
            red_threes[seat % sides].append(card)
            hands[seat].append(stock.pop(0))
    table = Table(
        rules=rules,
        players=players,
        options=given,
        dealer=dealer,
        turn=order[0],
        phase="discard" if rules.first_player_extra_card else "draw",
        scores=list(scores) if scores is not None else [0] * sides,
        hands=hands,
        stock=stock,
        discard=discard,
        melds=[{} for _ in range(sides)],
        red_threes=red_threes,
        melded=[False] * players,
        hand=hand_number,
        settings=settings,
    )
    return table
