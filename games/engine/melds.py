"""Meld shapes, limits and scores (docs/rules.md: Melds, Going out; docs/variants.md)."""

from __future__ import annotations

from collections.abc import Sequence

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

CANASTA_SIZE = 7
MELD_KEYS = NATURAL_RANKS + TWOS_KEY + JOKER_MELD_KEY + BLACK_THREE_KEY


def _bad(message: str) -> IllegalActionError:
    return IllegalActionError("invalid_meld", message)


def parse_meld_key(text: object) -> str:
    """A meld key as written in `add` or Table JSON: a rank, "2", "W" or "3"."""
    if not isinstance(text, str):
        raise IllegalActionError("invalid_action", f"meld key must be a string, got {text!r}")
    key = text.strip().upper()
    if key == "10":
        key = "T"
    if len(key) != 1 or key not in MELD_KEYS:
        raise IllegalActionError("invalid_action", f"unknown meld key {text!r}")
    return key


def meld_key(rules: RuleSet, cards: Sequence[Card]) -> str:
    """Which meld these cards would start; raises invalid_meld if they fit none."""
    shown = " ".join(cards)  # for the messages only: ``cards`` are never long
    if not RED_THREES.isdisjoint(cards):
        raise _bad(f"red threes are never melded: {shown}")
    if not BLACK_THREES.isdisjoint(cards):
        if not rules.black_three_meld_sizes:
            raise _bad(f"threes never form melds in {rules.name}: {shown}")
        if not all(is_black_three(c) for c in cards):
            raise _bad(f"black threes meld only with black threes, no wild cards: {shown}")
        return BLACK_THREE_KEY
    naturals = {c[0] for c in cards if c != JOKER and c[0] != "2"}
    if not naturals:
        if rules.twos_meld and sum(is_two(c) for c in cards) > 0:
            return TWOS_KEY
        if rules.joker_meld:
            return JOKER_MELD_KEY
        raise _bad(f"a meld needs natural cards: {shown}")
    if len(naturals) > 1:
        raise _bad(f"mixed ranks in one meld: {shown}")
    return naturals.pop()


def _check_black_threes(rules: RuleSet, cards: Sequence[Card], shown: str, going_out: bool) -> None:
    if not rules.black_three_meld_sizes or not all(is_black_three(c) for c in cards):
        raise _bad(f"not a black-three meld: {shown}")
    if len(cards) not in rules.black_three_meld_sizes:
        sizes = " or ".join(map(str, rules.black_three_meld_sizes))
        raise _bad(f"black threes meld only as {sizes} black threes: {shown}")
    if not going_out:
        raise _bad(f"black threes may be melded only when going out: {shown}")


def _check_joker_meld(rules: RuleSet, cards: Sequence[Card], shown: str) -> None:
    if not rules.joker_meld or not all(is_wild(c) for c in cards):
        raise _bad(f"a joker meld holds only wild cards: {shown}")


def _check_twos_meld(rules: RuleSet, cards: Sequence[Card], shown: str) -> None:
    twos = sum(is_two(c) for c in cards)
    jokers = sum(c == JOKER for c in cards)
    if not rules.twos_meld or twos + jokers != len(cards):
        raise _bad(f"a twos meld holds only 2s and jokers: {shown}")
    if jokers > 2 or jokers >= twos:
        raise _bad(f"a twos meld has at most 2 jokers, always fewer than 2s: {shown}")


def _check_natural_meld(rules: RuleSet, key: str, cards: Sequence[Card], shown: str) -> None:
    if key not in NATURAL_RANKS:
        raise _bad(f"{key} is not a meld rank")
    naturals = 0
    for c in cards:  # one pass: every lay checks its melds here
        if c == JOKER or c[0] == "2":
            continue
        if c[0] != key:
            raise _bad(f"cards of another rank in the {key} meld: {shown}")
        naturals += 1
    wilds = len(cards) - naturals
    if naturals < 2:
        raise _bad(f"a meld needs at least 2 natural cards: {shown}")
    if wilds > rules.max_wilds(naturals):
        raise _bad(f"too many wild cards for {naturals} natural cards: {shown}")


def check_meld(rules: RuleSet, key: str, cards: Sequence[Card], *, going_out: bool) -> None:
    """Raise invalid_meld unless ``cards`` form a legal meld under ``key``."""
    shown = " ".join(cards)  # for the messages only: ``cards`` are never long
    if len(cards) < 3:
        raise _bad(f"a meld needs at least 3 cards: {shown}")
    if key == BLACK_THREE_KEY:
        _check_black_threes(rules, cards, shown, going_out)
    elif key == JOKER_MELD_KEY:
        _check_joker_meld(rules, cards, shown)
    elif key == TWOS_KEY:
        _check_twos_meld(rules, cards, shown)
    else:
        _check_natural_meld(rules, key, cards, shown)


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
