"""The `basic` bot: a sensible heuristic player, the way a careful beginner plays.

Draw: take the pile when it is legal and worth it (a pile of two or more cards,
or the top card joins a meld), else draw. Play: go out when it can; make the
initial meld as soon as it reaches the minimum; lay triples, add naturals to
the side's melds, spend wild cards to complete canastas; keep natural pairs
(they take the pile); discard the least useful card, preferring black threes
(they block) and avoiding cards the next opponent could take the pile with.

The policy reads only its own seat's hand and the public parts of the table,
so it runs on a table sampled from a player view (sampling.py) and, inside
the strong bot's rollouts, on a fully sampled table.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from games.engine import (
    EngineError,
    Table,
    apply,
    find_going_out,
    is_legal,
    legal_actions,
    minimum,
    pile_frozen,
)
from games.engine.cards import is_black_three, is_two, is_wild
from games.engine.rules import RuleSet

from .analysis import (
    HandShape,
    canasta_count,
    hand_points,
    legal_discards,
    next_seat,
    opponents,
    p_at_least,
    room_for_wilds,
    shape,
    side_table_score,
    unseen_rank_counts,
)
from .memory import BotMemory
from .sampling import Sampler

Action = dict[str, Any]
Card = str


@dataclass(frozen=True)
class Style:
    """Knobs of the heuristic player; `basic` plays the defaults."""

    take_min_pile: int = 2  # take the pile when it has at least this many cards
    ask_partner: bool = True  # ask "may I go out?" before going out (ask_partner tables)
    danger_weight: float = 1.0  # how much feeding the next opponent counts in a discard
    freeze_at: int = 99  # pile size from which a wild card is discarded to freeze it
    answer_yes_below: int = 150  # answer "yes" when own hand is worth less than this
    dump_wilds_at: int = 4  # lay wild cards on melds when holding this many or more
    keep_cards: int = 5  # start new melds only while this many cards stay in hand
    out_canastas: int = 1  # go out once the side has this many canastas (or the hand is ending)
    hold_threes_below: int = 0  # keep black threes as safe discards while the pile is smaller
    endgame_cards: int = 0  # an opponent with this few cards may go out: shed points
    infer: bool = False  # read "no pair" from the next player's discards and passes
    shed_with_canasta: bool = False  # lay every meld once the side may go out
    wild_canastas: int = 99  # complete canastas with wild cards while the side has fewer
    partner_cards: int = 0  # the partner may go out holding this few: shed points (0: off)
    # Issue 31 (bots9), measuring knobs, off by default:
    initial_left: int = 3  # cards that stay in hand after the initial meld, at least
    initial_left_below: int = 999  # ... while the minimum is under this (else 3)
    unmelded_keep: float = 0.0  # extra worth of a natural pair or more before a 90+ initial meld
    wild_pickup_min: int = 0  # spend wild cards taking the pile only from this many cards
    unmelded_danger: float = 0.0  # danger weight before a 90+ initial meld (0: danger_weight)


BASIC_STYLE = Style()

# Chance that the next player can take the pile after ``seat`` discards ``card``:
# (table, seat, card, memory, unseen counts) -> probability (belief.Belief.danger).
Danger = Callable[[Table, int, Card, BotMemory | None, tuple[Any, int]], float]


Melds = dict[str, list[Card]]


@dataclass
class _MeldSteps:
    """The meld steps chosen so far, and the side's melds and hand as they would be after them."""

    sizes: dict[str, int]
    naturals: dict[str, int]
    left: int
    wilds: list[Card]
    parts: list[Action] = field(default_factory=list)

    def add_naturals(self, melds: Melds, sh: HandShape) -> None:
        """Every natural card whose rank the side has melded goes to its meld."""
        for rank, cards in sh.groups.items():
            if rank in melds:
                self.parts.append({"type": "meld", "add": {rank: list(cards)}})
                self.sizes[rank] += len(cards)
                self.naturals[rank] += len(cards)
                self.left -= len(cards)

    def lay_wild_melds(self, rules: RuleSet, melds: Melds) -> None:
        """A twos meld of three 2s, a joker meld of four wild cards, or wild cards to the
        side's joker meld, where the variant has them."""
        if rules.twos_meld and "2" not in melds:
            twos = [c for c in self.wilds if is_two(c)]
            if len(twos) >= 3:
                self.parts.append({"type": "meld", "melds": [twos]})
                self.wilds = [c for c in self.wilds if not is_two(c)]
        if rules.joker_meld and "W" not in melds and len(self.wilds) >= 4:
            self.parts.append({"type": "meld", "melds": [self.wilds]})
            self.wilds = []
        if "W" in melds and self.wilds and rules.joker_meld and len(self.wilds) >= 2:
            self.parts.append({"type": "meld", "add": {"W": list(self.wilds)}})
            self.wilds = []

    def wild_room(self, t: Table, melds: Melds, key: str) -> int:
        """How many wild cards the meld of ``key`` takes after the steps so far."""
        size, nat = self.sizes[key], self.naturals[key]
        room = max(0, t.rules.max_wilds(nat) - (size - nat))
        if key in melds:
            room = min(room, room_for_wilds(t, key, melds[key]) + (size - len(melds[key])))
        return room

    def dump_wilds(self, t: Table, melds: Melds) -> None:
        """Too many wild cards in hand: all but one to the biggest meld of four or more."""
        for key in sorted(melds, key=lambda k: -self.sizes.get(k, 0)):
            room = room_for_wilds(t, key, melds[key])
            if key not in ("2", "3") and room > 0 and self.sizes.get(key, 0) >= 4:
                use = self.wilds[: min(room, len(self.wilds) - 1)]
                if use:
                    self.parts.append({"type": "meld", "add": {key: use}})
                break


class BasicPolicy:
    """One action for the seat to move on a (sampled) table.

    ``danger`` replaces the heuristic's formula (`take_chance`) for how likely a
    discard lets the next player take the pile; None keeps the formula.
    """

    def __init__(self, style: Style = BASIC_STYLE, danger: Danger | None = None) -> None:
        self.style = style
        self.danger = danger

    # --- dispatch ---------------------------------------------------------------

    def act(self, t: Table, memory: BotMemory | None = None) -> Action:
        seat = t.turn
        if t.phase == "answer":
            return {"type": "answer", "yes": self.answer(t, seat)}
        if t.phase == "discard":
            return self.discard(t, seat, memory)
        if t.phase == "draw":
            return self.draw(t, seat, memory)
        if t.phase == "play":
            return self.play(t, seat, memory)
        raise ValueError(f"no action in phase {t.phase}")

    # --- draw -------------------------------------------------------------------

    def draw(self, t: Table, seat: int, memory: BotMemory | None) -> Action:
        if t.stock and not _pile_in_reach(t, seat):
            return {"type": "draw"}
        legal = legal_actions(t, seat)
        pickups = legal.pickups
        can_draw = legal.draw
        if pickups:
            best = max(pickups, key=lambda a: pickup_preference(t, a))
            if not can_draw or self.takes_pile(t, seat, best):
                return best
        return {"type": "draw"}

    def takes_pile(self, t: Table, seat: int, pickup: Action) -> bool:
        if not t.stock:
            return True  # a draw would end the hand
        used = list(pickup.get("cards") or []) + [c for m in pickup.get("melds", []) for c in m]
        wilds = any(is_wild(c) for c in used)
        if len(t.discard) >= self.style.take_min_pile:
            return not wilds or len(t.discard) >= self.style.wild_pickup_min
        return not wilds and not pickup.get("melds")

    # --- play -------------------------------------------------------------------

    def play(self, t: Table, seat: int, memory: BotMemory | None) -> Action:
        if t.go_out is True:
            out = find_going_out(t)
            assert out is not None, "a binding yes always leaves a way out"
            return out[0]
        out = find_going_out(t) if t.go_out is not False else None
        if out and self.goes_out(t, seat, out):
            if self.asks(t, seat):
                return {"type": "ask_partner"}
            return out[0]
        step = self.meld_step(t, seat)
        if step is not None:
            return step
        return self.discard(t, seat, memory)

    def goes_out(self, t: Table, seat: int, out: list[Action]) -> bool:
        if self.style.out_canastas <= 1:
            return True
        side = t.side_of(seat)
        after = t
        for step in out:
            if step["type"] == "meld":
                try:
                    after = apply(after, seat, step).table
                except EngineError:
                    return True
        if canasta_count(after, side) >= self.style.out_canastas or len(t.stock) < 12:
            return True
        # The opponents close to going out: take the points now.
        for s in opponents(t, seat):
            if canasta_count(t, t.side_of(s)) and len(t.hands[s]) <= 4:
                return True
        return False

    def asks(self, t: Table, seat: int) -> bool:
        return bool(
            self.style.ask_partner
            and t.settings.get("ask_partner")
            and t.go_out is None
            and t.partners(seat)
            and len(t.hands[seat]) >= 2
            and is_legal(t, seat, {"type": "ask_partner"})
        )

    def answer(self, t: Table, seat: int) -> bool:
        """May my partner go out? Yes unless my own hand would cost too much."""
        own = hand_points(t, t.hands[seat])
        side = t.side_of(seat)
        ahead = side_table_score(t, side) - max(
            side_table_score(t, s) for s in range(t.sides) if s != side
        )
        return own < self.style.answer_yes_below or ahead > own

    # --- melding ----------------------------------------------------------------

    def meld_step(self, t: Table, seat: int) -> Action | None:
        side = t.side_of(seat)
        sh = shape(t, t.hands[seat])
        if not t.melds[side]:
            need = minimum(t, side)
            left = self.style.initial_left if need < self.style.initial_left_below else 3
            return initial_meld(t, seat, sh, need, left)
        parts = self.meld_parts(t, seat, sh)
        if not parts:
            return None
        combined = merge_parts(parts)
        if is_legal(t, seat, combined):
            return combined
        for part in parts:
            if is_legal(t, seat, part):
                return part
        return None

    def meld_parts(self, t: Table, seat: int, sh: HandShape) -> list[Action]:
        """Single meld steps worth making now, most useful first."""
        melds = t.melds[t.side_of(seat)]
        plan = _MeldSteps(
            sizes={key: len(cards) for key, cards in melds.items()},
            naturals={key: sum(1 for c in cards if not is_wild(c)) for key, cards in melds.items()},
            left=len(t.hands[seat]),
            wilds=list(sh.wilds),
        )
        plan.add_naturals(melds, sh)
        self._lay_triples(t, seat, melds, sh, plan)
        plan.lay_wild_melds(t.rules, melds)
        self._complete_canastas(t, seat, melds, plan)
        if len(plan.wilds) >= self.style.dump_wilds_at:
            plan.dump_wilds(t, melds)
        return plan.parts

    def _lay_triples(
        self, t: Table, seat: int, melds: Melds, sh: HandShape, plan: _MeldSteps
    ) -> None:
        """New melds of three or more naturals, the biggest first, while enough cards stay."""
        triples = sorted(
            ((r, cs) for r, cs in sh.groups.items() if r not in melds and len(cs) >= 3),
            key=lambda g: (-len(g[1]), g[0]),
        )
        for rank, cards in triples:
            if plan.left - len(cards) >= self.style.keep_cards or self.sheds(t, seat):
                plan.parts.append({"type": "meld", "melds": [list(cards)]})
                plan.sizes[rank] = plan.naturals[rank] = len(cards)
                plan.left -= len(cards)

    def _complete_canastas(self, t: Table, seat: int, melds: Melds, plan: _MeldSteps) -> None:
        """Wild cards complete canastas (a side needs one to go out), the biggest meld first."""
        have = canasta_count(t, t.side_of(seat))
        sizes = plan.sizes
        for key in sorted(sizes, key=lambda k: -sizes[k]):
            if key in ("2", "3", "W") or sizes[key] >= 7 or not plan.wilds:
                continue
            if have >= self.style.wild_canastas:
                break
            gap = 7 - sizes[key]
            if gap <= min(plan.wild_room(t, melds, key), len(plan.wilds)):
                use, plan.wilds = plan.wilds[:gap], plan.wilds[gap:]
                plan.parts.append({"type": "meld", "add": {key: use}})
                sizes[key] += gap
                have += 1

    def sheds(self, t: Table, seat: int) -> bool:
        """Lay everything: an opponent may go out soon, or this side may go out."""
        if points_at_risk(t, seat, self.style):
            return True
        need = t.rules.canastas_needed(t.players)
        return self.style.shed_with_canasta and canasta_count(t, t.side_of(seat)) >= need

    # --- discarding -------------------------------------------------------------

    def discard(self, t: Table, seat: int, memory: BotMemory | None) -> Action:
        options = legal_discards(t)
        if not options:
            out = find_going_out(t)
            assert out is not None, "a player who may not discard can go out"
            return out[0]
        costs = discard_costs(t, seat, options, memory, self.style, self.danger)
        best = min(options, key=lambda c: (costs[c], c))
        return {"type": "discard", "card": best}


# --- helpers shared with the strong bot -------------------------------------------


def _pile_in_reach(t: Table, seat: int) -> bool:
    """A quick necessary condition for taking the pile (it saves enumerating the ways)."""
    if not t.discard:
        return False
    top = t.discard[-1]
    if t.rules.is_pile_blocker(top, t.settings):
        return False
    if top[0] in t.melds[t.side_of(seat)]:
        return True
    return any(c[0] == top[0] and not is_wild(c) for c in t.hands[seat])


def pickup_preference(t: Table, action: Action) -> float:
    """Among ways to take the pile: spend no wild cards and few hand cards."""
    cards = list(action.get("cards") or [])
    extra = [c for m in action.get("melds", []) for c in m]
    used = cards + extra
    return -30.0 * sum(1 for c in used if is_wild(c)) - 3.0 * len(cards) - 1.0 * len(extra)


def merge_parts(parts: list[Action]) -> Action:
    melds: list[list[Card]] = []
    add: dict[str, list[Card]] = {}
    for part in parts:
        melds += [list(m) for m in part.get("melds", [])]
        for key, cards in part.get("add", {}).items():
            add.setdefault(key, []).extend(cards)
    action: Action = {"type": "meld"}
    if melds:
        action["melds"] = melds
    if add:
        action["add"] = add
    return action


def initial_meld(t: Table, seat: int, sh: HandShape, need: int, left: int = 3) -> Action | None:
    """The cheapest legal first meld reaching ``need`` (fewest wild cards and pairs) that
    leaves ``left`` cards in hand."""
    rules = t.rules
    groups = [(r, cs) for r, cs in sh.groups.items() if len(cs) >= 2]
    groups.sort(key=lambda g: (-len(g[1]), -rules.card_value(g[1][0]), g[0]))
    groups = groups[:7]
    twos = [c for c in sh.wilds if is_two(c)] if rules.twos_meld else []
    if len(twos) >= 3:
        groups.append(("2", twos))
    spare = len(t.hands[seat]) - left  # cards the melds may use
    found: list[tuple[float, Action]] = []
    for size in range(1, len(groups) + 1):
        for subset in combinations(groups, size):
            plan = _initial_plan(t, sh, subset, need, spare)
            if plan is not None:
                found.append(plan)
    found.sort(key=lambda p: p[0])
    for _, action in found[:6]:
        if is_legal(t, seat, action):
            return action
    return None


def _initial_plan(
    t: Table,
    sh: HandShape,
    subset: tuple[tuple[str, list[Card]], ...],
    need: int,
    room: int,
) -> tuple[float, Action] | None:
    rules = t.rules
    uses_twos = any(key == "2" for key, _ in subset)
    wilds = [c for c in sh.wilds if not (uses_twos and is_two(c))]
    melds: list[list[Card]] = []
    pairs = 0
    for key, cards in subset:
        meld = list(cards)
        if key != "2" and len(meld) == 2:
            if not wilds or rules.max_wilds(2) < 1:
                return None
            meld.append(wilds.pop(0))
            pairs += 1
        melds.append(meld)
    value = sum(rules.card_value(c) for m in melds for c in m)
    extra = 0
    spare = sorted(wilds, key=lambda c: -rules.card_value(c))
    while value < need and spare:
        card = spare.pop(0)
        for meld, (key, _) in zip(melds, subset, strict=True):
            if key != "2" and room_for_wilds(t, key, meld) > 0:
                meld.append(card)
                value += rules.card_value(card)
                extra += 1
                break
        else:
            return None
    if value < need:
        return None
    used = sum(len(m) for m in melds)
    if used > room:
        return None
    wild_count = sum(1 for m in melds for c in m if is_wild(c))
    cost = 30.0 * wild_count + 12.0 * pairs + 2.0 * used
    return cost, {"type": "meld", "melds": melds}


def pile_worth(t: Table, pile: list[Card]) -> float:
    """What the pile is worth to whoever takes it (cards are material for canastas)."""
    value = 0.0
    for c in pile:
        if c in ("3H", "3D"):
            value += 100
        else:
            value += 12 + t.rules.card_value(c) / 2
    return value


def pile_closed_after(t: Table, seat: int, card: Card) -> bool:
    """Whether the rules alone keep the next player from the pile after ``card``: a partner,
    a blocking card, a side that has not melded where the variant asks it, a last card facing
    an empty pile."""
    nxt = next_seat(t, seat)
    if t.side_of(nxt) == t.side_of(seat) or t.rules.is_pile_blocker(card, t.settings):
        return True
    if t.rules.pile_needs_side_melded and not t.melds[t.side_of(nxt)]:
        return True
    return len(t.hands[nxt]) == 1 and not t.discard


def _frozen_after(t: Table, opp_melds: Any, card: Card) -> bool:
    """Whether the pile is frozen for the opponent side once ``card`` is on it."""
    rules = t.rules
    if rules.freeze == "none":
        return False
    if rules.freeze == "always" or (rules.freeze == "classic" and not opp_melds):
        return True
    return any(rules.freezes_pile(c, t.settings) for c in [*t.discard, card])


@dataclass(frozen=True)
class _Unknown:
    """What the next player may hold of a rank: copies unseen, its hidden cards, the pool."""

    copies: int
    hidden: int
    pool: int


def _pair_chance(
    memory: BotMemory | None, nxt: int, rank: str, known_rank: int, unknown: _Unknown, infer: bool
) -> float:
    """Chance that the next player holds a natural pair of ``rank``."""
    copies, hidden, pool = unknown.copies, unknown.hidden, unknown.pool
    p_pair = 1.0 if known_rank >= 2 else p_at_least(2 - known_rank, copies, hidden, pool)
    if memory is None or known_rank >= 2:
        return p_pair
    if infer and rank in memory.evidence[nxt]:
        # It showed no pair of this rank; since then it drew ``since`` cards.
        since = memory.draws[nxt] - memory.evidence[nxt][rank]
        had_one = p_at_least(1, copies, max(0, hidden - since), pool)
        return min(
            p_pair,
            had_one * p_at_least(1, copies, since, pool) + p_at_least(2, copies, since, pool),
        )
    if rank in (c[0] for c in memory.discards[nxt]):
        return p_pair * 0.5
    return p_pair


def _unknown_of(
    t: Table, nxt: int, rank: str, memory: BotMemory | None, counts: tuple[Any, int]
) -> tuple[list[Card], int, _Unknown]:
    """The next player's cards the bot knows of, how many of them are naturals of ``rank``,
    and what is unknown."""
    ranks, pool = counts
    known = memory.known[nxt] if memory is not None else []
    known_rank = sum(1 for c in known if c[0] == rank and not is_wild(c))
    hidden = max(0, len(t.hands[nxt]) - len(known))
    return known, known_rank, _Unknown(max(0, ranks[rank] - known_rank), hidden, pool)


def _frozen_chance(t: Table, rank: str, opp_melds: Any, p_pair: float) -> float:
    if t.rules.freeze == "party" and rank in opp_melds:
        return 0.0
    if t.rules.freeze == "classic" and not opp_melds:
        return 0.5 * p_pair  # and it must reach the initial minimum
    return p_pair


def take_chance(
    t: Table,
    seat: int,
    card: Card,
    memory: BotMemory | None,
    counts: tuple[Any, int],
    infer: bool = False,
) -> float:
    """Chance that the next player (an opponent) can take the pile after ``card`` is discarded."""
    if pile_closed_after(t, seat, card):
        return 0.0
    nxt = next_seat(t, seat)
    opp_melds = t.melds[t.side_of(nxt)]
    rank = card[0]
    known, known_rank, unknown = _unknown_of(t, nxt, rank, memory, counts)
    p_pair = _pair_chance(memory, nxt, rank, known_rank, unknown, infer)
    if _frozen_after(t, opp_melds, card):
        return _frozen_chance(t, rank, opp_melds, p_pair)
    if t.rules.top_card_alone and rank in opp_melds:
        return 1.0
    hidden, pool = unknown.hidden, unknown.pool
    p_one = 1.0 if known_rank >= 1 else p_at_least(1, unknown.copies, hidden, pool)
    p_wild = 1.0 if any(is_wild(c) for c in known) else p_at_least(1, counts[0]["W"], hidden, pool)
    return p_pair + (1.0 - p_pair) * p_one * p_wild


def endgame(t: Table, seat: int, style: Style) -> bool:
    """Could an opponent go out soon? (its side has a canasta and it holds few cards)."""
    if not style.endgame_cards:
        return False
    need = t.rules.canastas_needed(t.players)
    return any(
        canasta_count(t, t.side_of(s)) >= need and len(t.hands[s]) <= style.endgame_cards
        for s in opponents(t, seat)
    )


def points_at_risk(t: Table, seat: int, style: Style) -> bool:
    """Could the hand end soon, this hand's cards counting against the side (an opponent or
    the partner may go out)?"""
    return endgame(t, seat, style) or partner_may_go_out(t, seat, style)


def partner_may_go_out(t: Table, seat: int, style: Style) -> bool:
    """Could the partner go out soon? (the side has its canastas and it holds few cards):
    the cards left in this hand would then count against the side."""
    if not style.partner_cards:
        return False
    side = t.side_of(seat)
    if canasta_count(t, side) < t.rules.canastas_needed(t.players):
        return False
    return any(0 < len(t.hands[p]) <= style.partner_cards for p in t.partners(seat))


def keep_value(t: Table, seat: int, card: Card, sh: HandShape, style: Style = BASIC_STYLE) -> float:
    """How much the hand loses by discarding ``card`` (before the opponents' side of it)."""
    rules = t.rules
    melds = t.melds[t.side_of(seat)]
    if is_wild(card):
        return 220.0 if card == "JK" else 200.0
    if is_black_three(card):
        # Black threes block the next player; in tiles they also cost 100 in hand.
        if rules.card_value(card) >= 100:
            return -200.0
        return 60.0 if len(t.discard) < style.hold_threes_below else -40.0
    rank = card[0]
    n = len(sh.groups.get(rank, []))
    if rank in melds:
        return 35.0
    if n >= 2 and style.unmelded_keep and not melds and minimum(t, t.side_of(seat)) >= 90:
        return (70.0 if n >= 3 else 50.0) + style.unmelded_keep
    if n >= 3:
        return 70.0
    if n == 2:
        return 50.0
    return 8.0 + rules.card_value(card) / 4


def _danger_weight(t: Table, seat: int, style: Style) -> float:
    """How much feeding the next opponent counts (``unmelded_danger`` before a 90+ meld)."""
    if style.unmelded_danger and minimum(t, t.side_of(seat)) >= 90:
        return style.unmelded_danger
    return style.danger_weight


def discard_costs(
    t: Table,
    seat: int,
    options: list[Card],
    memory: BotMemory | None,
    style: Style,
    danger: Danger | None = None,
) -> dict[Card, float]:
    """What discarding each card costs: its use to the hand, plus the chance that the
    next player takes the pile with it (``danger``, else the formula) times the pile's worth."""
    sh = shape(t, t.hands[seat])
    counts = unseen_rank_counts(t, seat)
    worth = pile_worth(t, [*t.discard, "4S"])
    costs: dict[Card, float] = {}
    shed = points_at_risk(t, seat, style)
    opponent = t.side_of(next_seat(t, seat))
    freezing = len(t.discard) + 1 >= style.freeze_at and not pile_frozen(t, opponent)
    weight = _danger_weight(t, seat, style)
    for card in options:
        cost = keep_value(t, seat, card, sh, style)
        if shed:
            cost -= t.rules.card_value(card)
        if danger is not None:
            chance = danger(t, seat, card, memory, counts)
        else:
            chance = take_chance(t, seat, card, memory, counts, style.infer)
        cost += weight * chance * worth
        if freezing and is_wild(card) and t.rules.freezes_pile(card, t.settings):
            cost -= worth  # freezing a big pile against the opponents
        costs[card] = cost
    return costs


class BasicBot:
    name = "basic"

    def __init__(self, style: Style = BASIC_STYLE) -> None:
        self.policy = BasicPolicy(style)

    def choose(self, view: dict[str, Any], memory: BotMemory | None, rng: random.Random) -> Action:
        if view.get("turn") != view.get("seat") or view.get("phase") == "over":
            raise ValueError("it is not this seat's turn")
        if memory is not None:
            memory.sync(view)
        # The policy reads only the seat's own hand and public facts (module docstring),
        # so the table rebuilt from the view serves; no hidden cards need dealing.
        t = Sampler(view, memory).base
        return self.policy.act(t, memory)
