"""Player views (docs/formats.md#player-view-json-what-one-seat-may-see): what one seat may see."""

from __future__ import annotations

from typing import Any

from .cards import JOKER, Card
from .play import Event, minimum, pile_frozen
from .table import Table

_TILE_COLOURS = {"H": "red", "D": "yellow", "S": "black", "C": "blue"}
_TILE_NUMBERS = {"A": "1", "T": "10", "J": "11", "Q": "12", "K": "13"}


def tile_name(card: Card) -> str:
    """A tile as people call it (docs/variants.md#tiles): "7 red", "1 blue", "joker"."""
    if card == JOKER:
        return "joker"
    number = _TILE_NUMBERS.get(card[0], card[0])
    return f"{number} {_TILE_COLOURS[card[1]]}"


def player_view(table: Table, seat: int | None) -> dict[str, Any]:
    """The table as ``seat`` sees it; ``None`` is a spectator (no hand at all)."""
    data = table.to_json()
    hands = data.pop("hands")
    data.pop("stock")
    view: dict[str, Any] = {}
    if seat is not None:
        view["seat"] = seat
        view["hand"] = hands[seat]
    view.update(data)
    view["hand_sizes"] = [len(h) for h in hands]
    view["stock_size"] = len(table.stock)
    view["melded"] = list(table.melded)
    side = table.side_of(seat if seat is not None else table.turn)
    view["frozen"] = pile_frozen(table, side)
    view["minimum"] = minimum(table, side)
    if table.rules.name == "tiles":
        shown: set[Card] = set(view.get("hand", [])) | set(table.discard)
        for melds in table.melds:
            for cards in melds.values():
                shown.update(cards)
        for reds in table.red_threes:
            shown.update(reds)
        view["display"] = {c: tile_name(c) for c in sorted(shown)}
    return view


def event_for(event: Event, seat: int | None) -> Event:
    """An engine event as ``seat`` may see it: other players' drawn cards become a count."""
    private = event.get("private")
    out = {k: v for k, v in event.items() if k != "private"}
    if private is not None and private != seat and "cards" in out:
        out["count"] = len(out.pop("cards"))
    return out
