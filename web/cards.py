"""Cards and tiles as the web pages show them: a label, a spoken name and a style.

Suits are told apart without colour: each card shows its suit symbol (♠ ♥ ♦ ♣, four
distinct shapes) and the suit's letter as typed in moves and emails (``7h``). Tiles show
their number and colour word ("7 red"), as `player_view`'s ``display`` names them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import get_language

from games import display as dsp
from games.engine.cards import JOKER, is_wild, sort_key

SUITS = {
    "S": ("♠", "spades"),
    "H": ("♥", "hearts"),
    "D": ("♦", "diamonds"),
    "C": ("♣", "clubs"),
}
TILE_NUMBERS = dsp.TILE_NUMBERS
TILE_COLOURS = dsp.TILE_COLOURS["en"]  # CSS classes (tile-red ...), not words


def _lang() -> str:
    return dsp.language_code(get_language())


def card(code: str, variant: str = "classic", display: Mapping[str, str] | None = None) -> dict:
    """What a template needs to draw one card or tile."""
    wild = is_wild(code)
    if variant == "tiles":
        name = dsp.card_label(code, "tiles", _lang(), display)
        if code == JOKER:
            return {
                "code": code,
                "rank": "★",
                "suit": "",
                "letter": "",
                "name": name,
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
            "name": dsp.card_name(code, variant, _lang()),
            "css": "card joker",
            "wild": True,
        }
    symbol, _ = SUITS[code[1]]
    rank = code[0]
    return {
        "code": code,
        "rank": dsp.RANK_LETTERS[_lang()].get(rank, rank),
        "suit": symbol,
        "letter": dsp.TYPED_SUITS[_lang()][code[1]],
        "name": dsp.card_name(code, variant, _lang()),
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
        key = dsp.group_key(code)
        if not groups or groups[-1]["key"] != key:
            groups.append({"key": key, "label": group_label(key, variant), "cards": []})
        seen[code] = seen.get(code, 0) + 1
        shown = card(code, variant, display)
        shown["id"] = f"c-{code}-{seen[code]}"
        groups[-1]["cards"].append(shown)
    return groups


def group_label(key: str, variant: str = "classic") -> str:
    return dsp.group_label(key, variant, _lang())


def meld_label(key: str, variant: str = "classic") -> str:
    return dsp.meld_label(key, variant, _lang())


def meld_order(keys: Iterable[str]) -> list[str]:
    return dsp.meld_order(keys)
