"""Cards and tiles as the web pages show them: a label, a spoken name and a style.

Suits are told apart without colour: each card shows its suit symbol (♠ ♥ ♦ ♣, four
distinct shapes) and the suit's letter as typed in moves and emails (``7h``). Tiles show
their number and colour word ("7 red"), as `player_view`'s ``display`` names them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from games.engine.cards import JOKER, is_wild, sort_key
from games.engine.view import tile_name

SUITS = {
    "S": ("♠", "spades"),
    "H": ("♥", "hearts"),
    "D": ("♦", "diamonds"),
    "C": ("♣", "clubs"),
}
RANK_LABELS = {"T": "10"}
RANK_NAMES = {"A": "Ace", "K": "King", "Q": "Queen", "J": "Jack", "T": "10"}
TILE_NUMBERS = {"A": "1", "T": "10", "J": "11", "Q": "12", "K": "13"}
TILE_COLOURS = {"H": "red", "D": "yellow", "S": "black", "C": "blue"}

# Meld keys (docs/formats.md#meld-keys) as headings.
_KEY_NAMES = {"W": "Wild cards", "3": "Black threes", "2": "Twos"}
_RANK_PLURALS = {
    "A": "Aces",
    "K": "Kings",
    "Q": "Queens",
    "J": "Jacks",
    "T": "Tens",
    "9": "Nines",
    "8": "Eights",
    "7": "Sevens",
    "6": "Sixes",
    "5": "Fives",
    "4": "Fours",
}
# Meld keys in the order docs/formats.md lists them; other keys last.
_KEY_ORDER = "AKQJT98765432W"


def card(code: str, variant: str = "classic", display: Mapping[str, str] | None = None) -> dict:
    """What a template needs to draw one card or tile."""
    wild = is_wild(code)
    if variant == "tiles":
        name = (display or {}).get(code) or tile_name(code)
        if code == JOKER:
            return {
                "code": code,
                "rank": "★",
                "suit": "",
                "letter": "",
                "name": "joker",
                "css": "tile joker",
                "wild": True,
            }
        colour = TILE_COLOURS[code[1]]
        return {
            "code": code,
            "rank": TILE_NUMBERS.get(code[0], code[0]),
            "suit": colour,
            "letter": "",
            "name": name,
            "css": f"tile tile-{colour}",
            "wild": wild,
        }
    if code == JOKER:
        return {
            "code": code,
            "rank": "JK",
            "suit": "★",
            "letter": "",
            "name": "Joker",
            "css": "card joker",
            "wild": True,
        }
    symbol, suit_name = SUITS[code[1]]
    rank = code[0]
    return {
        "code": code,
        "rank": RANK_LABELS.get(rank, rank),
        "suit": symbol,
        "letter": code[1].lower(),
        "name": f"{RANK_NAMES.get(rank, rank)} of {suit_name}",
        "css": f"card suit-{code[1].lower()}",
        "wild": wild,
    }


def cards(
    codes: Iterable[str], variant: str = "classic", display: Mapping[str, str] | None = None
) -> list[dict]:
    return [card(c, variant, display) for c in codes]


def sorted_cards(
    codes: Iterable[str], variant: str = "classic", display: Mapping[str, str] | None = None
) -> list[dict]:
    return cards(sorted(codes, key=sort_key), variant, display)


def short_label(
    code: str, variant: str = "classic", display: Mapping[str, str] | None = None
) -> str:
    """One card as text: ``7♥``, ``10♠``, ``JK``; tiles ``7 red``."""
    shown = card(code, variant, display)
    if variant == "tiles":
        return str(shown["name"])
    return f"{shown['rank']}{shown['suit']}" if code != JOKER else "JK"


def hand_groups(
    hand: Iterable[str], variant: str = "classic", display: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """The hand sorted high to low and grouped by rank; wild cards form the last group.

    Each card carries an ``id`` that stays the same for the same card while the hand changes
    (code and occurrence), so a refreshed page can give focus and selection back.
    """
    groups: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for code in sorted(hand, key=sort_key):
        key = "wild" if is_wild(code) else code[0]
        if not groups or groups[-1]["key"] != key:
            groups.append({"key": key, "label": group_label(key, variant), "cards": []})
        seen[code] = seen.get(code, 0) + 1
        shown = card(code, variant, display)
        shown["id"] = f"c-{code}-{seen[code]}"
        groups[-1]["cards"].append(shown)
    return groups


def group_label(key: str, variant: str = "classic") -> str:
    if key == "wild":
        return "Wild cards"
    if key == "3":
        return "Threes"
    if variant == "tiles":
        return f"{TILE_NUMBERS.get(key, key)}s"
    return _RANK_PLURALS.get(key, f"{key}s")


def meld_label(key: str, variant: str = "classic") -> str:
    if key in _KEY_NAMES:
        return _KEY_NAMES[key]
    return group_label(key, variant)


def meld_order(keys: Iterable[str]) -> list[str]:
    return sorted(keys, key=lambda k: _KEY_ORDER.find(k) if k in _KEY_ORDER else 99)
