"""Finding a way to go out now (for "may I go out?" and for bots).

Each way out it builds (a meld, then maybe a discard) is checked by the rules the moves
run, without a trial move: the ``lay_check`` it is given (play.find_going_out passes
`laying.plan_lay`'s check) for the meld, and the discard's one rule (the side's canastas).
Given an ``apply`` (play.apply) instead, it checks by trial moves: the test oracle
(tests/engine/test_legal_fast.py asserts both find the same way out). Both are handed in, so
this module does not depend on the rules of a turn it checks against.

Constructive: the answer is a list of actions that the engine accepts, so
a "yes" never leaves a player without a legal way to finish (docs/rules.md, "May I go out?").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .cards import (
    BLACK_THREE_KEY,
    BLACK_THREES,
    JOKER,
    JOKER_MELD_KEY,
    TWOS_KEY,
    Card,
    count_naturals,
    is_black_three,
    is_wild,
)
from .errors import EngineError
from .melds import CANASTA_SIZE
from .table import Table
from .turn import Outcome, canastas

# play.apply's shape: (table, seat, action) -> Outcome.
Apply = Callable[[Table, int, dict[str, Any]], Outcome]
# laying.plan_lay for a meld from the hand: (table, new melds, additions, hand cards used);
# raises EngineError unless the meld may be laid.
LayCheck = Callable[[Table, list[list[Card]], list[tuple[str, list[Card]]], list[Card]], object]


def _wild_order(cards: list[Card], rules_value: Any) -> list[Card]:
    # Cheap wild cards first, so jokers are kept for where they are needed.
    return sorted(cards, key=rules_value)


def _sorted_rest(rest: list[Card]) -> tuple[dict[str, list[Card]], list[Card], list[Card]]:
    """The hand left to lay: naturals by rank, wild cards, black threes."""
    naturals: dict[str, list[Card]] = {}
    wilds: list[Card] = []
    threes: list[Card] = []
    for card in rest:
        if is_black_three(card):
            threes.append(card)
        elif is_wild(card):
            wilds.append(card)
        else:
            naturals.setdefault(card[0], []).append(card)
    return naturals, wilds, threes


_Laid = dict[str, list[Card]]


def _natural_melds(
    t: Table, side: Mapping[str, list[Card]], naturals: _Laid, threes: list[Card]
) -> tuple[_Laid, _Laid] | None:
    """(new melds, additions) of the natural cards and black threes, before any wild card;
    None when a card has nowhere to go."""
    new: _Laid = {}
    add: _Laid = {}
    for rank, cards in naturals.items():
        if rank in side:
            add[rank] = list(cards)
        elif len(cards) >= 2:
            new[rank] = list(cards)
        else:
            return None
    if threes:
        if len(threes) not in t.rules.black_three_meld_sizes:
            return None
        new["3"] = threes
    return new, add


def _laid(side: Mapping[str, list[Card]], new: _Laid, add: _Laid, rank: str) -> list[Card]:
    return side.get(rank, []) + new.get(rank, []) + add.get(rank, [])


def _room(t: Table, cards: list[Card]) -> int:
    """How many more wild cards a meld of ``cards`` takes."""
    nat = count_naturals(cards)
    return t.rules.max_wilds(nat) - (len(cards) - nat)


def _place_wilds(
    t: Table,
    side: Mapping[str, list[Card]],
    new: _Laid,
    add: _Laid,
    wilds: list[Card],
    prefer_big: bool,
) -> bool:
    """Spend ``wilds`` (cheap first): complete the new pairs, fill the melds (the biggest, or
    those nearest a canasta, first), the rest to a joker meld. False when one is left over."""
    for rank in [r for r in new if r != "3" and len(new[r]) == 2]:
        if not wilds or _room(t, _laid(side, new, add, rank)) < 1:
            return False
        new[rank].append(wilds.pop(0))
    ranks = [r for r in list(side) + list(new) if r not in ("3", "2", JOKER_MELD_KEY)]
    ranks.sort(
        key=lambda r: (
            -len(_laid(side, new, add, r)) if prefer_big else abs(7 - len(_laid(side, new, add, r)))
        )
    )
    for rank in ranks:
        while wilds and _room(t, _laid(side, new, add, rank)) > 0:
            (new[rank] if rank in new else add.setdefault(rank, [])).append(wilds.pop(0))
    if not wilds:
        return True
    if JOKER_MELD_KEY in side:
        add.setdefault(JOKER_MELD_KEY, []).extend(wilds)
    elif t.rules.joker_meld and len(wilds) >= 3:
        new[JOKER_MELD_KEY] = wilds
    else:
        return False
    return True


def _plan(t: Table, rest: list[Card], prefer_big: bool) -> dict[str, Any] | None:
    """A meld action that lays all of ``rest``, or None."""
    side = t.melds[t.side_of(t.turn)]
    naturals, wilds, threes = _sorted_rest(rest)
    melds = _natural_melds(t, side, naturals, threes)
    if melds is None:
        return None
    new, add = melds
    if not _place_wilds(t, side, new, add, _wild_order(wilds, t.rules.card_value), prefer_big):
        return None
    action: dict[str, Any] = {"type": "meld"}
    if new:
        action["melds"] = list(new.values())
    if add:
        action["add"] = {k: v for k, v in add.items() if v}
    return action


def going_out_search(
    t: Table,
    apply: Apply | None = None,
    *,
    lay_check: LayCheck | None = None,
    could: bool | None = None,
) -> list[dict[str, Any]] | None:
    """Actions (a meld, then maybe a discard) with which the current player goes out now,
    checked by ``lay_check`` (or, given ``apply``, by trial moves: the oracle). ``could``:
    `could_go_out`, when the caller has it."""
    if (apply is None) == (lay_check is None):
        raise ValueError("going_out_search checks with apply or with lay_check, one of them")
    if t.phase != "play" or t.over:
        return None
    if not (_could_go_out(t) if could is None else could):
        return None
    probe = t.fork()
    probe.go_out = None  # look for any way out, whatever was answered
    hand = probe.hands[probe.turn]
    discards: list[Card | None] = list(dict.fromkeys(hand))
    if not t.rules.final_discard_required:
        discards.insert(0, None)
    shape = _Shape(t)
    for discard in discards:
        if shape.plan_fails(discard):
            continue  # _plan would answer None: skip building it
        rest = list(hand)
        if discard is not None:
            rest.remove(discard)
        for prefer_big in (True, False):
            steps: list[dict[str, Any]] = []
            if rest:
                meld = _plan(probe, rest, prefer_big)
                if meld is None:
                    break
                steps.append(meld)
            if discard is not None:
                steps.append({"type": "discard", "card": discard})
            if lay_check is not None:
                if _lays_out(probe, steps[0] if rest else None, discard, lay_check):
                    return steps
            elif apply is not None and _plays_out(probe, steps, apply):
                return steps
    return None


class _Shape:
    """The hand's natural ranks, wild cards and black threes, to tell which discards `_plan`
    refuses without building its plan."""

    def __init__(self, t: Table) -> None:
        rules = t.rules
        self.side = t.melds[t.side_of(t.turn)]
        self.sizes = rules.black_three_meld_sizes
        self.max_wilds = rules.max_wilds
        # Wild cards left over can go to a joker meld the side has or may start.
        self.joker_meld = JOKER_MELD_KEY in self.side or rules.joker_meld
        self.counts: dict[str, int] = {}
        self.threes = self.wilds = 0
        for card in t.hands[t.turn]:
            if card == JOKER or card[0] == "2":
                self.wilds += 1
            elif card in BLACK_THREES:
                self.threes += 1
            else:
                self.counts[card[0]] = self.counts.get(card[0], 0) + 1
        self.loose = sum(1 for r, n in self.counts.items() if n == 1 and r not in self.side)
        # The side's natural melds (what _plan adds wild cards to): naturals and wilds in each.
        self.melded: dict[str, tuple[int, int]] = {}
        for key, cards in self.side.items():
            if key not in (BLACK_THREE_KEY, TWOS_KEY, JOKER_MELD_KEY):
                naturals = count_naturals(cards)
                self.melded[key] = (naturals, len(cards) - naturals)

    def plan_fails(self, discard: Card | None) -> bool:
        """True when `_plan` returns None for the hand without ``discard``.

        _plan refuses a rest with a natural rank the side has not melded held once, a
        number of black threes that does not meld, more new pairs than wild cards (each
        pair takes one), or wild cards left over when every meld has taken what it may and
        no joker meld takes the rest.
        """
        natural = discard is not None and discard != JOKER and discard[0] != "2"
        threes = self.threes - (natural and discard in BLACK_THREES)
        if threes and threes not in self.sizes:
            return True
        counts = self.counts
        if discard is None or not natural or discard in BLACK_THREES:
            if self.loose > 0:
                return True
        else:
            rank = discard[0]
            left = counts[rank] - 1
            loose = self.loose - (left == 0 and rank not in self.side)
            loose += left == 1 and rank not in self.side
            if loose > 0:
                return True
            counts = dict(counts)
            counts[rank] = left
        wilds = self.wilds - (discard is not None and not natural)
        return self._wilds_fail(counts, wilds)

    def _wilds_fail(self, counts: dict[str, int], wilds: int) -> bool:
        """_plan's wild cards: one to each new pair, then as many as each meld may take
        (the total does not depend on the order it fills them in), the rest to a joker meld
        of at least 3."""
        max_wilds = self.max_wilds
        room = pairs = 0
        for rank, n in counts.items():
            if rank not in self.side and n >= 2:
                pairs += n == 2
                room += max(0, max_wilds(n) - (n == 2))
        if pairs and (pairs > wilds or max_wilds(2) < 1):
            return True
        for key, (naturals, wild) in self.melded.items():
            room += max(0, max_wilds(naturals + counts.get(key, 0)) - wild)
        leftover = wilds - pairs - room
        if leftover <= 0:
            return False
        if JOKER_MELD_KEY in self.side:
            return False
        return not (self.joker_meld and leftover >= 3)


def _could_go_out(t: Table) -> bool:
    """A quick necessary condition, so that most positions need no search."""
    counts: dict[str, int] = {}
    wilds = threes = 0
    for card in t.hands[t.turn]:  # one pass: this runs on every legal_actions in phase play
        if card == JOKER or card[0] == "2":
            wilds += 1
        elif card in BLACK_THREES:
            threes += 1
        else:
            counts[card[0]] = counts.get(card[0], 0) + 1
    return could_go_out(t, counts, wilds, threes)


def could_go_out(t: Table, counts: Mapping[str, int], wilds: int, threes: int) -> bool:
    """`_could_go_out` from the hand's counts (natural cards by rank, wild cards, black
    threes), for a caller that has counted the hand already (legal.py)."""
    rules = t.rules
    side = t.melds[t.side_of(t.turn)]
    loose = sum(1 for rank, n in counts.items() if n == 1 and rank not in side)
    if threes and threes not in rules.black_three_meld_sizes:
        loose += threes
    if loose > 1:  # one loose card can be the discard
        return False
    have = sum(1 for cards in side.values() if len(cards) >= CANASTA_SIZE)
    need = rules.canastas_needed(t.players)
    if have >= need:
        return True
    sizes = {
        rank: len(side.get(rank, [])) + counts.get(rank, 0) for rank in set(side) | set(counts)
    }
    reachable = sum(1 for size in sizes.values() if size + wilds >= CANASTA_SIZE)
    return have + reachable >= need


def _lays_out(
    t: Table, meld: dict[str, Any] | None, discard: Card | None, lay_check: LayCheck
) -> bool:
    """Whether the meld (all the hand but ``discard``), then the discard, go out: the checks
    of `plan_lay` (``lay_check``) and of play._discard, without playing them.

    The meld uses every card but ``discard`` (going_out_search's ``rest``), so plan_lay
    leaves ``[discard]`` or nothing. Nothing left: plan_lay allowed going out, and the
    meld goes out. One card left: plan_lay allowed it only if the side may go out, which is
    the discard's one rule with one card in hand. ``t.go_out`` is None (the probe).
    """
    if meld is None:
        if discard is None:
            return False  # nothing to play: not a way out
        return canastas(t, t.side_of(t.turn)) >= t.rules.canastas_needed(t.players)
    new_melds: list[list[Card]] = meld.get("melds", [])
    adds = list(meld.get("add", {}).items())
    if not _enough_canastas(t, new_melds, adds):
        return False  # plan_lay refuses to leave one card or none without them
    used = [c for m in new_melds for c in m] + [c for _, cs in adds for c in cs]
    try:
        lay_check(t, new_melds, adds, used)
    except EngineError:
        return False
    return True


def _enough_canastas(
    t: Table, new_melds: list[list[Card]], adds: list[tuple[str, list[Card]]]
) -> bool:
    """The side has the canastas to go out after the meld, counted as plan_lay counts them
    when it accepts the meld (new melds then start keys the side does not have)."""
    side = t.melds[t.side_of(t.turn)]
    sizes = {key: len(cards) for key, cards in side.items()}
    for key, cards in adds:
        sizes[key] = sizes.get(key, 0) + len(cards)
    have = sum(1 for size in sizes.values() if size >= CANASTA_SIZE)
    have += sum(1 for cards in new_melds if len(cards) >= CANASTA_SIZE)
    return have >= t.rules.canastas_needed(t.players)


def _plays_out(t: Table, steps: list[dict[str, Any]], apply: Apply) -> bool:
    table = t
    try:
        for step in steps:
            table = apply(table, table.turn, step).table
    except EngineError:
        return False
    return table.over and table.ended is not None and table.ended.get("reason") == "went_out"
