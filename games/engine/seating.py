"""Seating by the draw (docs/rules.md#players-sides-and-seats)."""

from __future__ import annotations

from .cards import JOKER, RANKS, SUITS, Card, canonical_deck
from .shuffle import shuffle

# Draw ranking: A high, K, Q, J, 10 ... 3, 2 low; ties by suit S > H > D > C.
_RANK_ORDER = "23456789TJQKA"


def draw_strength(card: Card) -> tuple[int, int]:
    return (_RANK_ORDER.index(card[0]), len(SUITS) - SUITS.index(card[1]))


def draw_cards(seed_hex: str, players: int) -> list[Card]:
    """The card each player (in invitation order) draws from a deck shuffled by ``seed_hex``.

    A joker, or a card identical to one already drawn, is redrawn (docs/rules.md, seating).
    """
    deck = shuffle(seed_hex, canonical_deck(2, 4))
    drawn: list[Card] = []
    for card in deck:
        if card != JOKER and card not in drawn:
            drawn.append(card)
            if len(drawn) == players:
                return drawn
    raise AssertionError("a 108-card deck always has enough distinct cards")


def seats_by_draw(drawn: list[Card], sides: int) -> list[int]:
    """Seat for each player given their drawn cards.

    The highest card takes seat 0, the second highest its partner (seat
    ``sides``) where there are partnerships, and the others fill the remaining
    seats in order of their draws, higher first.
    """
    players = len(drawn)
    order = sorted(range(players), key=lambda p: draw_strength(drawn[p]), reverse=True)
    seats = [0] * players
    free = list(range(players))
    first = order[0]
    seats[first] = 0
    free.remove(0)
    rest = order[1:]
    if players > sides:
        seats[rest[0]] = sides
        free.remove(sides)
        rest = rest[1:]
    for player, seat in zip(rest, free, strict=True):
        seats[player] = seat
    return seats


__all__ = ["RANKS", "draw_cards", "draw_strength", "seats_by_draw"]
