"""Applying actions to a table: the rules of a turn (classic.md §4-§10, variants.md).

`apply` never changes the table it is given: it works on a copy and returns it,
so a rejected action changes nothing (table-json.md, "Each action is all or nothing").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import Action, Answer, AskPartner, Discard, Draw, Meld, Pickup, parse_action
from .cards import Card, is_wild, missing_cards
from .errors import EngineError, IllegalActionError
from .melds import canasta_kind, cards_value, check_meld, meld_key
from .table import Table

Event = dict[str, Any]


@dataclass
class Outcome:
    """The table after an action and what happened, in order.

    Events with a ``"private"`` seat carry cards only that seat may see; every
    other event is public (see `view.public_events`).
    """

    table: Table
    events: list[Event] = field(default_factory=list)


def _err(code: str, message: str) -> IllegalActionError:
    return IllegalActionError(code, message)


def apply(table: Table, seat: int, action: Action | Mapping[str, Any]) -> Outcome:
    """Validate ``action`` by ``seat`` and return the new table; raises EngineError."""
    act = parse_action(action)
    if table.over:
        raise _err("hand_over", "the hand is over")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < table.players:
        raise _err("invalid_action", f"no seat {seat!r} at this table")
    if seat != table.turn:
        raise _err("not_your_turn", f"it is seat {table.turn}'s turn, not seat {seat}'s")
    t = table.copy()
    out = Outcome(t)
    if isinstance(act, Draw):
        _draw(t, out)
    elif isinstance(act, Pickup):
        _pickup(t, act, out)
    elif isinstance(act, Meld):
        _meld(t, act, out)
    elif isinstance(act, Discard):
        _discard(t, act, out)
    elif isinstance(act, AskPartner):
        _ask(t, out)
    else:
        _answer(t, act, out)
    return out


def is_legal(table: Table, seat: int, action: Action | Mapping[str, Any]) -> bool:
    try:
        apply(table, seat, action)
    except EngineError:
        return False
    return True


# --- facts about a table -------------------------------------------------------


def minimum(t: Table, side: int) -> int:
    """The side's initial-meld minimum now, 0 once it has melded (classic.md §8)."""
    if t.melds[side]:
        return 0
    return t.rules.minimum_for_score(t.scores[side])


def canastas(t: Table, side: int) -> int:
    return sum(1 for key, cards in t.melds[side].items() if canasta_kind(key, cards))


def pile_frozen(t: Table, side: int) -> bool:
    """Frozen for ``side`` (classic.md §7; party's wild-card freeze; tiles always needs a pair)."""
    rules = t.rules
    if rules.freeze == "none":
        return False
    if rules.freeze == "always":
        return True
    if rules.freeze == "classic" and not t.melds[side]:
        return True
    return any(rules.freezes_pile(c, t.settings) for c in t.discard)


def _hand(t: Table) -> list[Card]:
    return t.hands[t.turn]


def _check_in_hand(hand: Sequence[Card], cards: Sequence[Card]) -> None:
    missing = missing_cards(hand, cards)
    if missing:
        raise _err("card_not_in_hand", f"not in hand (or not often enough): {' '.join(missing)}")


def _require_phase(t: Table, *phases: str) -> None:
    if t.phase not in phases:
        wanted = " or ".join(phases)
        raise _err("wrong_phase", f"phase is {t.phase}; this action needs phase {wanted}")


# --- draw ------------------------------------------------------------------------


def _draw(t: Table, out: Outcome) -> None:
    _require_phase(t, "draw")
    seat = t.turn
    if not t.stock:
        # classic.md §10 / variants.md (tiles): the stock has run out.
        if t.rules.stock_out == "classic" and must_take_pile(t, seat):
            raise _err(
                "stock_empty", "the stock is empty and the top card fits a meld: take the pile"
            )
        out.events.append({"type": "stock_out", "seat": seat})
        _end_hand(t, out, "stock_exhausted", None)
        return
    drawn: list[Card] = []
    for _ in range(t.rules.draws(t.players)):
        if not t.stock:
            break
        card = t.stock.pop(0)
        while t.rules.is_bonus_three(card):
            # classic.md §4, §6: laid out at once and replaced from the stock.
            _lay_out_red_three(t, seat, card, out)
            if not t.stock:
                # classic.md §6: a red three as the last card ends the hand at once.
                if drawn:
                    out.events.append(
                        {"type": "draw", "seat": seat, "private": seat, "cards": drawn}
                    )
                _end_hand(t, out, "red_three_last", None)
                return
            card = t.stock.pop(0)
        drawn.append(card)
        t.hands[seat].append(card)
    out.events.append({"type": "draw", "seat": seat, "private": seat, "cards": drawn})
    t.phase = "play"


def _lay_out_red_three(t: Table, seat: int, card: Card, out: Outcome) -> None:
    t.red_threes[t.side_of(seat)].append(card)
    out.events.append({"type": "red_three", "seat": seat, "card": card})


# --- taking the pile -----------------------------------------------------------------


def _pickup(t: Table, act: Pickup, out: Outcome) -> None:
    _require_phase(t, "draw")
    rules = t.rules
    seat = t.turn
    side = t.side_of(seat)
    if not t.discard:
        raise _err("pile_empty", "the discard pile is empty")
    top = t.discard[-1]
    if rules.is_pile_blocker(top, t.settings):
        raise _err("pile_blocked", f"{top} on top of the pile blocks it")
    hand = _hand(t)
    cards = list(act.cards) if act.cards is not None else []
    used = cards + [c for m in act.melds for c in m]
    _check_in_hand(hand, used)
    side_melds = t.melds[side]
    if rules.pile_needs_side_melded and not side_melds:
        raise _err(
            "cannot_take_pile", "your side must make its initial meld before taking the pile"
        )
    if not t.stock and rules.stock_out == "tiles":
        # variants.md (tiles): once the last tile is drawn the round ends; nobody takes the pile.
        raise _err("cannot_take_pile", "the stock is exhausted: the round is over (draw to end it)")
    if len(hand) == 1 and len(t.discard) == 1:
        raise _err("cannot_take_pile", "with one card in hand you may not take a pile of one card")
    key = top[0]
    frozen = pile_frozen(t, side)
    naturals = sum(1 for c in cards if c[0] == key and not is_wild(c))
    if act.cards is None:
        if not rules.top_card_alone:
            raise _err(
                "cannot_take_pile", f"{top} alone may not take the pile; meld it with two cards"
            )
        if key not in side_melds:
            raise _err("no_such_meld", f"your side has no {key} meld to add {top} to")
        if frozen:
            raise _err("pile_frozen", f"the pile is frozen: take it with a natural pair of {key}")
    elif rules.freeze == "party" and frozen and key in side_melds:
        raise _err(
            "pile_frozen",
            "a frozen pile may be taken only by starting a new meld with the top card",
        )
    elif rules.freeze == "always" and naturals < 2:
        # tiles: the pile is never frozen, but taking it always needs a natural pair.
        raise _err("cannot_take_pile", f"taking the pile needs a natural pair of {key} ({top})")
    elif frozen and rules.freeze != "party" and naturals < 2:
        raise _err("pile_frozen", f"the pile is frozen: you need a natural pair of {key} ({top})")
    elif not rules.top_card_alone and not (naturals >= 2 or (naturals and len(cards) > naturals)):
        # family: two naturals, or one natural and one wild card, melded with the top card.
        raise _err(
            "cannot_take_pile", f"take {top} with two natural cards or one natural and one wild"
        )
    pile_cards = [top, *cards]
    if meld_key(rules, pile_cards) != key:
        raise _err("invalid_meld", f"{' '.join(cards)} do not meld with {top}")
    rest = t.discard[:-1]
    bonus = [c for c in rest if rules.is_bonus_three(c)]
    incoming = [c for c in rest if not rules.is_bonus_three(c)]
    _lay(
        t,
        out,
        new_melds=[list(m) for m in act.melds],
        adds=[],
        pile=(key, pile_cards),
        used=used,
        incoming=incoming,
    )
    t.discard = []
    for card in bonus:
        # classic.md §7: red threes in the pile are laid out without replacement.
        _lay_out_red_three(t, seat, card, out)
    out.events.append({"type": "pickup", "seat": seat, "cards": [*rest, top]})
    if not t.over:
        t.phase = "play"
        if not t.hands[seat]:
            _go_out(t, out)


# --- melding ----------------------------------------------------------------------------


def _meld(t: Table, act: Meld, out: Outcome) -> None:
    _require_phase(t, "play")
    used = [c for m in act.melds for c in m] + [c for _, cards in act.add for c in cards]
    _check_in_hand(_hand(t), used)
    _lay(
        t,
        out,
        new_melds=[list(m) for m in act.melds],
        adds=[(k, list(c)) for k, c in act.add],
        pile=None,
        used=used,
        incoming=[],
    )
    if not t.hands[t.turn]:
        _go_out(t, out)


def _lay(
    t: Table,
    out: Outcome,
    *,
    new_melds: list[list[Card]],
    adds: list[tuple[str, list[Card]]],
    pile: tuple[str, list[Card]] | None,
    used: list[Card],
    incoming: list[Card],
) -> None:
    """Lay melds and additions for the current player, all or nothing (classic.md §5, §8, §9)."""
    rules = t.rules
    seat = t.turn
    side = t.side_of(seat)
    before = t.melds[side]
    had_melded = bool(before)
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
            raise _err(
                "invalid_meld", f"your side already has a {key} meld: add {' '.join(cards)} to it"
            )
        melds[key] = list(cards)
        changed.append(key)
        started.append(key)
        laid_value += cards_value(rules, cards)
    for key, cards in adds:
        if key not in melds:
            raise _err("no_such_meld", f"your side has no {key} meld to add {' '.join(cards)} to")
        if any(meld_key(rules, [c]) not in (key,) for c in cards if not is_wild(c)):
            raise _err("invalid_meld", f"{' '.join(cards)} do not belong to the {key} meld")
        melds[key] = melds[key] + cards
        if key not in changed:
            changed.append(key)
        laid_value += cards_value(rules, cards)
    remaining = list(t.hands[seat])
    for card in used:
        remaining.remove(card)
    remaining += incoming
    canasta_count = sum(1 for k, c in melds.items() if canasta_kind(k, c))
    may_go_out = canasta_count >= rules.canastas_needed(t.players) and t.go_out is not False
    # Black threes meld only by a player going out (classic.md §5): at most one card left.
    going_out = may_go_out and len(remaining) <= 1
    for key in changed:
        check_meld(rules, key, melds[key], going_out=going_out)
    if not had_melded:
        need = rules.minimum_for_score(t.scores[side])
        if laid_value < need:
            raise _err(
                "initial_meld_too_low",
                f"your side's first meld must be worth {need}; these cards are worth {laid_value}",
            )
    if not remaining:
        if not may_go_out:
            raise _err("cannot_go_out", _why_not_out(t, canasta_count))
        if rules.final_discard_required:
            raise _err("cannot_go_out", f"in {rules.name} you must go out with a discard")
    elif len(remaining) == 1 and not may_go_out:
        raise _err(
            "must_keep_card", "you may not go out, so keep two cards: one to discard, one to keep"
        )
    if t.go_out is True and remaining and not _can_still_go_out(t, melds, remaining):
        raise _err("must_go_out", "your partner said yes: this would leave you unable to go out")
    # Concealed going out (classic.md §9; party: the side's first meld).
    fresh = (not had_melded) if rules.concealed_scope == "side" else not t.melded[seat]
    continuing = t.concealed_melds is not None
    own = set(started) | set(t.concealed_melds or [])
    clean = all(key in own for key in changed)
    t.concealed_melds = (
        (list(t.concealed_melds or []) + started) if (fresh or continuing) and clean else None
    )
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


def _why_not_out(t: Table, canasta_count: int) -> str:
    need = t.rules.canastas_needed(t.players)
    if t.go_out is False:
        return "your partner said no: you may not go out this turn"
    return f"going out needs {need} canasta{'s' if need > 1 else ''}; your side has {canasta_count}"


def _can_still_go_out(t: Table, melds: dict[str, list[Card]], remaining: list[Card]) -> bool:
    from .goingout import find_going_out

    probe = t.copy()
    probe.melds[t.side_of(t.turn)] = melds
    probe.hands[t.turn] = list(remaining)
    probe.melded[t.turn] = True
    return find_going_out(probe) is not None


# --- discarding and the end of a turn -----------------------------------------------------


def _discard(t: Table, act: Discard, out: Outcome) -> None:
    _require_phase(t, "play", "discard")
    seat = t.turn
    hand = t.hands[seat]
    _check_in_hand(hand, [act.card])
    if len(hand) == 1:
        canasta_count = canastas(t, t.side_of(seat))
        if canasta_count < t.rules.canastas_needed(t.players) or t.go_out is False:
            raise _err("cannot_go_out", _why_not_out(t, canasta_count))
    elif t.go_out is True:
        raise _err("must_go_out", "your partner said yes: you must go out this turn")
    hand.remove(act.card)
    t.discard.append(act.card)
    out.events.append({"type": "discard", "seat": seat, "card": act.card})
    if not hand:
        _go_out(t, out)
        return
    _next_turn(t, out)


def _next_turn(t: Table, out: Outcome) -> None:
    t.concealed_melds = None
    t.go_out = None
    t.turn = (t.turn + 1) % t.players
    t.phase = "draw"
    # classic.md §10: the hand ends when the player cannot take the pile;
    # tiles: the round ends after the turn of the player who drew the last tile.
    if not t.stock and (t.rules.stock_out == "tiles" or not can_take_pile(t, t.turn)):
        out.events.append({"type": "stock_out", "seat": t.turn})
        _end_hand(t, out, "stock_exhausted", None)


def _go_out(t: Table, out: Outcome) -> None:
    seat = t.turn
    side = t.side_of(seat)
    concealed = bool(
        t.rules.concealed_extra
        and t.concealed_melds is not None
        and any(canasta_kind(k, t.melds[side][k]) for k in t.concealed_melds)
    )
    _end_hand(t, out, "went_out", seat, concealed=concealed)


def _end_hand(
    t: Table, out: Outcome, reason: str, went_out: int | None, *, concealed: bool = False
) -> None:
    t.phase = "over"
    t.go_out = None
    t.concealed_melds = None
    t.asked_by = None
    t.ended = {"reason": reason, "went_out": went_out, "concealed": concealed}
    out.events.append({"type": "hand_over", **t.ended})


# --- "may I go out?" (classic.md §13) --------------------------------------------------------


def _ask(t: Table, out: Outcome) -> None:
    if not t.settings.get("ask_partner"):
        raise _err("invalid_action", "this table does not use the ask_partner option")
    _require_phase(t, "play")
    if t.go_out is not None:
        raise _err("wrong_phase", "you have already asked your partner this turn")
    partners = t.partners(t.turn)
    if not partners:
        raise _err("invalid_action", "you have no partner to ask")
    if len(t.hands[t.turn]) < 2:
        # With one card left a "no" would leave no legal way to end the turn.
        raise _err("wrong_phase", "ask before you are down to your last card")
    from .goingout import find_going_out

    if find_going_out(t) is None:
        raise _err("cannot_go_out", "ask only when you can go out this turn")
    out.events.append({"type": "ask_partner", "seat": t.turn})
    t.asked_by = t.turn
    t.turn = partners[0]
    t.phase = "answer"


def _answer(t: Table, act: Answer, out: Outcome) -> None:
    if not t.settings.get("ask_partner"):
        raise _err("invalid_action", "this table does not use the ask_partner option")
    _require_phase(t, "answer")
    assert t.asked_by is not None
    out.events.append({"type": "answer", "seat": t.turn, "yes": act.yes})
    t.turn = t.asked_by
    t.asked_by = None
    t.phase = "play"
    t.go_out = act.yes


# --- the stock runs out (classic.md §10) ----------------------------------------------------


def can_take_pile(t: Table, seat: int) -> bool:
    from .legal import pickup_actions

    return bool(pickup_actions(t, seat))


def must_take_pile(t: Table, seat: int) -> bool:
    """Stock empty, pile not frozen for the side and its top card fits a side meld."""
    side = t.side_of(seat)
    if not t.discard or pile_frozen(t, side):
        return False
    top = t.discard[-1]
    if t.rules.is_pile_blocker(top, t.settings) or top[0] not in t.melds[side]:
        return False
    return can_take_pile(t, seat)


def used_counts(action: Action) -> Counter[Card]:
    """Hand cards an action names (for callers that check hands themselves)."""
    if isinstance(action, Pickup):
        return Counter(list(action.cards or ()) + [c for m in action.melds for c in m])
    if isinstance(action, Meld):
        return Counter(
            [c for m in action.melds for c in m] + [c for _, cs in action.add for c in cs]
        )
    if isinstance(action, Discard):
        return Counter([action.card])
    return Counter()
