"""Facts about a position that bots reason with.

Every function reads a Table as its seat would see it: the seat's own hand
and the public parts (pile, melds, red threes, hand sizes). Bots call them on
sampled tables (sampling.py), so a hidden card is never looked at, and in
rollouts on fully sampled tables, where each seat only looks at its own hand.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from math import comb

from games.engine import Table
from games.engine.cards import JOKER, is_black_three, is_red_three, is_two, is_wild
from games.engine.melds import canasta_bonus, cards_value
from games.engine.scoring import red_three_score

Card = str
NATURAL = "AKQJT98765" + "4"


@dataclass
class HandShape:
    """A hand sorted into natural groups, wild cards and black threes."""

    groups: dict[str, list[Card]] = field(default_factory=dict)
    wilds: list[Card] = field(default_factory=list)
    threes: list[Card] = field(default_factory=list)


def shape(t: Table, cards: list[Card]) -> HandShape:
    out = HandShape()
    for c in cards:
        if is_wild(c):
            out.wilds.append(c)
        elif is_black_three(c):
            out.threes.append(c)
        elif not is_red_three(c):
            out.groups.setdefault(c[0], []).append(c)
    out.wilds.sort(key=lambda c: (t.rules.card_value(c), c))  # cheap wilds first
    return out


def side_table_score(t: Table, side: int) -> int:
    """What the side has on the table now: melds, canasta bonuses, red threes."""
    melds = t.melds[side]
    value = sum(cards_value(t.rules, cards) for cards in melds.values())
    value += sum(canasta_bonus(t.rules, key, cards) for key, cards in melds.items())
    value += red_three_score(t.rules, len(t.red_threes[side]), bool(melds))
    return value


def hand_points(t: Table, cards: list[Card]) -> int:
    return sum(t.rules.card_value(c) for c in cards)


def canasta_count(t: Table, side: int) -> int:
    return sum(1 for cards in t.melds[side].values() if len(cards) >= 7)


def opponents(t: Table, seat: int) -> list[int]:
    side = t.side_of(seat)
    return [s for s in range(t.players) if t.side_of(s) != side]


def next_seat(t: Table, seat: int) -> int:
    return (seat + 1) % t.players


def room_for_wilds(t: Table, key: str, cards: list[Card]) -> int:
    """How many more wild cards the meld may take."""
    if key == "W":
        return 99
    if key in ("2", "3"):
        return 0
    nat = sum(1 for c in cards if not is_wild(c))
    return max(0, t.rules.max_wilds(nat) - (len(cards) - nat))


def visible_counts(t: Table, seat: int) -> Counter[Card]:
    """Cards ``seat`` can see: own hand, pile, melds, red threes."""
    seen: Counter[Card] = Counter(t.hands[seat])
    seen.update(t.discard)
    for side in t.melds:
        for cards in side.values():
            seen.update(cards)
    for reds in t.red_threes:
        seen.update(reds)
    return seen


_DECK_RANKS: dict[tuple[int, int], dict[str, int]] = {}


def _rank_key(card: Card) -> str:
    return "W" if is_wild(card) else card[0]


def unseen_rank_counts(t: Table, seat: int) -> tuple[dict[str, int], int]:
    """Per rank ("W" for wild cards), copies ``seat`` cannot see; and the unseen total."""
    rules = t.rules
    key = (rules.packs, rules.jokers)
    deck = _DECK_RANKS.get(key)
    if deck is None:
        deck = {}
        for card in rules.deck():
            deck[_rank_key(card)] = deck.get(_rank_key(card), 0) + 1
        _DECK_RANKS[key] = deck
    ranks = dict(deck)
    seen = 0
    piles: list[list[Card]] = [t.hands[seat], t.discard, *t.red_threes]
    for side in t.melds:
        piles += side.values()
    for cards in piles:
        seen += len(cards)
        for card in cards:
            ranks[_rank_key(card)] -= 1
    return ranks, sum(deck.values()) - seen


_P_CACHE: dict[tuple[int, int, int, int], float] = {}


def p_at_least(k: int, copies: int, hand: int, pool: int) -> float:
    """P(a hand of ``hand`` cards from ``pool`` holds at least ``k`` of ``copies``)."""
    if pool <= 0 or hand <= 0 or copies < k:
        return 0.0
    hand = min(hand, pool)
    key = (k, copies, hand, pool)
    cached = _P_CACHE.get(key)
    if cached is not None:
        return cached
    total = comb(pool, hand)
    miss = sum(comb(copies, i) * comb(pool - copies, hand - i) for i in range(min(k, copies + 1)))
    value = max(0.0, 1.0 - miss / total)
    if len(_P_CACHE) < 200_000:
        _P_CACHE[key] = value
    return value


def legal_discards(t: Table) -> list[Card]:
    """The cards the seat to move may discard now (docs/rules.md: A turn, Going out)."""
    hand = t.hands[t.turn]
    if t.phase == "discard":
        return list(dict.fromkeys(hand))
    if t.phase != "play":
        return []
    if len(hand) == 1:
        enough = canasta_count(t, t.side_of(t.turn)) >= t.rules.canastas_needed(t.players)
        return list(hand) if enough and t.go_out is not False else []
    if t.go_out is True:
        return []
    return list(dict.fromkeys(hand))


def is_joker(card: Card) -> bool:
    return card == JOKER


__all__ = [
    "NATURAL",
    "HandShape",
    "canasta_count",
    "hand_points",
    "is_black_three",
    "is_joker",
    "is_two",
    "is_wild",
    "legal_discards",
    "next_seat",
    "opponents",
    "p_at_least",
    "room_for_wilds",
    "shape",
    "side_table_score",
    "unseen_rank_counts",
    "visible_counts",
]
