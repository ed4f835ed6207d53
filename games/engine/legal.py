"""Legal-action enumeration for bots and user interfaces.

Meld actions can combine any number of melds, so they are not listed
exhaustively: `legal_actions` lists every draw/pickup way, each single new
meld (with all naturals of its rank and 0..max wild cards), each single
addition, a combined initial meld when one is needed, a way to go out when
there is one, and every discard. `is_legal` answers for any action at all.

Each candidate is decided by the rules directly (`allowed`: the pile rules
of `pile.check_pickup` and the meld rules of `laying.plan_lay`, which the move
itself runs too), without a trial `apply` and so without copying the table.
`trial_legal_actions` is the old enumeration, every candidate accepted by a
trial `play.apply`; it is kept as the test oracle (tests/engine/test_legal_fast.py
asserts both give the same actions on random positions of every variant).
See docs/engine-speed.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .cards import (
    BLACK_THREE_KEY,
    BLACK_THREES,
    JOKER,
    JOKER_MELD_KEY,
    TWOS_KEY,
    Card,
    count_naturals,
    is_two,
)
from .errors import EngineError
from .goingout import could_go_out
from .laying import plan_lay
from .melds import CANASTA_SIZE
from .pickups import allowed_pickup, best_melds, hand_groups, pickup_actions
from .pile import check_pile_reachable, check_pile_takeable, pile_frozen
from .play import apply, canastas, find_going_out, is_legal, minimum, must_take_pile
from .table import Table
from .turn import check_in_hand, require_phase

ActionJSON = dict[str, Any]
# Decides whether the seat to act may play a candidate action now.
Accept = Callable[[Table, ActionJSON], bool]


@dataclass
class LegalActions:
    """What a seat may do now, in groups; `actions()` lists them as action JSON.

    It is also a sequence of the same actions in the same order: ``len(legal)`` counts them
    and ``legal[i]`` builds only the i-th (equal to ``legal.actions()[i]``), so a caller
    that picks one (a random choice, a playout) does not build the JSON of the others.
    """

    seat: int
    draw: bool = False
    pickups: list[ActionJSON] = field(default_factory=list)
    melds: list[ActionJSON] = field(default_factory=list)
    adds: list[ActionJSON] = field(default_factory=list)
    going_out: list[ActionJSON] = field(default_factory=list)
    discards: list[Card] = field(default_factory=list)
    ask_partner: bool = False
    answers: list[ActionJSON] = field(default_factory=list)

    # Not generated: compiled, the dataclass's own __init__ stays interpreted (table.Table).
    def __init__(
        self,
        seat: int,
        draw: bool = False,
        pickups: list[ActionJSON] | None = None,
        melds: list[ActionJSON] | None = None,
        adds: list[ActionJSON] | None = None,
        going_out: list[ActionJSON] | None = None,
        discards: list[Card] | None = None,
        ask_partner: bool = False,
        answers: list[ActionJSON] | None = None,
    ) -> None:
        self.seat = seat
        self.draw = draw
        self.pickups = [] if pickups is None else pickups
        self.melds = [] if melds is None else melds
        self.adds = [] if adds is None else adds
        self.going_out = [] if going_out is None else going_out
        self.discards = [] if discards is None else discards
        self.ask_partner = ask_partner
        self.answers = [] if answers is None else answers

    def actions(self) -> list[ActionJSON]:
        out: list[ActionJSON] = []
        if self.draw:
            out.append({"type": "draw"})
        out += self.pickups + self.melds + self.adds
        out += [{"type": "discard", "card": c} for c in self.discards]
        if self.ask_partner:
            out.append({"type": "ask_partner"})
        return out + self.answers

    def __iter__(self) -> Iterator[ActionJSON]:
        return iter(self.actions())

    def __len__(self) -> int:
        return (
            self.draw
            + len(self.pickups)
            + len(self.melds)
            + len(self.adds)
            + len(self.discards)
            + self.ask_partner
            + len(self.answers)
        )

    def __getitem__(self, index: int) -> ActionJSON:
        """``self.actions()[index]``, building that action only."""
        i = index + len(self) if index < 0 else index
        if i < 0:
            raise IndexError("legal action index out of range")
        if self.draw:
            if i == 0:
                return {"type": "draw"}
            i -= 1
        for group in (self.pickups, self.melds, self.adds):
            if i < len(group):
                return group[i]
            i -= len(group)
        if i < len(self.discards):
            return {"type": "discard", "card": self.discards[i]}
        i -= len(self.discards)
        if self.ask_partner:
            if i == 0:
                return {"type": "ask_partner"}
            i -= 1
        if i < len(self.answers):
            return self.answers[i]
        raise IndexError("legal action index out of range")

    def count(self) -> int:
        return len(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "draw": self.draw,
            "pickups": self.pickups,
            "melds": self.melds,
            "adds": self.adds,
            "going_out": self.going_out,
            "discards": self.discards,
            "ask_partner": self.ask_partner,
            "answers": self.answers,
        }


def legal_actions(t: Table, seat: int | None = None) -> LegalActions:
    """What ``seat`` (default: the seat to act) may do now."""
    return _enumerate(t, seat, allowed)


def trial_legal_actions(t: Table, seat: int | None = None) -> LegalActions:
    """`legal_actions` decided by trial moves: the slow oracle the tests compare with."""
    return _enumerate(t, seat, _accepted)


def _enumerate(t: Table, seat: int | None, accept: Accept) -> LegalActions:
    seat = t.turn if seat is None else seat
    legal = LegalActions(seat=seat)
    if t.over or seat != t.turn:
        return legal
    if t.phase == "draw":
        if accept is _accepted:
            legal.draw = _accepted(t, {"type": "draw"})
        else:
            legal.draw = bool(t.stock) or not must_take_pile(t, seat)
        # The fast pickup check is pickups' own; the oracle is passed in.
        legal.pickups = pickup_actions(t, seat, accept=None if accept is allowed else accept)
    elif t.phase == "answer":
        legal.answers = [{"type": "answer", "yes": True}, {"type": "answer", "yes": False}]
    elif t.phase == "discard":
        legal.discards = legal_discards(t)
    elif t.phase == "play":
        hand = t.hands[seat]
        groups, wilds, threes = hand_groups(t, hand)
        legal.melds, legal.adds = _meld_actions(t, accept, groups, wilds, threes)
        out = None
        if t.go_out is not False:
            out = find_going_out(t, could=_could(t, accept, groups, wilds, threes))
        if out:
            legal.going_out = out
            if out[0]["type"] == "meld" and out[0] not in legal.melds + legal.adds:
                legal.melds.append(out[0])
        legal.discards = legal_discards(t)
        if accept is _accepted:
            legal.ask_partner = is_legal(t, seat, {"type": "ask_partner"})
        else:
            # play._ask: the option, not asked yet, a partner, two cards, a way out now.
            legal.ask_partner = (
                bool(t.settings.get("ask_partner"))
                and t.go_out is None
                and bool(out)
                and bool(t.partners(seat))
                and len(t.hands[seat]) >= 2
            )
    return legal


def _accepted(t: Table, action: ActionJSON) -> bool:
    """The oracle: a trial move (parse, copy the table, play it)."""
    try:
        apply(t, t.turn, action)
    except EngineError:
        return False
    return True


def allowed(t: Table, action: ActionJSON) -> bool:
    """The rules of a pickup or meld candidate, checked without copying the table.

    Candidates are built here from the hand, well formed and for the seat to act, so
    what `apply` checks before its copy (parse, seat, turn) holds already.
    """
    if action["type"] == "pickup":
        try:
            check_pile_reachable(t)
            check_pile_takeable(t)
        except EngineError:
            return False
        return allowed_pickup(t, action, pile_frozen(t, t.side_of(t.turn)))

    try:
        require_phase(t, "play")
        melds = [list(m) for m in action.get("melds", ())]
        adds = [(k, list(v)) for k, v in action.get("add", {}).items()]
        used = [c for m in melds for c in m] + [c for _, cs in adds for c in cs]
        check_in_hand(t.hands[t.turn], used)
        plan_lay(
            t,
            new_melds=melds,
            adds=adds,
            pile=None,
            used=used,
            incoming=[],
            way_out=find_going_out,
        )
    except EngineError:
        return False
    return True


def legal_discards(t: Table) -> list[Card]:
    """Legal discards, decided without trial moves (play._discard has the same rules)."""
    hand = t.hands[t.turn]
    if t.phase == "play" and len(hand) == 1:
        side = t.side_of(t.turn)
        if canastas(t, side) < t.rules.canastas_needed(t.players) or t.go_out is False:
            return []
    elif t.phase == "play" and t.go_out is True:
        return []
    return list(dict.fromkeys(hand))


def _could(
    t: Table, accept: Accept, groups: dict[str, list[Card]], wilds: list[Card], threes: int
) -> bool | None:
    """The going-out search's quick test from the hand as `hand_groups` counted it (its
    black threes: red threes never stay in a hand); the oracle lets the search count for
    itself."""
    if accept is not allowed:
        return None
    side = t.melds[t.side_of(t.turn)]
    loose = 0
    counts: dict[str, int] = {}
    for rank, cards in groups.items():
        n = len(cards)
        if n == 1 and rank not in side:
            loose += 1
            if loose > 1:
                return False  # could_go_out's first test: two loose cards (threes add more)
        counts[rank] = n
    return could_go_out(t, counts, len(wilds), threes)


def _meld_actions(
    t: Table, accept: Accept, groups: dict[str, list[Card]], wilds: list[Card], threes: int
) -> tuple[list[ActionJSON], list[ActionJSON]]:
    hand = t.hands[t.turn]
    # One new natural meld or one addition: counted (_SingleLay); anything else: allowed.
    single = _SingleLay(t) if accept is allowed and t.go_out is not True else None
    melds: list[ActionJSON] = []
    if single is not None:
        melds = single.new_naturals(groups, wilds)
        candidates = _other_new_melds(t, wilds, threes, single)
    else:
        candidates = _new_meld_candidates(t, groups, wilds, threes)
    for cards in candidates:
        action = {"type": "meld", "melds": [cards]}
        if accept(t, action):
            melds.append(action)
    need = minimum(t, t.side_of(t.turn))
    if need and not melds:
        extra = best_melds(t, hand, need, exclude=set())
        if extra:
            action = {"type": "meld", "melds": extra}
            if accept(t, action):
                melds.append(action)
    return melds, _add_actions(t, accept, single, groups, wilds)


def _new_meld_candidates(
    t: Table, groups: dict[str, list[Card]], wilds: list[Card], threes: int
) -> list[list[Card]]:
    """Each single new meld the hand can make: of one natural rank, then the others."""
    candidates = [cards + wilds[:k] for cards, k in _natural_shapes(t, groups, wilds)]
    return candidates + _other_new_melds(t, wilds, threes, None)


def _other_new_melds(
    t: Table, wilds: list[Card], threes: int, single: _SingleLay | None
) -> list[list[Card]]:
    """Each single new meld of no natural rank: wild cards, twos, black threes (``threes``
    in hand). With ``single`` (the rules decide, not the oracle), black threes that would
    leave two cards or more are not listed: they meld only by a player going out."""
    rules = t.rules
    hand = t.hands[t.turn]
    side = t.melds[t.side_of(t.turn)]
    candidates: list[list[Card]] = []
    if rules.joker_meld and JOKER_MELD_KEY not in side and len(wilds) >= 3:
        candidates.append(wilds[:3])
        if len(wilds) > 3:
            candidates.append(list(wilds))
    if rules.twos_meld and TWOS_KEY not in side:
        twos = [c for c in hand if is_two(c)]
        jokers = [c for c in hand if c == "JK"]
        if len(twos) >= 3:
            candidates.append(twos)
        if len(twos) >= 2 and jokers:
            candidates.append(twos + jokers[: min(2, len(twos) - 1)])
    # Counted first: most hands hold no black three, and the list is built only to meld it.
    if threes in rules.black_three_meld_sizes and (single is None or len(hand) - threes <= 1):
        candidates.append([c for c in hand if c in BLACK_THREES])
    return candidates


def _natural_shapes(
    t: Table, groups: dict[str, list[Card]], wilds: list[Card]
) -> Iterator[tuple[list[Card], int]]:
    """Each new meld of one natural rank: all the hand's naturals of a rank the side has not
    melded, with the first k wild cards (0..the limit, 3 cards at least)."""
    max_wilds = t.rules.max_wilds
    side = t.melds[t.side_of(t.turn)]
    for rank, cards in groups.items():
        if rank in side or len(cards) < 2:
            continue
        for k in range(0, min(len(wilds), max_wilds(len(cards))) + 1):
            if len(cards) + k >= 3:
                yield cards, k


def _add_actions(
    t: Table,
    accept: Accept,
    single: _SingleLay | None,
    groups: dict[str, list[Card]],
    wilds: list[Card],
) -> list[ActionJSON]:
    """Each single addition to a side meld: one natural, all its naturals, or one wild."""
    distinct_wilds = list(dict.fromkeys(wilds))
    if single is not None:
        return single.additions(groups, distinct_wilds)
    adds: list[ActionJSON] = []
    for key in t.melds[t.side_of(t.turn)]:
        options: list[list[Card]] = []
        if key == BLACK_THREE_KEY:
            continue
        if key not in (JOKER_MELD_KEY, TWOS_KEY):
            nat = groups.get(key, [])
            options += [[c] for c in dict.fromkeys(nat)]
            if len(nat) > 1:
                options.append(list(nat))
        options += [[w] for w in distinct_wilds]
        for cards in options:
            addition: ActionJSON = {"type": "meld", "add": {key: cards}}
            if accept(t, addition):
                adds.append(addition)
    return adds


class _SingleLay:
    """`laying.plan_lay` for one new meld of one natural rank, or one addition, by counting.

    Only for the candidates `_meld_actions` builds: cards from the hand, a rank the side
    has not melded (new) or a side meld with its own naturals or one wild card (add), new
    melds within the wild-card limit. Not used after a binding "yes" (go_out True), where
    plan_lay searches for the way out that must remain.
    """

    def __init__(self, t: Table) -> None:
        rules = t.rules
        side = t.side_of(t.turn)
        self.t = t
        self.rules = rules
        self.melds = t.melds[side]
        self.hand_size = len(t.hands[t.turn])
        self.max_wilds = rules.max_wilds
        self.refused = t.go_out is False
        self.minimum = minimum(t, side)

    def _ends_well(self, laid: int, grew: int) -> bool:
        """plan_lay's end of turn: go out only with the canastas, keep a card to discard.
        ``grew``: canastas the lay makes."""
        remaining = self.hand_size - laid
        if remaining > 1:
            return True
        canastas_after = canastas(self.t, self.t.side_of(self.t.turn)) + grew
        may_go_out = canastas_after >= self.rules.canastas_needed(self.t.players)
        may_go_out = may_go_out and not self.refused
        if remaining == 0:
            return may_go_out and not self.rules.final_discard_required
        return may_go_out

    def new_naturals(self, groups: dict[str, list[Card]], wilds: list[Card]) -> list[ActionJSON]:
        """Each new meld of one natural rank (`_natural_shapes`) that may be laid: its value
        against the initial minimum, the cards left."""
        need = self.minimum
        if need:
            return self._new_naturals_to_reach(groups, wilds, need)
        # _natural_shapes, inlined: this runs on every legal_actions in phase play.
        out: list[ActionJSON] = []
        side = self.melds
        max_wilds = self.max_wilds
        keeps = self.hand_size - 1  # a meld smaller than this leaves two cards or more
        for rank, cards in groups.items():
            n = len(cards)
            if n < 2 or rank in side:
                continue
            for k in range(0 if n >= 3 else 1, min(len(wilds), max_wilds(n)) + 1):
                size = n + k
                if size < keeps or self._ends_well(size, size >= CANASTA_SIZE):
                    out.append({"type": "meld", "melds": [cards + wilds[:k]]})
        return out

    def _new_naturals_to_reach(
        self, groups: dict[str, list[Card]], wilds: list[Card], need: int
    ) -> list[ActionJSON]:
        """`new_naturals` for a side that has not melded: each meld's value against the
        initial minimum ``need`` too."""
        value = self.rules.card_value
        wild_values = [0]  # the value of the first k wild cards
        for w in wilds:
            wild_values.append(wild_values[-1] + value(w))
        out: list[ActionJSON] = []
        values: dict[str, int] = {}
        for cards, k in _natural_shapes(self.t, groups, wilds):
            natural = values.get(cards[0])
            if natural is None:
                natural = values[cards[0]] = sum(map(value, cards))
            if natural + wild_values[k] < need:
                continue
            size = len(cards) + k
            if self._ends_well(size, size >= CANASTA_SIZE):
                out.append({"type": "meld", "melds": [cards + wilds[:k]]})
        return out

    def additions(self, groups: dict[str, list[Card]], wilds: list[Card]) -> list[ActionJSON]:
        """`_add_actions` by counting: each side meld's verdict depends only on how many
        naturals or which wild card is added, so it is decided once per meld."""
        adds: list[ActionJSON] = []
        for key, before in self.melds.items():
            nat = groups.get(key)
            if not nat and not wilds:
                continue  # nothing in hand to add to this meld
            if key == BLACK_THREE_KEY:
                continue
            if key in (JOKER_MELD_KEY, TWOS_KEY):
                adds += self._wild_additions(key, before, wilds)
                continue
            naturals = count_naturals(before)
            if nat:
                if self._fits(before, naturals + 1, 1):
                    adds += [{"type": "meld", "add": {key: [c]}} for c in dict.fromkeys(nat)]
                if len(nat) > 1 and self._fits(before, naturals + len(nat), len(nat)):
                    adds.append({"type": "meld", "add": {key: list(nat)}})
            if wilds and self._fits(before, naturals, 1):
                adds += [{"type": "meld", "add": {key: [w]}} for w in wilds]
        return adds

    def _grows(self, before: list[Card], added: int) -> int:
        """1 when adding ``added`` cards makes the meld a canasta."""
        return int(len(before) < CANASTA_SIZE <= len(before) + added)

    def _fits(self, before: list[Card], naturals: int, added: int) -> bool:
        """``added`` cards onto the natural meld ``before``, leaving it ``naturals`` naturals."""
        if len(before) + added - naturals > self.max_wilds(naturals):
            return False
        return self.hand_size - added > 1 or self._ends_well(added, self._grows(before, added))

    def _wild_additions(self, key: str, before: list[Card], wilds: list[Card]) -> list[ActionJSON]:
        """One wild card onto the joker meld or the twos meld (at most 2 jokers, fewer than
        the 2s)."""
        if not wilds or not self._ends_well(1, self._grows(before, 1)):
            return []
        jokers = before.count(JOKER)
        size = len(before) + 1
        out: list[ActionJSON] = []
        for w in wilds:
            j = jokers + (w == JOKER)
            if key == TWOS_KEY and (j > 2 or j >= size - j):
                continue
            out.append({"type": "meld", "add": {key: [w]}})
        return out
