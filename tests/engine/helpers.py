"""Shared helpers for engine tests: configurations, invariants."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engine import Table, from_json, player_view

CONFIGS = [
    ("classic", 4, {}),
    ("classic", 4, {"ask_partner": True, "black_three": "stop"}),
    ("classic", 2, {}),
    ("family", 4, {}),
    ("family", 2, {}),
    ("party", 2, {}),
    ("party", 3, {}),
    ("party", 4, {}),
    ("party", 6, {}),
    ("tiles", 4, {}),
]
CONFIG_IDS = [f"{v}-{p}{'-opts' if o else ''}" for v, p, o in CONFIGS]


def visible_cards(t: Table, seat: int | None) -> Counter[str]:
    """Every card ``seat`` may see: own hand, the pile, all melds and red threes."""
    seen: Counter[str] = Counter(t.discard)
    if seat is not None:
        seen.update(t.hands[seat])
    for side in t.melds:
        for cards in side.values():
            seen.update(cards)
    for reds in t.red_threes:
        seen.update(reds)
    return seen


def cards_in(value: Any) -> Counter[str]:
    """Every card code anywhere in a JSON value (strings that parse as cards)."""
    from games.engine.cards import ALL_CODES

    found: Counter[str] = Counter()
    if isinstance(value, str):
        if value in ALL_CODES:
            found[value] += 1
    elif isinstance(value, list):
        for item in value:
            found += cards_in(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "display":
                continue  # keys are the view's own cards, values are their names
            found += cards_in(item)
    return found


def check_invariants(t: Table) -> None:
    deck = Counter(t.rules.deck())
    assert t.all_cards() == deck, "every card of the deck is accounted for"
    data = t.to_json()
    assert from_json(data).to_json() == data, "Table JSON round trip"
    for seat in [*range(t.players), None]:
        view = player_view(t, seat)
        assert "stock" not in view and "hands" not in view
        assert cards_in(view) == visible_cards(t, seat), f"view of seat {seat} shows hidden cards"
        if seat is not None:
            assert Counter(view["hand"]) == Counter(t.hands[seat])
            assert view["hand_sizes"] == [len(h) for h in t.hands]
