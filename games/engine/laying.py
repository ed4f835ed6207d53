"""Laying melds and additions, all or nothing (docs/rules.md: melds, canastas, going out)."""

from __future__ import annotations

from .actions import Meld
from .cards import JOKER, NATURAL_RANKS, Card, is_wild
from .melds import CANASTA_SIZE, cards_value, check_meld, meld_key
from .table import Table
from .turn import (
    Outcome,
    WayOut,
    check_in_hand,
    go_out,
    illegal,
    require_phase,
    turn_hand,
    why_not_out,
)

# --- melding ----------------------------------------------------------------------------


def meld_apply(t: Table, act: Meld, out: Outcome, way_out: WayOut) -> None:
    """A meld action: new melds and additions from the hand, then out if the hand is empty."""
    require_phase(t, "play")
    used = [c for m in act.melds for c in m] + [c for _, cards in act.add for c in cards]
    check_in_hand(turn_hand(t), used)
    lay(
        t,
        out,
        new_melds=[list(m) for m in act.melds],
        adds=[(k, list(c)) for k, c in act.add],
        pile=None,
        used=used,
        incoming=[],
        way_out=way_out,
    )
    if not t.hands[t.turn]:
        go_out(t, out)


def plan_lay(
    t: Table,
    *,
    new_melds: list[list[Card]],
    adds: list[tuple[str, list[Card]]],
    pile: tuple[str, list[Card]] | None,
    used: list[Card],
    incoming: list[Card],
    way_out: WayOut | None = None,
) -> tuple[dict[str, list[Card]], list[Card], list[str], list[str]]:
    """Check a lay without changing ``t``: the side's melds and the hand after it, what changed.

    `lay` commits what this returns; `legal` calls it alone to decide legality without a
    trial `apply` (no table copy). Raises IllegalActionError as the move would.
    ``way_out``: the going-out search (play.find_going_out), needed when the player's partner
    said "yes" (the lay must leave a way out); a pickup never needs it (no answer yet).
    """
    rules = t.rules
    seat = t.turn
    side = t.side_of(seat)
    had_melded = bool(t.melds[side])
    melds, changed, started, laid_value = _melds_after(t, new_melds=new_melds, adds=adds, pile=pile)
    remaining = list(t.hands[seat])
    for card in used:
        remaining.remove(card)
    remaining += incoming
    canasta_count = sum(1 for c in melds.values() if len(c) >= CANASTA_SIZE)  # canasta_kind
    may_go_out = canasta_count >= rules.canastas_needed(t.players) and t.go_out is not False
    # Black threes meld only by a player going out (docs/rules.md#melds): at most one card left.
    going_out = may_go_out and len(remaining) <= 1
    for key in changed:
        check_meld(rules, key, melds[key], going_out=going_out)
    if not had_melded:
        need = rules.minimum_for_score(t.scores[side])
        if laid_value < need:
            raise illegal("initial_meld_too_low", need=need, worth=laid_value)
    _check_cards_left(t, remaining, may_go_out, canasta_count)
    if t.go_out is True and remaining and not _can_still_go_out(t, melds, remaining, way_out):
        raise illegal("yes_leaves_no_way_out")
    return melds, remaining, changed, started


def _melds_after(
    t: Table,
    *,
    new_melds: list[list[Card]],
    adds: list[tuple[str, list[Card]]],
    pile: tuple[str, list[Card]] | None,
) -> tuple[dict[str, list[Card]], list[str], list[str], int]:
    """The side's melds after the lay, the keys it changed and started, the value laid."""
    rules = t.rules
    before = t.melds[t.side_of(t.turn)]
    melds = dict(before)
    changed: list[str] = []
    started: list[str] = []
    laid_value = 0
    if pile is not None:
        key, cards = pile
        melds[key] = before.get(key, []) + cards
        changed.append(key)
        if key not in before:
            started.append(key)
        laid_value += cards_value(rules, cards)
    for cards in new_melds:
        key = meld_key(rules, cards)
        if key in melds:
            raise illegal("meld_exists", rank=key, cards=list(cards))
        melds[key] = list(cards)
        changed.append(key)
        started.append(key)
        laid_value += cards_value(rules, cards)
    for key, cards in adds:
        if key not in melds:
            raise illegal("no_such_meld", rank=key, cards=list(cards))
        if not _plain_naturals(key, cards) and any(
            meld_key(rules, [c]) not in (key,) for c in cards if not is_wild(c)
        ):
            raise illegal("cards_not_for_meld", cards=list(cards), rank=key)
        melds[key] = melds[key] + cards
        if key not in changed:
            changed.append(key)
        laid_value += cards_value(rules, cards)
    return melds, changed, started, laid_value


def _plain_naturals(key: str, cards: list[Card]) -> bool:
    """Cards that plainly belong to the natural meld ``key`` (its rank, or wild): the common
    case, answered without asking `meld_key` card by card."""
    return key in NATURAL_RANKS and all(c[0] == key for c in cards if c != JOKER and c[0] != "2")


def _check_cards_left(
    t: Table, remaining: list[Card], may_go_out: bool, canasta_count: int
) -> None:
    """No cards left is going out; one card left must be the discard that goes out."""
    rules = t.rules
    if not remaining:
        if not may_go_out:
            raise why_not_out(t, canasta_count)
        if rules.final_discard_required:
            raise illegal("go_out_with_discard", variant=rules.name)
    elif len(remaining) == 1 and not may_go_out:
        raise illegal("must_keep_card")


def lay(
    t: Table,
    out: Outcome,
    *,
    new_melds: list[list[Card]],
    adds: list[tuple[str, list[Card]]],
    pile: tuple[str, list[Card]] | None,
    used: list[Card],
    incoming: list[Card],
    way_out: WayOut | None,
) -> None:
    """Lay melds and additions for the current player, all or nothing (docs/rules.md: melds, canastas, going out).
    ``way_out``: see plan_lay."""
    melds, remaining, changed, started = plan_lay(
        t, new_melds=new_melds, adds=adds, pile=pile, used=used, incoming=incoming, way_out=way_out
    )
    seat = t.turn
    side = t.side_of(seat)
    t.concealed_melds = _concealed_after(t, changed, started)
    t.melds[side] = melds
    t.hands[seat] = remaining
    t.melded[seat] = True
    out.events.append(
        {
            "type": "meld",
            "seat": seat,
            "melds": [list(m) for m in new_melds],
            "add": {k: list(c) for k, c in adds},
        }
    )


def _concealed_after(t: Table, changed: list[str], started: list[str]) -> list[str] | None:
    """The melds laid from the hand alone this turn, while going out concealed is still
    possible (docs/rules.md#going-out; party: the side's first meld); None once it is not."""
    seat = t.turn
    had_melded = bool(t.melds[t.side_of(seat)])
    fresh = (not had_melded) if t.rules.concealed_scope == "side" else not t.melded[seat]
    continuing = t.concealed_melds is not None
    own = set(started) | set(t.concealed_melds or [])
    clean = all(key in own for key in changed)
    return (list(t.concealed_melds or []) + started) if (fresh or continuing) and clean else None


def _can_still_go_out(
    t: Table, melds: dict[str, list[Card]], remaining: list[Card], way_out: WayOut | None
) -> bool:
    if way_out is None:
        # Only a play-phase lay after a "yes" asks, and every caller there passes the search.
        raise ValueError("plan_lay needs the going-out search after a yes")
    probe = t.fork()
    probe.melds[t.side_of(t.turn)] = melds
    probe.hands[t.turn] = list(remaining)
    probe.melded[t.turn] = True
    return way_out(probe) is not None
