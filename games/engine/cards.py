"""Card codes (docs/formats.md#cards) and the canonical deck (docs/fair-shuffle.md).

A card is its canonical code string: ``"7H"``, ``"TS"``, ``"JK"``. Strings are
small, hashable, immutable and print as themselves, so no wrapper class is
needed; this module is the one place that knows their grammar.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Final

from .errors import IllegalActionError

Card = str

# Final: the compiled build (mypyc) inlines these instead of looking them up by name.
RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
JOKER: Final[Card] = "JK"
# Meld keys besides natural ranks (docs/formats.md#meld-keys).
TWOS_KEY: Final = "2"
JOKER_MELD_KEY: Final = "W"
BLACK_THREE_KEY: Final = "3"
# Natural meld ranks in the order docs/formats.md lists them (A K Q J T 9 ... 4).
NATURAL_RANKS: Final = "AKQJT98765 4".replace(" ", "")
SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}

RED_THREES: Final[frozenset[Card]] = frozenset({"3H", "3D"})
BLACK_THREES: Final[frozenset[Card]] = frozenset({"3S", "3C"})
ALL_CODES: Final[frozenset[Card]] = frozenset([r + s for s in SUITS for r in RANKS] + [JOKER])
WILD_CARDS: Final[frozenset[Card]] = frozenset(["2" + s for s in SUITS] + [JOKER])  # see is_wild


def parse_card(text: object) -> Card:
    """Read one card code: case-insensitive, ``10`` for ``T`` (docs/formats.md)."""
    if type(text) is str and text in ALL_CODES:  # canonical already, as engine-built actions are
        return text
    if not isinstance(text, str):
        raise IllegalActionError("card_not_string", text=text)
    code = text.strip().upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    if code and code[-1] in "♠♥♦♣":
        code = code[:-1] + SUIT_SYMBOLS[code[-1]]
    if code not in ALL_CODES:
        raise IllegalActionError("unknown_card", text=text)
    return code


def parse_cards(value: object, *, what: str = "cards") -> list[Card]:
    if not isinstance(value, list):
        raise IllegalActionError("cards_not_list", what=what)
    try:
        canonical = ALL_CODES.issuperset(value)  # canonical already: nothing to rewrite
    except TypeError:  # an unhashable item: parse_card says what is wrong
        canonical = False
    if canonical:
        return list(value)
    return [parse_card(item) for item in value]


def rank(card: Card) -> str:
    """The rank character; ``"JK"`` for a joker."""
    return "JK" if card == JOKER else card[0]


def is_joker(card: Card) -> bool:
    return card == JOKER


def is_two(card: Card) -> bool:
    return card != JOKER and card[0] == "2"


def is_wild(card: Card) -> bool:
    """Jokers and 2s are wild in every variant (docs/rules.md, docs/variants.md)."""
    return card == JOKER or card[0] == "2"


def count_naturals(cards: list[Card]) -> int:
    """The cards that are not wild."""
    naturals = 0
    for card in cards:  # a loop, not sum(map(...)): compiled, it stays native code
        if card != JOKER and card[0] != "2":
            naturals += 1
    return naturals


def is_three(card: Card) -> bool:
    return card != JOKER and card[0] == "3"


def is_red_three(card: Card) -> bool:
    return card in RED_THREES


def is_black_three(card: Card) -> bool:
    return card in BLACK_THREES


def canonical_deck(packs: int, jokers: int) -> list[Card]:
    """Unshuffled deck (docs/fair-shuffle.md): per pack suits S H D C, each A 2 ... K; then jokers."""
    deck = [r + s for _ in range(packs) for s in SUITS for r in RANKS]
    return deck + [JOKER] * jokers


def count(cards: Iterable[Card]) -> Counter[Card]:
    return Counter(cards)


def missing_cards(hand: Iterable[Card], cards: Iterable[Card]) -> list[Card]:
    """Cards of ``cards`` that ``hand`` does not hold (often enough)."""
    rest = list(hand)
    missing: list[Card] = []
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            missing.append(card)
    return sorted(missing)


# Sort order for hands shown to people: by rank high to low, wilds last.
_DISPLAY_ORDER = {r: i for i, r in enumerate("AKQJT98765433" + "2")}


def sort_key(card: Card) -> tuple[int, int]:
    if card == JOKER:
        return (99, 0)
    return (_DISPLAY_ORDER.get(card[0], 50), SUITS.index(card[1]))


def sorted_cards(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=sort_key)
