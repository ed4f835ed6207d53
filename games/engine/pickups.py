"""Taking the pile as a choice: every way to take it now, and whether the seat can or must
(docs/rules.md: the discard pile, the stock runs out). Decided by the rules directly (pile.check_pickup_cards and
laying.plan_lay, which the move itself runs), without a trial move: play asks here when the
stock runs out, and legal lists these pickups.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cards import BLACK_THREES, JOKER, NATURAL_RANKS, Card, count_naturals, is_wild
from .errors import EngineError
from .laying import plan_lay
from .melds import CANASTA_SIZE, cards_value
from .pile import check_pickup_cards, check_pile_reachable, check_pile_takeable, pile_frozen
from .table import Table
from .turn import canastas, minimum

ActionJSON = dict[str, Any]
Accept = Callable[[Table, ActionJSON], bool]


def allowed_pickup(
    t: Table, action: ActionJSON, frozen: bool, incoming: list[list[Card]] | None = None
) -> bool:
    """A pickup candidate, once `check_pile_reachable` and `check_pile_takeable` have passed.

    ``frozen`` and ``incoming`` (a holder for the pile cards that go to the hand, filled on
    first use) are the same for every candidate of a position: `pickup_actions` passes them.
    """
    cards = action.get("cards")
    melds = [list(m) for m in action.get("melds", ())]
    try:
        key, pile_cards, used = check_pickup_cards(t, cards, melds, frozen)
        if incoming is None:
            incoming = []
        if not incoming:
            incoming.append(_incoming(t))
        if not melds and key in NATURAL_RANKS and t.go_out is not True:
            left = len(t.hands[t.turn]) - len(used) + len(incoming[0])
            return _pile_meld_fits(t, key, pile_cards, left)
        pile = (key, pile_cards)
        plan_lay(t, new_melds=melds, adds=[], pile=pile, used=used, incoming=incoming[0])
    except EngineError:
        return False
    return True


def _pile_meld_fits(t: Table, key: str, pile_cards: list[Card], left: int) -> bool:
    """`plan_lay` for a pickup that lays only the pile's meld of natural rank ``key``, by
    counting: the meld's wild-card limit, the initial minimum, the ``left`` cards in hand.

    ``pile_cards`` (the top card and the hand cards with it) have passed
    `check_pickup_cards`, so they are of rank ``key`` or wild.
    """
    rules = t.rules
    side = t.side_of(t.turn)
    before = t.melds[side].get(key, [])
    size = len(before) + len(pile_cards)
    naturals = count_naturals(before) + count_naturals(pile_cards)
    if size < 3 or naturals < 2 or size - naturals > rules.max_wilds(naturals):
        return False
    if not t.melds[side] and cards_value(rules, pile_cards) < rules.minimum_for_score(
        t.scores[side]
    ):
        return False
    if left > 1:
        return True
    grew = len(before) < CANASTA_SIZE <= size
    may_go_out = (
        canastas(t, side) + grew >= rules.canastas_needed(t.players) and t.go_out is not False
    )
    if left == 0:
        return may_go_out and not rules.final_discard_required
    return may_go_out


def _incoming(t: Table) -> list[Card]:
    """The pile cards a pickup puts in the hand (red threes below the top are laid out)."""
    return [c for c in t.discard[:-1] if not t.rules.is_bonus_three(c)]


def _alone_may_take(t: Table, seat: int, key: str) -> bool:
    """A necessary condition of `check_pickup_cards` for the top card alone (no cards)."""
    return t.rules.top_card_alone and key in t.melds[t.side_of(seat)]


def _pairs(cards: list[Card]) -> list[list[Card]]:
    """Distinct two-card multisets."""
    counts: dict[Card, int] = {}
    for c in cards:  # not a Counter: its __init__ is Python code, even compiled
        counts[c] = counts.get(c, 0) + 1
    codes = sorted(counts.items())
    out: list[list[Card]] = []
    for i, (a, n) in enumerate(codes):
        if n >= 2:
            out.append([a, a])
        for b, _ in codes[i + 1 :]:
            out.append([a, b])
    return out


def _default_frozen(t: Table, seat: int, key: str, naturals: list[Card]) -> bool | None:
    """`pile_frozen` for the candidates when the caller brings no check of its own; None when
    no candidate can pass (the pile rules that do not depend on the cards, decided once for
    all of them)."""
    if not naturals and not _alone_may_take(t, seat, key):
        return None  # the one candidate, the top card alone, cannot take the pile
    try:
        check_pile_reachable(t)
        check_pile_takeable(t)
    except EngineError:
        return None
    frozen = pile_frozen(t, t.side_of(seat))
    if frozen and t.rules.freeze != "party" and len(naturals) < 2:
        return None  # check_pickup_cards: a frozen pile needs a natural pair
    return frozen


def _card_options(
    hand: list[Card], naturals: list[Card], alone: bool = True, with_wild: bool = True
) -> list[list[Card] | None]:
    """The hand cards to take the pile with: none (``alone``), a natural pair, a natural and a
    wild (``with_wild``)."""
    options: list[list[Card] | None] = [None] if alone else []
    if naturals:
        options += _pairs(naturals)
        if with_wild:
            wilds = list(dict.fromkeys([c for c in hand if c == JOKER or c[0] == "2"]))
            options += [[n, w] for n in dict.fromkeys(naturals) for w in wilds]
    return options


def _default_options(
    t: Table, seat: int, key: str, hand: list[Card], naturals: list[Card], frozen: bool
) -> list[list[Card] | None]:
    """`_card_options` without the ones `check_pickup_cards` refuses whatever else holds, so
    that the listing raises no refusal for them: the top card alone where it may not go
    alone, hand cards for a party pile frozen onto a side meld, a natural and a wild card
    where a natural pair is needed (a frozen pile; tiles always)."""
    rules = t.rules
    alone = not frozen and _alone_may_take(t, seat, key)
    if rules.freeze == "party" and frozen and key in t.melds[t.side_of(seat)]:
        naturals = []  # frozen_new_meld_only
    with_wild = rules.freeze != "always" and not (frozen and rules.freeze != "party")
    return _card_options(hand, naturals, alone, with_wild)


def _candidate(t: Table, seat: int, cards: list[Card] | None, need: int) -> ActionJSON | None:
    """The pickup with ``cards``, with the melds that reach the initial minimum ``need`` (0
    once the side has melded); None when the hand cannot reach it."""
    if cards is None:
        return {"type": "pickup"}
    action: ActionJSON = {"type": "pickup", "cards": cards}
    if need:
        top = t.discard[-1]
        card_value = t.rules.card_value
        value = card_value(top)
        for c in cards:
            value += card_value(c)
        if value < need:
            rest = list(t.hands[seat])
            for c in cards:
                rest.remove(c)
            extra = best_melds(t, rest, need - value, exclude={top[0]})
            if extra is None:
                return None
            action["melds"] = extra
    return action


def pickup_actions(
    t: Table, seat: int, *, first_only: bool = False, accept: Accept | None = None
) -> list[ActionJSON]:
    """Every way to take the pile now (with an initial meld where one is needed)."""
    if t.over or seat != t.turn or t.phase != "draw" or not t.discard:
        return []
    chosen = _pickup_options(t, seat, accept)
    if chosen is None:
        return []
    options, frozen = chosen
    need = minimum(t, t.side_of(seat))
    found: list[ActionJSON] = []
    incoming: list[list[Card]] = []
    for cards in options:
        action = _candidate(t, seat, cards, need)
        if action is None:
            continue
        if accept(t, action) if accept is not None else allowed_pickup(t, action, frozen, incoming):
            found.append(action)
            if first_only:
                break
    return found


def _pickup_options(
    t: Table, seat: int, accept: Accept | None
) -> tuple[list[list[Card] | None], bool] | None:
    """The hand cards to try with the top card, and whether the pile is frozen for this seat;
    None when no way can take it. With `accept` (the trial oracle) every option is tried."""
    top = t.discard[-1]
    if t.rules.is_pile_blocker(top, t.settings):
        return None
    hand = t.hands[seat]
    key = top[0]
    # The top card is never wild here (a blocker), so cards of its rank are naturals.
    naturals = [c for c in hand if c[0] == key and c != JOKER]
    if accept is not None:
        return _card_options(hand, naturals), False
    frozen = _default_frozen(t, seat, key, naturals)
    if frozen is None:
        return None
    return _default_options(t, seat, key, hand, naturals, frozen), frozen


def natural_groups(t: Table, hand: list[Card]) -> tuple[dict[str, list[Card]], list[Card]]:
    groups, wilds, _ = hand_groups(t, hand)
    return groups, wilds


def hand_groups(t: Table, hand: list[Card]) -> tuple[dict[str, list[Card]], list[Card], int]:
    """The hand's natural cards by rank (threes left out), its wild cards (cheap first) and
    how many black threes it holds."""
    groups: dict[str, list[Card]] = {}
    wilds: list[Card] = []
    threes = 0
    for c in hand:  # is_wild and the threes inlined: this runs on every legal_actions
        r = c[0]
        if c == JOKER or r == "2":
            wilds.append(c)
        elif r == "3":
            threes += c in BLACK_THREES
        else:
            group = groups.get(r)
            if group is None:
                groups[r] = [c]
            else:
                group.append(c)
    if len(wilds) > 1:
        wilds.sort(key=t.rules.card_value)  # cheap wilds first
    return groups, wilds, threes


def best_melds(t: Table, hand: list[Card], need: int, exclude: set[str]) -> list[list[Card]] | None:
    """New melds from ``hand`` worth at least ``need`` (greedy, most valuable first)."""
    rules = t.rules
    groups, wilds = natural_groups(t, hand)
    wilds = list(reversed(wilds))  # to reach a minimum, spend the valuable wilds
    melds: list[list[Card]] = []
    candidates = sorted(
        (cards for rank, cards in groups.items() if rank not in exclude and len(cards) >= 2),
        key=lambda cs: -sum(rules.card_value(c) for c in cs),
    )
    for cards in candidates:
        meld = list(cards)
        if len(meld) == 2:
            if not wilds or rules.max_wilds(2) < 1:
                continue
            meld.append(wilds.pop(0))
        melds.append(meld)
    for meld in melds:
        nat = sum(1 for c in meld if not is_wild(c))
        while wilds and (len(meld) - nat) < rules.max_wilds(nat):
            meld.append(wilds.pop(0))
    total = sum(rules.card_value(c) for m in melds for c in m)
    if total < need or not melds:
        return None
    # Drop melds that are not needed, cheapest first, to keep cards in hand.
    for meld in sorted(melds, key=lambda m: sum(rules.card_value(c) for c in m)):
        value = sum(rules.card_value(c) for c in meld)
        if total - value >= need and len(melds) > 1:
            melds.remove(meld)
            total -= value
    return melds


# --- the stock runs out (docs/rules.md#when-the-stock-runs-out) ---------------------------


def can_take_pile(t: Table, seat: int) -> bool:
    return bool(pickup_actions(t, seat, first_only=True))


def must_take_pile(t: Table, seat: int) -> bool:
    """Stock empty, pile not frozen for the side and its top card fits a side meld."""
    side = t.side_of(seat)
    if not t.discard or pile_frozen(t, side):
        return False
    top = t.discard[-1]
    if t.rules.is_pile_blocker(top, t.settings) or top[0] not in t.melds[side]:
        return False
    return can_take_pile(t, seat)
