"""From a player view to a full Table: the hidden parts filled with a sample.

A bot never receives a Table. To ask the engine what is legal, or to play a
position out, it rebuilds one from its view: what the view shows (own hand,
the pile, the melds, red threes, scores, phase) is copied exactly; the cards
it cannot see (the stock and the other hands) are dealt at random from the
cards not visible to it, respecting every hand size and the stock size. Cards
the bot's memory knows to be in a hand (taken with the pile) are put there.
Red threes never go to a hand (they are laid out at once), so they stay in
the stock.

Nothing here reads anything but the view and the memory, so two tables with
the same player view give the same samples for the same random generator.
"""

from __future__ import annotations

import functools
import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from games.engine import Table, find_going_out, from_json, get_rules

from .memory import BotMemory
from .views import hand_number, own_hand

Card = str
# Weight of a card for a seat's hidden hand (1.0 = no preference).
Bias = Callable[[int, Card], float]
# Deals tried for a view in phase "answer" before giving up (see `Sampler.sample`).
ASK_TRIES = 200


class NoConsistentDeal(ValueError):
    """No deal of the hidden cards found that agrees with everything the view shows."""


_TABLE_KEYS = (
    "variant",
    "players",
    "options",
    "dealer",
    "turn",
    "phase",
    "scores",
    "discard",
    "melds",
    "red_threes",
    "melded",
    "asked_by",
    "go_out",
    "concealed_melds",
    "ended",
    "hand_number",
)


def seen_cards(view: dict[str, Any]) -> Counter[Card]:
    """Every card the viewer can see: own hand, the pile, all melds and red threes."""
    seen: Counter[Card] = Counter(own_hand(view))
    seen.update(view["discard"])
    for side in view["melds"]:
        for cards in side.values():
            seen.update(cards)
    for reds in view["red_threes"]:
        seen.update(reds)
    return seen


def unseen_cards(view: dict[str, Any]) -> list[Card]:
    """The cards the viewer cannot see (stock and other hands), in deck order."""
    deck: Counter[Card] = Counter(get_rules(view["variant"]).deck())
    return list((deck - seen_cards(view)).elements())


def known_in_hands(view: dict[str, Any], memory: BotMemory | None) -> list[list[Card]]:
    """Cards the memory places in each other hand, checked against the view."""
    players = view["players"]
    seat = view["seat"]
    known: list[list[Card]] = [[] for _ in range(players)]
    if memory is None or memory.players != players or memory.hand != hand_number(view):
        return known
    pool = Counter(unseen_cards(view))
    for s in range(players):
        if s == seat:
            continue
        for card in memory.known[s]:
            if pool[card] > 0 and len(known[s]) < view["hand_sizes"][s]:
                known[s].append(card)
                pool[card] -= 1
    return known


class Sampler:
    """Deals hidden cards for one view, as many times as asked."""

    def __init__(self, view: dict[str, Any], memory: BotMemory | None = None) -> None:
        if "seat" not in view:
            raise ValueError("a bot needs a seat's view, not a spectator's")
        self.view = view
        self.seat: int = view["seat"]
        self.players: int = view["players"]
        self.rules = get_rules(view["variant"])
        self.hand_sizes: list[int] = list(view["hand_sizes"])
        self.stock_size: int = view["stock_size"]
        self.known = known_in_hands(view, memory)
        pool = Counter(unseen_cards(view))
        for cards in self.known:
            pool.subtract(cards)
        self.pool: list[Card] = list(pool.elements())
        self.others = [s for s in range(self.players) if s != self.seat]
        missing = sum(self.hand_sizes[s] - len(self.known[s]) for s in self.others)
        if missing + self.stock_size != len(self.pool):
            raise ValueError(
                f"the view does not add up: {len(self.pool)} unseen cards for "
                f"{missing} hidden hand cards and a stock of {self.stock_size}"
            )
        data = {k: view[k] for k in _TABLE_KEYS if k in view}
        hands: list[list[Card]] = [list(k) for k in self.known]
        hands[self.seat] = own_hand(view)
        rest = list(self.pool)
        ordinary = [c for c in rest if not self.rules.is_bonus_three(c)]
        for s in self.others:
            need = self.hand_sizes[s] - len(hands[s])
            hands[s] += ordinary[:need]
            ordinary = ordinary[need:]
        data["hands"] = hands
        data["stock"] = ordinary + [c for c in rest if self.rules.is_bonus_three(c)]
        # from_json checks the rebuilt table once; samples are copies with other hidden cards.
        self.base: Table = from_json(data)

    def sample(self, rng: random.Random, bias: Bias | None = None, pairs: float = 0.0) -> Table:
        """A full table; ``pairs`` > 0 deals hidden hands that hold pairs more often
        (people keep pairs to take the pile), ``bias`` weighs cards per seat.

        In phase "answer" the view shows one more fact: the partner asked "may I
        go out?", which the engine allows only when it can go out now (docs/rules.md
        §13). A deal that gives the asker a hand with no way out contradicts the
        view, and a "yes" played on it would bind the asker to the impossible, so
        such deals are dealt again (up to ``ASK_TRIES`` times, else
        `NoConsistentDeal`).
        """
        if self.base.phase != "answer":
            return self._deal(rng, bias, pairs)
        for _ in range(ASK_TRIES):
            t = self._deal(rng, bias, pairs)
            if asker_can_go_out(t):
                return t
        raise NoConsistentDeal("no deal found in which the asking partner can go out")

    def _deal(self, rng: random.Random, bias: Bias | None, pairs: float) -> Table:
        t = self.base.copy()
        ordinary = [c for c in self.pool if not self.rules.is_bonus_three(c)]
        bonus = [c for c in self.pool if self.rules.is_bonus_three(c)]
        rng.shuffle(ordinary)
        for s in self.others:
            need = self.hand_sizes[s] - len(self.known[s])
            if need == 0:
                chosen: list[Card] = []
            elif pairs > 0:
                chosen, ordinary = _clustered_pick(
                    ordinary, need, self.known[s], pairs, s, bias, rng
                )
            elif bias is None:
                chosen, ordinary = ordinary[:need], ordinary[need:]
            else:
                chosen, ordinary = _weighted_pick(ordinary, need, functools.partial(bias, s), rng)
            t.hands[s] = list(self.known[s]) + chosen
        stock = ordinary + bonus
        rng.shuffle(stock)
        t.stock = stock
        return t


def asker_can_go_out(t: Table) -> bool:
    """In phase "answer": could the player who asked go out now, as the ask implies?"""
    if t.phase != "answer" or t.asked_by is None:
        return True
    probe = t.copy()
    probe.turn, probe.phase, probe.asked_by = t.asked_by, "play", None
    return find_going_out(probe) is not None


def _rank(card: Card) -> str:
    return "W" if card == "JK" or card[0] == "2" else card[0]


def _clustered_pick(
    cards: list[Card],
    k: int,
    start: list[Card],
    pairs: float,
    seat: int,
    bias: Bias | None,
    rng: random.Random,
) -> tuple[list[Card], list[Card]]:
    """k cards one at a time; a natural rank the hand holds once is ``1 + pairs`` times as
    likely to come again (hands that keep pairs), weighted further by ``bias``."""
    by_rank: dict[str, list[Card]] = {}
    for card in cards:  # already shuffled: popping the end is a uniform choice within a rank
        by_rank.setdefault(_rank(card), []).append(card)
    held: dict[str, int] = {}
    for card in start:
        held[_rank(card)] = held.get(_rank(card), 0) + 1
    ranks = sorted(by_rank)
    base = {r: (bias(seat, by_rank[r][0]) if bias is not None else 1.0) for r in ranks}
    chosen: list[Card] = []
    for _ in range(k):
        weights = []
        for r in ranks:
            n = len(by_rank[r])
            boost = 1.0 + pairs if held.get(r, 0) == 1 and r not in ("W", "3") else 1.0
            weights.append(n * base[r] * boost)
        pick = rng.random() * sum(weights)
        for r, w in zip(ranks, weights, strict=True):
            pick -= w
            if pick < 0 and by_rank[r]:
                break
        else:
            r = next(r for r in reversed(ranks) if by_rank[r])
        chosen.append(by_rank[r].pop())
        held[r] = held.get(r, 0) + 1
    rest = [c for r in ranks for c in by_rank[r]]
    rng.shuffle(rest)
    return chosen, rest


def _weighted_pick(
    cards: list[Card], k: int, weight: Callable[[Card], float], rng: random.Random
) -> tuple[list[Card], list[Card]]:
    """k cards without replacement, each drawn with probability proportional to its weight."""
    keyed = []
    for index, card in enumerate(cards):
        w = max(weight(card), 1e-6)
        keyed.append((math.log(rng.random() or 1e-300) / w, index))
    keyed.sort(reverse=True)
    chosen = {index for _, index in keyed[:k]}
    picked = [cards[i] for i in sorted(chosen)]
    rest = [c for i, c in enumerate(cards) if i not in chosen]
    return picked, rest


def sample_table(
    view: dict[str, Any],
    memory: BotMemory | None,
    rng: random.Random,
    bias: Bias | None = None,
) -> Table:
    """One Table consistent with ``view`` (and ``memory``), hidden cards dealt at random."""
    return Sampler(view, memory).sample(rng, bias)
