"""The engine's events and phases as types (docs/formats.md#events).

`apply` returns its events as plain JSON dicts (they go into the move log as they are); these
TypedDicts say which keys each type has, so that a check of `event["type"]` narrows the event
for mypy. `cards_drawn` is the one way to read what a move drew.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NotRequired, TypedDict

Phase = Literal["draw", "play", "discard", "answer", "over"]
PHASES: tuple[Phase, ...] = ("draw", "play", "discard", "answer", "over")


class DrawEvent(TypedDict):
    type: Literal["draw"]
    seat: int
    private: int  # the one seat that sees the cards (event_for turns them into a count)
    cards: NotRequired[list[str]]
    count: NotRequired[int]  # instead of cards, as another seat sees it


class RedThreeEvent(TypedDict):
    type: Literal["red_three"]
    seat: int
    card: str


class PickupEvent(TypedDict):
    type: Literal["pickup"]
    seat: int
    cards: list[str]  # every card of the pile, bottom first, top last


class MeldEvent(TypedDict):
    type: Literal["meld"]
    seat: int
    melds: list[list[str]]
    add: dict[str, list[str]]


class DiscardEvent(TypedDict):
    type: Literal["discard"]
    seat: int
    card: str


class AskPartnerEvent(TypedDict):
    type: Literal["ask_partner"]
    seat: int


class AnswerEvent(TypedDict):
    type: Literal["answer"]
    seat: int
    yes: bool


class StockOutEvent(TypedDict):
    type: Literal["stock_out"]
    seat: int


class HandOverEvent(TypedDict):
    type: Literal["hand_over"]
    reason: str
    went_out: int | None
    concealed: bool


EngineEvent = (
    DrawEvent
    | RedThreeEvent
    | PickupEvent
    | MeldEvent
    | DiscardEvent
    | AskPartnerEvent
    | AnswerEvent
    | StockOutEvent
    | HandOverEvent
)
EVENT_TYPES = frozenset(
    {
        "draw",
        "red_three",
        "pickup",
        "meld",
        "discard",
        "ask_partner",
        "answer",
        "stock_out",
        "hand_over",
    }
)


def cards_drawn(events: Iterable[Mapping[str, Any]], seat: int | None = None) -> list[str]:
    """The cards drawn from the stock in ``events`` (by ``seat``, when given), in order; a
    drawn card another seat only sees as a count is not among them."""
    return [
        card
        for event in events
        if event.get("type") == "draw" and (seat is None or event.get("seat") == seat)
        for card in event.get("cards") or ()
    ]


def cards_taken(events: Iterable[Mapping[str, Any]], seat: int | None = None) -> list[str]:
    """The discard pile's cards taken in ``events`` (by ``seat``, when given), bottom first:
    everyone at the table sees them."""
    return [
        card
        for event in events
        if event.get("type") == "pickup" and (seat is None or event.get("seat") == seat)
        for card in event.get("cards") or ()
    ]
