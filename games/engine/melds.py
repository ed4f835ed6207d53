"""Meld shapes, limits and scores (docs/rules.md: Melds, Going out; docs/variants.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .cards import (
    BLACK_THREE_KEY,
    BLACK_THREES,
    JOKER,
    JOKER_MELD_KEY,
    NATURAL_RANKS,
    RED_THREES,
    TWOS_KEY,
    Card,
    is_black_three,
    is_two,
    is_wild,
)
from .errors import IllegalActionError
from .rules import RuleSet

CANASTA_SIZE: Final = 7
MELD_KEYS: Final = NATURAL_RANKS + TWOS_KEY + JOKER_MELD_KEY + BLACK_THREE_KEY


def parse_meld_key(text: object) -> str:
    """A meld key as written in `add` or Table JSON: a rank, "2", "W" or "3"."""
    if type(text) is str and len(text) == 1 and text in MELD_KEYS:
        return text  # canonical already, as engine-built actions are
    if not isinstance(text, str):
        raise IllegalActionError("meld_key_not_string", text=text)
    key = text.strip().upper()
    if key == "10":
        key = "T"
    if len(key) != 1 or key not in MELD_KEYS:
        raise IllegalActionError("unknown_meld_key", text=text)
    return key


def meld_key(rules: RuleSet, cards: Sequence[Card]) -> str:
    """Which meld these cards would start; raises invalid_meld if they fit none."""
    if not RED_THREES.isdisjoint(cards):
        raise IllegalActionError("red_threes_melded", cards=list(cards))
    if not BLACK_THREES.isdisjoint(cards):
        if not rules.black_three_meld_sizes:
            raise IllegalActionError("threes_never_meld", variant=rules.name, cards=list(cards))
        if not all(is_black_three(c) for c in cards):
            raise IllegalActionError("black_threes_only", cards=list(cards))
        return BLACK_THREE_KEY
    naturals = {c[0] for c in cards if c != JOKER and c[0] != "2"}
    if not naturals:
        if rules.twos_meld and sum(is_two(c) for c in cards) > 0:
            return TWOS_KEY
        if rules.joker_meld:
            return JOKER_MELD_KEY
        raise IllegalActionError("no_natural_cards", cards=list(cards))
    if len(naturals) > 1:
        raise IllegalActionError("mixed_ranks", cards=list(cards))
    return naturals.pop()


def _check_black_threes(rules: RuleSet, cards: Sequence[Card], going_out: bool) -> None:
    if not rules.black_three_meld_sizes or not all(is_black_three(c) for c in cards):
        raise IllegalActionError("not_black_threes", cards=list(cards))
    if len(cards) not in rules.black_three_meld_sizes:
        sizes = list(rules.black_three_meld_sizes)
        raise IllegalActionError("black_three_sizes", sizes=sizes, cards=list(cards))
    if not going_out:
        raise IllegalActionError("black_threes_not_going_out", cards=list(cards))


def _check_joker_meld(rules: RuleSet, cards: Sequence[Card]) -> None:
    if not rules.joker_meld or not all(is_wild(c) for c in cards):
        raise IllegalActionError("joker_meld_wilds_only", cards=list(cards))


def _check_twos_meld(rules: RuleSet, cards: Sequence[Card]) -> None:
    twos = sum(is_two(c) for c in cards)
    jokers = sum(c == JOKER for c in cards)
    if not rules.twos_meld or twos + jokers != len(cards):
        raise IllegalActionError("twos_meld_only", cards=list(cards))
    if jokers > 2 or jokers >= twos:
        raise IllegalActionError("twos_meld_jokers", cards=list(cards))


def _check_natural_meld(rules: RuleSet, key: str, cards: Sequence[Card]) -> None:
    if key not in NATURAL_RANKS:
        raise IllegalActionError("not_a_meld_rank", rank=key)
    naturals = 0
    for c in cards:  # one pass: every lay checks its melds here
        if c == JOKER or c[0] == "2":
            continue
        if c[0] != key:
            raise IllegalActionError("other_rank_in_meld", rank=key, cards=list(cards))
        naturals += 1
    wilds = len(cards) - naturals
    if naturals < 2:
        raise IllegalActionError("too_few_naturals", cards=list(cards))
    if wilds > rules.max_wilds(naturals):
        raise IllegalActionError("too_many_wilds", naturals=naturals, cards=list(cards))


def check_meld(rules: RuleSet, key: str, cards: Sequence[Card], *, going_out: bool) -> None:
    """Raise invalid_meld unless ``cards`` form a legal meld under ``key``."""
    if len(cards) < 3:
        raise IllegalActionError("too_few_cards", cards=list(cards))
    if key == BLACK_THREE_KEY:
        _check_black_threes(rules, cards, going_out)
    elif key == JOKER_MELD_KEY:
        _check_joker_meld(rules, cards)
    elif key == TWOS_KEY:
        _check_twos_meld(rules, cards)
    else:
        _check_natural_meld(rules, key, cards)


def is_canasta(cards: Sequence[Card]) -> bool:
    return len(cards) >= CANASTA_SIZE


def canasta_kind(key: str, cards: Sequence[Card]) -> str | None:
    """'natural', 'mixed', 'joker', 'twos_clean', 'twos_dirty', or None if not a canasta."""
    if not is_canasta(cards):
        return None
    if key == JOKER_MELD_KEY:
        return "joker"
    if key == TWOS_KEY:
        return "twos_dirty" if JOKER in cards else "twos_clean"
    return "mixed" if any(is_wild(c) for c in cards) else "natural"


def canasta_bonus(rules: RuleSet, key: str, cards: Sequence[Card]) -> int:
    kind = canasta_kind(key, cards)
    return {
        None: 0,
        "natural": rules.natural_canasta,
        "mixed": rules.mixed_canasta,
        "joker": rules.joker_canasta,
        "twos_clean": rules.twos_canasta_clean,
        "twos_dirty": rules.twos_canasta_dirty,
    }[kind]


def cards_value(rules: RuleSet, cards: Sequence[Card]) -> int:
    return sum(rules.card_value(c) for c in cards)
