"""The events of the move log as types: the engine's (games/engine/events.py) and those the
services add (a deal, a hand's result, a resignation, a timeout, the end of the match).

A Move's `events` are JSON; `game_events` reads them as the `GameEvent` union, so a check of
`event["type"]` narrows each event for mypy, and a type nobody knows fails loudly instead of
being skipped by a `.get("type") == ...` that matches nothing. Code that reads raw JSON (an
event, an action of the log, a step of a batch) asks `is_event` / `is_action`, whose `kind`
is a Literal: a misspelt type is a mypy error, not a check that never matches. Outside the
engine nothing compares a bare `.get("type")` string (tests/games/test_event_types.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypedDict, cast

from games.engine.events import EVENT_TYPES, EngineEvent


class DealEvent(TypedDict):
    type: Literal["deal"]
    hand: int
    dealer: int
    commitment: str


class HandResultEvent(TypedDict):
    type: Literal["hand_result"]
    hand: int
    reason: str
    seed: str  # revealed once the hand is over
    commitment: str
    result: dict[str, Any] | None


class ResignEvent(TypedDict):
    type: Literal["resign"]
    seat: int
    side: int


class TimeoutEvent(TypedDict):
    type: Literal["timeout"]
    seat: int
    policy: str


class MatchOverEvent(TypedDict):
    type: Literal["match_over"]
    reason: str
    winner: int | None


# Every event type of the log: the engine's (EVENT_TYPES) and the services'.
EventType = Literal[
    "draw",
    "red_three",
    "pickup",
    "meld",
    "discard",
    "ask_partner",
    "answer",
    "stock_out",
    "hand_over",
    "deal",
    "hand_result",
    "resign",
    "timeout",
    "match_over",
]
# Every action type of the log: the engine's actions and the services' resignation and timeout.
ActionType = Literal[
    "draw", "pickup", "meld", "discard", "ask_partner", "answer", "resign", "timeout"
]

ServiceEvent = DealEvent | HandResultEvent | ResignEvent | TimeoutEvent | MatchOverEvent
SERVICE_EVENT_TYPES = frozenset({"deal", "hand_result", "resign", "timeout", "match_over"})
GameEvent = EngineEvent | ServiceEvent


def game_events(events: Iterable[Mapping[str, Any]]) -> list[GameEvent]:
    """The events of the log (or of a change) as typed events; an unknown type is a bug."""
    typed: list[GameEvent] = []
    for event in events:
        kind = event.get("type")
        if kind not in EVENT_TYPES and kind not in SERVICE_EVENT_TYPES:
            raise ValueError(f"unknown event type {kind!r}")
        typed.append(cast("GameEvent", event))
    return typed


def is_event(event: Mapping[str, Any], kind: EventType) -> bool:
    """Whether the raw ``event`` is of type ``kind``."""
    return event.get("type") == kind


def is_action(action: Any, kind: ActionType) -> bool:
    """Whether the raw ``action`` (a JSON object of the log, or anything a client sent) is
    of type ``kind``."""
    return isinstance(action, Mapping) and action.get("type") == kind
