"""Taking the discard pile (docs/rules.md: the discard pile, the stock runs out; docs/variants.md)."""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Pickup
from .cards import Card, is_wild
from .laying import lay
from .melds import meld_key
from .table import Table
from .turn import (
    Outcome,
    WayOut,
    check_in_hand,
    go_out,
    illegal,
    lay_out_red_three,
    require_phase,
    turn_hand,
)


def pile_frozen(t: Table, side: int) -> bool:
    """Frozen for ``side`` (docs/rules.md#the-discard-pile; party's wild-card freeze; never in family and tiles)."""
    rules = t.rules
    if rules.freeze == "none":
        return False
    if rules.freeze == "always":
        return False  # tiles: never frozen, though taking always needs a natural pair
    if rules.freeze == "classic" and not t.melds[side]:
        return True
    return not _freezing_cards(t).isdisjoint(t.discard)


# (variant, black_three option) -> the cards that freeze the pile anywhere in it
_FREEZERS: dict[tuple[str, str], frozenset[Card]] = {}


def _freezing_cards(t: Table) -> frozenset[Card]:
    """The cards for which `RuleSet.freezes_pile` is true, computed once per rule set."""
    key = (t.rules.name, str(t.settings.get("black_three")))
    cards = _FREEZERS.get(key)
    if cards is None:
        deck = set(t.rules.deck())
        cards = frozenset(c for c in deck if t.rules.freezes_pile(c, t.settings))
        _FREEZERS[key] = cards
    return cards


# --- taking the pile -----------------------------------------------------------------


def check_pickup(t: Table, act: Pickup) -> tuple[str, list[Card], list[Card]]:
    """The pile rules of a pickup, without changing ``t``: (meld key, pile meld, hand cards used).

    The melds it lays are checked by `laying.plan_lay`; raises IllegalActionError.
    """
    check_pile_reachable(t)
    cards = list(act.cards) if act.cards is not None else []
    check_in_hand(turn_hand(t), cards + [c for m in act.melds for c in m])
    check_pile_takeable(t)
    return check_pickup_cards(t, act.cards, act.melds, pile_frozen(t, t.side_of(t.turn)))


def check_pile_reachable(t: Table) -> None:
    """The pickup rules that come before the cards: phase, an empty or blocked pile."""
    require_phase(t, "draw")
    if not t.discard:
        raise illegal("pile_empty")
    top = t.discard[-1]
    if t.rules.is_pile_blocker(top, t.settings):
        raise illegal("pile_blocked", card=top)


def check_pile_takeable(t: Table) -> None:
    """The pickup rules that do not depend on the cards named (after they are found in hand)."""
    rules = t.rules
    if rules.pile_needs_side_melded and not t.melds[t.side_of(t.turn)]:
        raise illegal("pile_needs_initial_meld")
    if not t.stock and rules.stock_out == "tiles":
        # docs/variants.md (tiles): once the last tile is drawn the round ends; nobody takes the pile.
        raise illegal("stock_exhausted")
    if len(turn_hand(t)) == 1 and len(t.discard) == 1:
        raise illegal("one_card_pile")


def check_pickup_cards(
    t: Table,
    named: Sequence[Card] | None,
    melds: Sequence[Sequence[Card]],
    frozen: bool,
) -> tuple[str, list[Card], list[Card]]:
    """The pickup rules for the cards named (a pickup's ``cards`` and ``melds``), once the
    pile checks above have passed.

    ``frozen`` is `pile_frozen` for the side to act (legal.py computes it once per position).
    """
    rules = t.rules
    side_melds = t.melds[t.side_of(t.turn)]
    top = t.discard[-1]
    cards = list(named) if named is not None else []
    used = cards + [c for m in melds for c in m]
    key = top[0]
    naturals = sum(1 for c in cards if c[0] == key and not is_wild(c))
    if named is None:
        if not rules.top_card_alone:
            raise illegal("top_card_alone", card=top)
        if key not in side_melds:
            raise illegal("no_such_meld", rank=key, cards=[top])
        if frozen:
            raise illegal("frozen_take_with_pair", rank=key)
    elif rules.freeze == "party" and frozen and key in side_melds:
        raise illegal("frozen_new_meld_only")
    elif rules.freeze == "always" and naturals < 2:
        # tiles: the pile is never frozen, but taking it always needs a natural pair.
        raise illegal("pile_needs_pair", rank=key, card=top)
    elif frozen and rules.freeze != "party" and naturals < 2:
        raise illegal("frozen_needs_pair", rank=key, card=top)
    elif not rules.top_card_alone and not (naturals >= 2 or (naturals and len(cards) > naturals)):
        # family: two naturals, or one natural and one wild card, melded with the top card.
        raise illegal("take_with_two", card=top)
    pile_cards = [top, *cards]
    if meld_key(rules, pile_cards) != key:
        raise illegal("cards_do_not_meld_with", cards=list(cards), card=top)
    return key, pile_cards, used


def pickup_apply(t: Table, act: Pickup, out: Outcome, way_out: WayOut) -> None:
    """A pickup action: the pile's top card melded (with the action's melds), the rest of the
    pile to the hand, red threes in it laid out."""
    key, pile_cards, used = check_pickup(t, act)
    rules = t.rules
    top = t.discard[-1]
    rest = t.discard[:-1]
    bonus = [c for c in rest if rules.is_bonus_three(c)]
    incoming = [c for c in rest if not rules.is_bonus_three(c)]
    lay(
        t,
        out,
        new_melds=[list(m) for m in act.melds],
        adds=[],
        pile=(key, pile_cards),
        used=used,
        incoming=incoming,
        way_out=way_out,
    )
    _pile_taken(t, out, rest=rest, top=top, bonus=bonus)


def _pile_taken(t: Table, out: Outcome, *, rest: list[Card], top: Card, bonus: list[Card]) -> None:
    """After the lay: the pile is empty, its red threes are out, the player plays on (or has
    gone out with the pickup)."""
    seat = t.turn
    t.discard = []
    for card in bonus:
        # docs/rules.md#the-discard-pile: red threes in the pile are laid out without replacement.
        lay_out_red_three(t, seat, card, out)
    out.events.append({"type": "pickup", "seat": seat, "cards": [*rest, top]})
    if not t.over:
        t.phase = "play"
        if not t.hands[seat]:
            go_out(t, out)
