"""What every part of a turn shares: the outcome, errors, phase checks, ending a hand.

The public steps here are the ones play, pile, laying, pickups and legal build on; each of
those modules has its own public face and none imports another's private names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import Card, missing_cards
from .errors import IllegalActionError
from .melds import CANASTA_SIZE, canasta_kind
from .table import Table

Event = dict[str, Any]

# The going-out search (play.find_going_out), handed to the steps below play that need it
# (laying: a player whose partner said "yes" must keep a way out): passed in, since the
# search itself plays actions through play.apply.
WayOut = Callable[[Table], list[dict[str, Any]] | None]


@dataclass
class Outcome:
    """The table after an action and what happened, in order.

    Events with a ``"private"`` seat carry cards only that seat may see; every
    other event is public (see `view.event_for`).
    """

    table: Table
    events: list[Event] = field(default_factory=list)

    # Not generated: compiled, the dataclass's own __init__ stays interpreted (table.Table).
    def __init__(self, table: Table, events: list[Event] | None = None) -> None:
        self.table = table
        self.events = [] if events is None else events


def illegal(reason: str, **params: Any) -> IllegalActionError:
    return IllegalActionError(reason, **params)


# --- facts about a table -------------------------------------------------------


def minimum(t: Table, side: int) -> int:
    """The side's initial-meld minimum now, 0 once it has melded (docs/rules.md#the-initial-meld)."""
    if t.melds[side]:
        return 0
    return t.rules.minimum_for_score(t.scores[side])


def canastas(t: Table, side: int) -> int:
    # canasta_kind(key, cards) is not None exactly when the meld is a canasta: 7 cards or more.
    return sum(1 for cards in t.melds[side].values() if len(cards) >= CANASTA_SIZE)


def turn_hand(t: Table) -> list[Card]:
    return t.hands[t.turn]


def check_in_hand(hand: Sequence[Card], cards: Sequence[Card]) -> None:
    if len(cards) == 1 and cards[0] in hand:
        return  # one card (a discard): held
    missing = missing_cards(hand, cards)
    if missing:
        raise illegal("card_not_in_hand", cards=list(missing))


def require_phase(t: Table, *phases: str) -> None:
    if t.phase not in phases:
        raise illegal("wrong_phase", phase=t.phase, phases=list(phases))


def go_out(t: Table, out: Outcome) -> None:
    seat = t.turn
    side = t.side_of(seat)
    concealed = bool(
        t.rules.concealed_extra
        and t.concealed_melds is not None
        and any(canasta_kind(k, t.melds[side][k]) for k in t.concealed_melds)
    )
    end_hand(t, out, "went_out", seat, concealed=concealed)


def end_hand(
    t: Table, out: Outcome, reason: str, went_out: int | None, *, concealed: bool = False
) -> None:
    t.phase = "over"
    t.go_out = None
    t.concealed_melds = None
    t.asked_by = None
    t.ended = {"reason": reason, "went_out": went_out, "concealed": concealed}
    out.events.append({"type": "hand_over", **t.ended})


def lay_out_red_three(t: Table, seat: int, card: Card, out: Outcome) -> None:
    # A new list: red threes are shared with the table given to apply (Table.fork).
    reds = list(t.red_threes)
    side = t.side_of(seat)
    reds[side] = [*reds[side], card]
    t.red_threes = reds
    out.events.append({"type": "red_three", "seat": seat, "card": card})


def why_not_out(t: Table, canasta_count: int) -> IllegalActionError:
    """The refusal of going out: the partner's "no", or too few canastas."""
    need = t.rules.canastas_needed(t.players)
    if t.go_out is False:
        return illegal("partner_said_no")
    plural = "s" if need > 1 else ""
    return illegal("canastas_needed", need=need, plural=plural, have=canasta_count)
