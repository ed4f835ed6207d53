"""Applying actions to a table: the rules of a turn (docs/rules.md, docs/variants.md).

`apply` never changes the table it is given: it works on a copy and returns it,
so a rejected action changes nothing (docs/formats.md#actions: every action is all or nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import Action, Answer, AskPartner, Discard, Draw, Meld, Pickup, parse_action
from .cards import Card
from .errors import EngineError
from .goingout import going_out_search
from .laying import meld_apply, plan_lay
from .pickups import can_take_pile, must_take_pile
from .pile import pickup_apply, pile_frozen
from .table import Table
from .turn import (
    Event,
    Outcome,
    canastas,
    check_in_hand,
    end_hand,
    go_out,
    illegal,
    lay_out_red_three,
    minimum,
    require_phase,
    why_not_out,
)

__all__ = [
    "Event",
    "Outcome",
    "apply",
    "can_take_pile",
    "canastas",
    "find_going_out",
    "is_legal",
    "minimum",
    "must_take_pile",
    "pile_frozen",
]


def apply(table: Table, seat: int, action: Action | Mapping[str, Any]) -> Outcome:
    """Validate ``action`` by ``seat`` and return the new table; raises EngineError."""
    act = parse_action(action)
    if table.over:
        raise illegal("hand_over")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < table.players:
        raise illegal("no_such_seat", seat=seat)
    if seat != table.turn:
        raise illegal("not_your_turn", turn=table.turn, seat=seat)
    t = table.fork()
    out = Outcome(t)
    if isinstance(act, Draw):
        _draw(t, out)
    elif isinstance(act, Pickup):
        pickup_apply(t, act, out, find_going_out)
    elif isinstance(act, Meld):
        meld_apply(t, act, out, find_going_out)
    elif isinstance(act, Discard):
        _discard(t, act, out)
    elif isinstance(act, AskPartner):
        _ask(t, out)
    else:
        _answer(t, act, out)
    return out


def find_going_out(t: Table, *, could: bool | None = None) -> list[dict[str, Any]] | None:
    """Actions (a meld, then maybe a discard) with which the current player goes out now,
    checked by the rules that `apply` runs (goingout.going_out_search; ``could``: its
    quick test, when the caller has it)."""
    return going_out_search(t, lay_check=_lay_check, could=could)


def _lay_check(
    t: Table, new_melds: list[list[Card]], adds: list[tuple[str, list[Card]]], used: list[Card]
) -> None:
    """laying.plan_lay for a meld from the hand (the going-out search's check)."""
    plan_lay(t, new_melds=new_melds, adds=adds, pile=None, used=used, incoming=[])


def is_legal(table: Table, seat: int, action: Action | Mapping[str, Any]) -> bool:
    try:
        apply(table, seat, action)
    except EngineError:
        return False
    return True


# --- draw ------------------------------------------------------------------------


def _draw(t: Table, out: Outcome) -> None:
    require_phase(t, "draw")
    seat = t.turn
    if not t.stock:
        # docs/rules.md#when-the-stock-runs-out / docs/variants.md (tiles): the stock has run out.
        if t.rules.stock_out == "classic" and must_take_pile(t, seat):
            raise illegal("stock_empty_take_pile")
        out.events.append({"type": "stock_out", "seat": seat})
        end_hand(t, out, "stock_exhausted", None)
        return
    t.stock = list(t.stock)  # shared with the table given to apply (Table.fork)
    drawn: list[Card] = []
    for _ in range(t.rules.draws(t.players)):
        if not t.stock:
            break
        card = t.stock.pop(0)
        while t.rules.is_bonus_three(card):
            # docs/rules.md: A turn, Threes: laid out at once and replaced from the stock.
            lay_out_red_three(t, seat, card, out)
            if not t.stock:
                # docs/rules.md#threes: a red three as the last card ends the hand at once.
                if drawn:
                    out.events.append(
                        {"type": "draw", "seat": seat, "private": seat, "cards": drawn}
                    )
                end_hand(t, out, "red_three_last", None)
                return
            card = t.stock.pop(0)
        drawn.append(card)
        t.hands[seat].append(card)
    out.events.append({"type": "draw", "seat": seat, "private": seat, "cards": drawn})
    t.phase = "play"


# --- discarding and the end of a turn -----------------------------------------------------


def _discard(t: Table, act: Discard, out: Outcome) -> None:
    require_phase(t, "play", "discard")
    seat = t.turn
    hand = t.hands[seat]
    check_in_hand(hand, [act.card])
    if len(hand) == 1:
        canasta_count = canastas(t, t.side_of(seat))
        if canasta_count < t.rules.canastas_needed(t.players) or t.go_out is False:
            raise why_not_out(t, canasta_count)
    elif t.go_out is True:
        raise illegal("partner_said_yes")
    hand.remove(act.card)
    t.discard = [*t.discard, act.card]  # the pile is shared with the given table (Table.fork)
    out.events.append({"type": "discard", "seat": seat, "card": act.card})
    if not hand:
        go_out(t, out)
        return
    _next_turn(t, out)


def _next_turn(t: Table, out: Outcome) -> None:
    t.concealed_melds = None
    t.go_out = None
    t.turn = (t.turn + 1) % t.players
    t.phase = "draw"
    # docs/rules.md#when-the-stock-runs-out: the hand ends when the player cannot take the pile;
    # tiles: the round ends after the turn of the player who drew the last tile.
    if not t.stock and (t.rules.stock_out == "tiles" or not can_take_pile(t, t.turn)):
        out.events.append({"type": "stock_out", "seat": t.turn})
        end_hand(t, out, "stock_exhausted", None)


# --- "may I go out?" (docs/rules.md#may-i-go-out-option-ask_partner) ---------------------------


def _ask(t: Table, out: Outcome) -> None:
    if not t.settings.get("ask_partner"):
        raise illegal("no_ask_partner_option")
    require_phase(t, "play")
    if t.go_out is not None:
        raise illegal("already_asked")
    partners = t.partners(t.turn)
    if not partners:
        raise illegal("no_partner")
    if len(t.hands[t.turn]) < 2:
        # With one card left a "no" would leave no legal way to end the turn.
        raise illegal("ask_before_last_card")
    if find_going_out(t) is None:
        raise illegal("ask_only_when_out")
    out.events.append({"type": "ask_partner", "seat": t.turn})
    t.asked_by = t.turn
    t.turn = partners[0]
    t.phase = "answer"


def _answer(t: Table, act: Answer, out: Outcome) -> None:
    if not t.settings.get("ask_partner"):
        raise illegal("no_ask_partner_option")
    require_phase(t, "answer")
    assert t.asked_by is not None
    out.events.append({"type": "answer", "seat": t.turn, "yes": act.yes})
    t.turn = t.asked_by
    t.asked_by = None
    t.phase = "play"
    t.go_out = act.yes
