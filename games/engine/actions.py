"""Actions (docs/formats.md#actions): parse JSON into typed values and back."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import ALL_CODES, Card, parse_cards
from .errors import IllegalActionError
from .melds import parse_meld_key

MAX_CARDS_IN_ACTION = 120  # more than any deck: a longer list is malformed, not slow


@dataclass(frozen=True)
class Draw:
    type: str = "draw"


@dataclass(frozen=True)
class Pickup:
    cards: tuple[Card, ...] | None = None
    melds: tuple[tuple[Card, ...], ...] = ()
    type: str = "pickup"

    # Written out (the dataclass keeps it): compiled, a generated __init__ would stay
    # interpreted Python, and every pickup and meld played is parsed into one of these.
    def __init__(
        self,
        cards: tuple[Card, ...] | None = None,
        melds: tuple[tuple[Card, ...], ...] = (),
        type: str = "pickup",
    ) -> None:
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "melds", melds)
        object.__setattr__(self, "type", type)


@dataclass(frozen=True)
class Meld:
    melds: tuple[tuple[Card, ...], ...] = ()
    add: tuple[tuple[str, tuple[Card, ...]], ...] = ()
    type: str = "meld"

    # Written out: see Pickup.
    def __init__(
        self,
        melds: tuple[tuple[Card, ...], ...] = (),
        add: tuple[tuple[str, tuple[Card, ...]], ...] = (),
        type: str = "meld",
    ) -> None:
        object.__setattr__(self, "melds", melds)
        object.__setattr__(self, "add", add)
        object.__setattr__(self, "type", type)


@dataclass(frozen=True)
class Discard:
    card: Card = ""
    type: str = "discard"


@dataclass(frozen=True)
class AskPartner:
    type: str = "ask_partner"


@dataclass(frozen=True)
class Answer:
    yes: bool = False
    type: str = field(default="answer")


Action = Draw | Pickup | Meld | Discard | AskPartner | Answer
_DRAW = Draw()
# Actions are frozen values, so one Discard per card code serves every discard of it (a
# dataclass's generated __init__ stays interpreted Python in the compiled build).
_DISCARDS: dict[Card, Discard] = {code: Discard(card=code) for code in ALL_CODES}
_ACTION_TYPES = (Draw, Pickup, Meld, Discard, AskPartner, Answer)

_ALLOWED_KEYS = {
    "draw": {"type"},
    "pickup": {"type", "cards", "melds"},
    "meld": {"type", "melds", "add"},
    "discard": {"type", "card"},
    "ask_partner": {"type"},
    "answer": {"type", "yes"},
}


def _melds(value: Any) -> tuple[tuple[Card, ...], ...]:
    if not isinstance(value, list):
        raise IllegalActionError("melds_not_lists")
    out: list[tuple[Card, ...]] = []
    total = 0
    for m in value:  # loops, not generators: compiled, they stay native code
        cards = tuple(parse_cards(m, what="each meld"))
        out.append(cards)
        total += len(cards)
    if total > MAX_CARDS_IN_ACTION:
        raise IllegalActionError("too_many_cards")
    return tuple(out)


def _fast_action(data: dict[Any, Any]) -> Action | None:
    """The commonest well-formed actions (a draw, a discard of a card code), read without the
    checks below; None for anything else."""
    kind = data.get("type")
    if kind == "draw" and len(data) == 1:
        return _DRAW
    if kind == "discard" and len(data) == 2:
        card = data.get("card")
        if type(card) is str:
            return _DISCARDS.get(card)  # None unless a card code
    return None


def _checked_kind(data: Any) -> str:
    """The action's type, once the object is a mapping of a known type with no extra keys."""
    if not isinstance(data, Mapping):
        raise IllegalActionError("not_an_object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _ALLOWED_KEYS:
        raise IllegalActionError("unknown_action_type", kind=kind)
    allowed = _ALLOWED_KEYS[kind]
    for key in data:
        if key not in allowed:
            extra = set(data) - allowed
            raise IllegalActionError(
                "unexpected_keys", kind=kind, keys=", ".join(sorted(map(str, extra)))
            )
    return kind


def _pickup(data: Mapping[str, Any]) -> Pickup:
    cards = None
    if data.get("cards") is not None:
        cards = tuple(parse_cards(data["cards"], what="pickup cards"))
        if not cards:
            raise IllegalActionError("empty_pickup_cards")
        if len(cards) > MAX_CARDS_IN_ACTION:
            raise IllegalActionError("too_many_cards")
    return Pickup(cards=cards, melds=_melds(data.get("melds", [])))


def _additions(add_raw: Any) -> tuple[tuple[str, tuple[Card, ...]], ...]:
    if not isinstance(add_raw, Mapping):
        raise IllegalActionError("add_not_object")
    add: list[tuple[str, tuple[Card, ...]]] = []
    for raw_key, raw_cards in add_raw.items():
        key = parse_meld_key(raw_key)
        for k, _ in add:
            if k == key:
                raise IllegalActionError("add_twice", rank=key)
        cards = tuple(parse_cards(raw_cards, what=f"cards added to {key}"))
        if not cards:
            raise IllegalActionError("add_no_cards", rank=key)
        add.append((key, cards))
    return tuple(add)


def _meld(data: Mapping[str, Any]) -> Meld:
    add = _additions(data.get("add", {}))
    melds = _melds(data.get("melds", []))
    if not melds and not add:
        raise IllegalActionError("meld_action_empty")
    total = 0
    for m in melds:
        total += len(m)
    for _, c in add:
        total += len(c)
    if total > MAX_CARDS_IN_ACTION:
        raise IllegalActionError("too_many_cards")
    return Meld(melds=melds, add=add)


def _answer(data: Mapping[str, Any]) -> Answer:
    yes = data.get("yes")
    if not isinstance(yes, bool):
        raise IllegalActionError("answer_not_bool")
    return Answer(yes=yes)


_READERS: dict[str, Callable[[Mapping[str, Any]], Action]] = {
    "draw": lambda _data: Draw(),
    "pickup": _pickup,
    "meld": _meld,
    "discard": lambda data: Discard(card=parse_cards([data.get("card")], what="discard card")[0]),
    "ask_partner": lambda _data: AskPartner(),
    "answer": _answer,
}


def parse_action(data: Any) -> Action:
    """Read an action object; anything malformed is `invalid_action`."""
    if isinstance(data, _ACTION_TYPES):
        return data
    if type(data) is dict:
        fast = _fast_action(data)
        if fast is not None:
            return fast
    return _READERS[_checked_kind(data)](data)


def action_to_json(action: Action) -> dict[str, Any]:
    """Canonical JSON form of an action."""
    if isinstance(action, Pickup):
        out: dict[str, Any] = {"type": "pickup"}
        if action.cards is not None:
            out["cards"] = list(action.cards)
        if action.melds:
            out["melds"] = [list(m) for m in action.melds]
        return out
    if isinstance(action, Meld):
        out = {"type": "meld"}
        if action.melds:
            out["melds"] = [list(m) for m in action.melds]
        if action.add:
            out["add"] = {k: list(c) for k, c in action.add}
        return out
    if isinstance(action, Discard):
        return {"type": "discard", "card": action.card}
    if isinstance(action, Answer):
        return {"type": "answer", "yes": action.yes}
    return {"type": action.type}
