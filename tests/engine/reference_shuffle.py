"""Independent reference implementation of the verifiable shuffle.

Written directly from ``docs/fair-shuffle.md`` (seed, commitment,
HMAC-SHA256 counter stream, rejection sampling, Fisher-Yates from the end)
and the deck sizes in ``docs/rules.md`` ("Cards and their values") and ``docs/variants.md``.

Standard library only; it deliberately imports nothing from ``games`` so that
it can serve as an independent check of the engine.

Run as a script (``python reference_shuffle.py SEED --variant V``) it behaves
like ``python -m games.engine.shuffle``; the tests use that to check
themselves against this module.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import re
import sys

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKER: str = "JK"

# variant -> (number of 52-card packs, number of jokers)
DECKS: dict[str, tuple[int, int]] = {
    "classic": (2, 4),  # 108 cards (docs/rules.md#cards-and-their-values)
    "family": (2, 4),  # 108 cards, as classic
    "party": (2, 6),  # 110 cards: two packs and 6 jokers
    "tiles": (2, 2),  # 106 tiles: two copies of 1-13 in four colours, 2 jokers
}
VARIANTS: tuple[str, ...] = tuple(DECKS)

_SEED_RE = re.compile(r"[0-9a-f]{64}")
_TWO_256 = 1 << 256


def canonical_deck(variant: str) -> list[str]:
    """The unshuffled deck: per pack, suits S H D C, each A..K; then all jokers."""
    try:
        packs, jokers = DECKS[variant]
    except KeyError:
        raise ValueError(f"unknown variant: {variant!r}") from None
    deck = [rank + suit for _ in range(packs) for suit in SUITS for rank in RANKS]
    deck.extend([JOKER] * jokers)
    return deck


def seed_bytes(seed_hex: str) -> bytes:
    """Parse a seed written as 64 lowercase hex characters (32 bytes)."""
    if not isinstance(seed_hex, str) or not _SEED_RE.fullmatch(seed_hex):
        raise ValueError("seed must be 64 lowercase hex characters")
    return bytes.fromhex(seed_hex)


def commitment(seed_hex: str) -> str:
    """sha256 of the 32 seed bytes, as 64 lowercase hex characters."""
    return hashlib.sha256(seed_bytes(seed_hex)).hexdigest()


class _Stream:
    """HMAC-SHA256(key=seed, msg=counter as 8-byte big-endian), counter from 0."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._counter = 0

    def next_block(self) -> bytes:
        block = hmac.new(self._key, self._counter.to_bytes(8, "big"), hashlib.sha256).digest()
        self._counter += 1
        return block

    def uniform(self, bound: int) -> int:
        """Integer in [0, bound) by rejection sampling on 256-bit blocks."""
        if bound < 1:
            raise ValueError("bound must be positive")
        limit = _TWO_256 - (_TWO_256 % bound)
        while True:
            x = int.from_bytes(self.next_block(), "big")
            if x < limit:
                return x % bound


def shuffle(seed_hex: str, variant: str) -> list[str]:
    """The shuffled deck for this seed and variant; element 0 is the top of the stock."""
    deck = canonical_deck(variant)
    stream = _Stream(seed_bytes(seed_hex))
    for i in range(len(deck) - 1, 0, -1):
        j = stream.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Reference verifiable shuffle")
    parser.add_argument("seed")
    parser.add_argument("--variant", default="classic")
    args = parser.parse_args(argv)
    try:
        deck = shuffle(args.seed, args.variant)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(" ".join(deck))
    return 0


if __name__ == "__main__":
    sys.exit(main())
