"""The verifiable shuffle (docs/fair-shuffle.md).

Run ``python -m games.engine.shuffle SEED --variant V`` to print the shuffled
deck, top card first, on one line.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import re
import secrets
import sys
from collections.abc import Iterator, Sequence

from .cards import Card
from .errors import EngineError
from .variants import VARIANTS, get_rules

_SPACE = 2**256
_BLOCK = 64  # SHA-256's block size: HMAC pads its key to it
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
_SEED = re.compile(r"[0-9a-f]{64}")


def parse_seed(seed_hex: str) -> bytes:
    """A seed is 32 bytes written as 64 lowercase hex characters."""
    if not isinstance(seed_hex, str) or not _SEED.fullmatch(seed_hex):
        raise ValueError("a seed is 64 lowercase hex characters (32 bytes)")
    return bytes.fromhex(seed_hex)


def new_seed() -> str:
    """A fresh seed from the operating system's CSPRNG."""
    return secrets.token_bytes(32).hex()


def commitment(seed_hex: str) -> str:
    return hashlib.sha256(parse_seed(seed_hex)).hexdigest()


def _blocks(key: bytes) -> Iterator[int]:
    """HMAC-SHA256(key, counter) for counter 0, 1, 2, ... as big-endian integers.

    The HMAC of RFC 2104 written out with its two keyed SHA-256 states computed once and
    copied for each block: the same digests as ``hmac.new(key, msg, sha256)`` (checked
    below on the first block), a quarter of the time, which matters to every deal.
    """
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = hashlib.sha256(key.translate(_IPAD))
    outer = hashlib.sha256(key.translate(_OPAD))
    counter = 0
    while True:
        message = counter.to_bytes(8, "big")
        step = inner.copy()
        step.update(message)
        final = outer.copy()
        final.update(step.digest())
        digest = final.digest()
        if counter == 0 and digest != hmac.new(key, message, hashlib.sha256).digest():
            raise AssertionError("the shuffle's HMAC differs from hmac.new")
        counter += 1
        yield int.from_bytes(digest, "big")


def shuffle(seed_hex: str, deck: Sequence[Card]) -> list[Card]:
    """Fisher-Yates driven by HMAC-SHA256(seed, counter); deck[0] is the top of the stock."""
    stream = _blocks(parse_seed(seed_hex))
    cards = list(deck)
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = _SPACE - (_SPACE % bound)
        while True:
            x = next(stream)
            if x < limit:
                break
        j = x % bound
        cards[i], cards[j] = cards[j], cards[i]
    return cards


shuffle_deck = shuffle  # the name the package exports (`shuffle` is this module)


def shuffled_deck(seed_hex: str, variant: str) -> list[Card]:
    return shuffle(seed_hex, get_rules(variant).deck())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.engine.shuffle",
        description="Print the deck shuffled from SEED (docs/fair-shuffle.md), top card first.",
    )
    parser.add_argument("seed", help="64 hex characters")
    parser.add_argument("--variant", default="classic", help=f"one of {', '.join(VARIANTS)}")
    parser.add_argument("--commitment", action="store_true", help="print sha256(seed) as well")
    args = parser.parse_args(argv)
    try:
        deck = shuffled_deck(args.seed.lower(), args.variant)
    except (ValueError, EngineError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.commitment:
        print(commitment(args.seed.lower()))
    print(" ".join(deck))
    return 0


if __name__ == "__main__":
    sys.exit(main())
