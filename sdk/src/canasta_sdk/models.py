"""Typed views of the API's JSON, named as the schema at /api/schema/ names them.

Each model reads the fields a client needs and keeps the whole object in `raw`, so a field
the server adds later is not lost. Actions stay dicts: they go back to the server as they came
(`Legal.actions`, `YourTurn.actions`), and their union is wide (draw, pickup, meld, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Action = dict[str, Any]


@dataclass(frozen=True)
class Legal:
    """`LegalOut`: GET /games/{id}/legal/, and `your_move` of an accepted batch."""

    version: int
    seat: int
    my_turn: bool
    phase: str | None
    legal: dict[str, Any]
    actions: list[Action]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Legal:
        return cls(
            version=data["version"],
            seat=data["seat"],
            my_turn=data["my_turn"],
            phase=data.get("phase"),
            legal=data["legal"],
            actions=list(data["actions"]),
        )


@dataclass(frozen=True)
class Game:
    """`GameDetail` (and `ActionsOut`, the answer to a batch, with `your_move`)."""

    id: str
    status: str
    version: int
    my_turn: bool
    my_seat: int | None
    hand_number: int | None
    totals: list[int]
    your_move: Legal | None
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        move = data.get("your_move")
        return cls(
            id=data["id"],
            status=data["status"],
            version=data["version"],
            my_turn=bool(data.get("my_turn")),
            my_seat=data.get("my_seat"),
            hand_number=(data.get("current_hand") or {}).get("number"),
            totals=list(data.get("totals") or []),
            your_move=Legal.from_json(move) if move else None,
            raw=data,
        )


@dataclass(frozen=True)
class YourTurn:
    """The `data` of a `your_turn` event: enough to move without reading the game first."""

    game_id: str
    seat: int | None
    version: int | None  # None only in events written before the server stored it
    actions: list[Action]
    legal: dict[str, Any] | None
    deadline: str | None

    @classmethod
    def from_event(cls, event: Event) -> YourTurn:
        data = event.data
        return cls(
            game_id=event.game,
            seat=data.get("seat"),
            version=data.get("version"),
            actions=list(data.get("actions") or []),
            legal=data.get("legal"),
            deadline=data.get("deadline"),
        )


@dataclass(frozen=True)
class Event:
    """`Event`: one entry of the feed or one stream message (`id`, `kind`, `game`, ...)."""

    id: int
    kind: str
    game: str
    seq: int
    created_at: str
    data: dict[str, Any]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        return cls(
            id=data["id"],
            kind=data["kind"],
            game=data["game"],
            seq=data["seq"],
            created_at=data["created_at"],
            data=data.get("data") or {},
        )


_ITEM = re.compile(r'"(?P<scope>[^"]*)"(?P<params>(?:;[a-z]+=\d+)*)')


@dataclass(frozen=True)
class RateLimit:
    """One item of the IETF `RateLimit` / `RateLimit-Policy` headers."""

    scope: str
    remaining: int  # r: requests that may be sent at once now
    reset: int  # t: seconds until the whole budget is back
    limit: int | None = None  # q (from RateLimit-Policy)
    window: int | None = None  # w, seconds (from RateLimit-Policy)

    @property
    def interval(self) -> float:
        """Seconds for one request to come back (the bucket's refill step)."""
        if self.limit and self.window:
            return self.window / self.limit
        return 1.0

    @classmethod
    def parse(cls, state: str | None, policy: str | None) -> list[RateLimit]:
        policies = {item["scope"]: _params(item["params"]) for item in _ITEM.finditer(policy or "")}
        limits = []
        for item in _ITEM.finditer(state or ""):
            params = _params(item["params"])
            known = policies.get(item["scope"], {})
            limits.append(
                cls(
                    scope=item["scope"],
                    remaining=params.get("r", 0),
                    reset=params.get("t", 0),
                    limit=known.get("q"),
                    window=known.get("w"),
                )
            )
        return limits


def _params(text: str) -> dict[str, int]:
    pairs = (part.split("=", 1) for part in text.split(";") if "=" in part)
    return {key: int(value) for key, value in pairs}
