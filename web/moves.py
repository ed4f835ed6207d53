"""The game page's move form, turned into engine actions (docs/formats.md#actions).

The form is the same with and without JavaScript: checked hand cards (``card``, repeated for
a pair of equal cards), a plan of melds set aside for one action (``meld``: "7H 7D 7S"), the
meld to add to (``add_to``) and the button pressed (``op``). static/web/game.js builds the
same actions in the browser and posts them to the REST API; this module serves the plain
form post. Keep the two in step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from games.engine.cards import is_wild

# Buttons that only change the plan: the page comes back with it, nothing is played.
PLAN_OPS = frozenset({"set_aside", "clear"})
PLAY_OPS = frozenset({"draw", "pickup", "meld", "add", "discard", "ask", "yes", "no", "go_out"})


class SelectionError(ValueError):
    """The selection does not make an action (before the engine is asked anything)."""


@dataclass
class MoveForm:
    op: str
    version: int | None
    cards: list[str] = field(default_factory=list)
    plan: list[list[str]] = field(default_factory=list)
    add_to: str = ""

    @property
    def plan_cards(self) -> list[str]:
        return [c for meld in self.plan for c in meld]


def _codes(text: str) -> list[str]:
    return [part.strip().upper() for part in text.replace(",", " ").split() if part.strip()]


def parse(data: Any) -> MoveForm:
    """Read the posted form (a QueryDict or a dict of lists)."""

    def values(name: str) -> list[str]:
        return list(data.getlist(name)) if hasattr(data, "getlist") else list(data.get(name, []))

    def value(name: str) -> str:
        found = values(name)
        return str(found[-1]) if found else ""

    try:
        version: int | None = int(value("version"))
    except ValueError:
        version = None
    plan = [codes for codes in (_codes(m) for m in values("meld")) if codes]
    return MoveForm(
        op=value("op"),
        version=version,
        cards=[c.strip().upper() for c in values("card") if c.strip()],
        plan=plan,
        add_to=value("add_to").strip().upper(),
    )


def apply_plan_op(form: MoveForm) -> MoveForm:
    """``set_aside``: the checked cards become one more planned meld; ``clear``: no plan."""
    if form.op == "clear":
        return MoveForm(op=form.op, version=form.version)
    if not form.cards:
        raise SelectionError(_("Select the cards of the meld to set aside first."))
    return MoveForm(
        op=form.op, version=form.version, plan=[*form.plan, list(form.cards)], add_to=form.add_to
    )


def add_target(cards: Sequence[str], add_to: str, meld_keys: Iterable[str]) -> str:
    """The meld the checked cards join: the one chosen, else their (one) natural rank."""
    keys = list(meld_keys)
    if add_to:
        return add_to
    ranks = {c[0] for c in cards if not is_wild(c)}
    if len(ranks) == 1:
        return ranks.pop()
    if not ranks and keys and all(c[0] == "2" for c in cards) and "2" in keys:
        return "2"  # tiles: twos join the twos meld
    if not ranks and len(keys) == 1:
        return keys[0]
    if ranks:
        raise SelectionError(
            _("Cards of different ranks join different melds: add one rank at a time.")
        )
    raise SelectionError(_("Choose the meld to add the wild cards to."))


Actions = list[dict[str, Any]]


def _go_out(form: MoveForm, meld_keys: Iterable[str], legal: Mapping[str, Any]) -> Actions:
    steps = [dict(step) for step in legal.get("going_out") or []]
    if not steps:
        raise SelectionError(_("You cannot go out now."))
    return steps


def _pickup(form: MoveForm, meld_keys: Iterable[str], legal: Mapping[str, Any]) -> Actions:
    if not form.cards and not form.plan and legal.get("pickups"):
        return [dict(legal["pickups"][0])]  # the pile tapped with nothing selected
    pickup: dict[str, Any] = {"type": "pickup"}
    if form.cards:
        pickup["cards"] = list(form.cards)
    if form.plan:
        pickup["melds"] = [list(m) for m in form.plan]
    return [pickup]


def _meld(form: MoveForm, meld_keys: Iterable[str], legal: Mapping[str, Any]) -> Actions:
    melds = [list(m) for m in form.plan]
    if form.cards:
        melds.append(list(form.cards))
    if not melds:
        raise SelectionError(_("Select the cards to meld first."))
    return [{"type": "meld", "melds": melds}]


def _add(form: MoveForm, meld_keys: Iterable[str], legal: Mapping[str, Any]) -> Actions:
    if not form.cards:
        raise SelectionError(_("Select the cards to add to a meld first."))
    target = add_target(form.cards, form.add_to, meld_keys)
    action: dict[str, Any] = {"type": "meld", "add": {target: list(form.cards)}}
    if form.plan:
        action["melds"] = [list(m) for m in form.plan]
    return [action]


def _discard(form: MoveForm, meld_keys: Iterable[str], legal: Mapping[str, Any]) -> Actions:
    if len(form.cards) != 1:
        raise SelectionError(_("Select exactly one card to discard."))
    played: Actions = []
    if form.plan:
        # The plan is laid first: meld, then discard the last card, is one turn.
        played.append({"type": "meld", "melds": [list(m) for m in form.plan]})
    played.append({"type": "discard", "card": form.cards[0]})
    return played


_BUTTONS: dict[str, Callable[[MoveForm, Iterable[str], Mapping[str, Any]], Actions]] = {
    "draw": lambda form, keys, legal: [{"type": "draw"}],
    "go_out": _go_out,
    "ask": lambda form, keys, legal: [{"type": "ask_partner"}],
    "yes": lambda form, keys, legal: [{"type": "answer", "yes": True}],
    "no": lambda form, keys, legal: [{"type": "answer", "yes": False}],
    "pickup": _pickup,
    "meld": _meld,
    "add": _add,
    "discard": _discard,
}


def actions(
    form: MoveForm, meld_keys: Iterable[str] = (), legal: Mapping[str, Any] | None = None
) -> Actions:
    """The actions the pressed button plays, all in one request (all or nothing).

    ``legal``: the engine's legal actions for the player now (web.play), for the buttons
    that play the engine's own choice: "Go out" (its way out) and the pile tapped with
    nothing selected (its first way to take it).
    """
    button = _BUTTONS.get(form.op)
    if button is None:
        raise SelectionError(_("Unknown button."))
    return button(form, meld_keys, legal or {})


def without(hand: Sequence[str], taken: Sequence[str]) -> list[str]:
    """The hand less the cards set aside in the plan (a multiset difference)."""
    rest = Counter(taken)
    out = []
    for code in hand:
        if rest[code] > 0:
            rest[code] -= 1
        else:
            out.append(code)
    return out
