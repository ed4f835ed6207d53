"""Reading a player view (docs/formats.md#player-view-json-what-one-seat-may-see).

`hand` is the viewer's own cards; the engine extension `hand_number`
(docs/engine-notes.md) is the number of the hand in the match, absent in hand 1.
"""

from __future__ import annotations

from typing import Any

Card = str


def own_hand(view: dict[str, Any]) -> list[Card]:
    cards = view.get("hand")
    if not isinstance(cards, list):
        raise ValueError("a bot needs a seat's player view, with the seat's own hand")
    return list(cards)


def hand_number(view: dict[str, Any]) -> int:
    number = view.get("hand_number", 1)
    return number if isinstance(number, int) and not isinstance(number, bool) else 1
