"""Rule sets as data: one frozen `RuleSet` per variant plus a few hooks.

docs/rules.md is the reference; docs/variants.md describes family, party and tiles as
differences from it. Everything that differs between variants is a field here,
so the play code in `play.py` is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import (
    JOKER,
    Card,
    canonical_deck,
    is_black_three,
    is_red_three,
    is_three,
    is_two,
    is_wild,
)
from .errors import InvalidTableError

INF = float("inf")


@dataclass(frozen=True)
class Option:
    """A table option: its default and what it may be."""

    name: str
    default: Any
    choices: tuple[Any, ...] = ()
    kind: str = "choice"  # "choice", "bool" or "int"
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""

    def check(self, value: Any) -> Any:
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise InvalidTableError(f"option {self.name} must be true or false, got {value!r}")
        elif self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidTableError(f"option {self.name} must be an integer, got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise InvalidTableError(f"option {self.name} must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise InvalidTableError(f"option {self.name} must be at most {self.maximum}")
        elif value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise InvalidTableError(f"option {self.name} must be one of {allowed}, got {value!r}")
        return value

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.kind, "default": self.default}
        if self.choices:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        out["help"] = self.help
        return out


SEATING = Option(
    "seating",
    "draw",
    ("draw", "invitation", "random"),
    help="how players are seated before hand 1",
)


def classic_value(card: Card) -> int:
    """Card points (docs/rules.md#cards-and-their-values); red threes score only as bonus cards."""
    if card == JOKER:
        return 50
    r = card[0]
    if r in "2A":
        return 20
    if r in "KQJT98":
        return 10
    if r in "7654":
        return 5
    return 0 if is_red_three(card) else 5


def tiles_value(card: Card) -> int:
    """Tile points (docs/variants.md#tiles): 1 = 25, black/blue threes cost 100 in hand."""
    if card == JOKER:
        return 50
    r = card[0]
    if r == "A":
        return 25
    if r == "2":
        return 20
    if r in "TJQK":
        return 10
    if r == "3":
        return 0 if is_red_three(card) else 100
    return 5


def _classic_max_wilds(naturals: int) -> int:
    # docs/rules.md#melds: at most 3 wild cards and never more wild than natural.
    return min(3, naturals)


def _strict_majority_max_wilds(naturals: int) -> int:
    # family: strictly more naturals than wilds, no other limit.
    return naturals - 1


def _strict_majority_three_max_wilds(naturals: int) -> int:
    # party and tiles: strictly more naturals than wilds, at most 3 wilds.
    return min(3, naturals - 1)


def _classic_upcard_covered(card: Card) -> bool:
    # docs/rules.md#the-deal: a joker, a 2 or any three is covered.
    return is_wild(card) or is_three(card)


def _red_or_wild_covered(card: Card) -> bool:
    # family / party: a 2, a joker or a red three is covered; a black three stays.
    return is_wild(card) or is_red_three(card)


def _minimum_from(table: tuple[tuple[float, int], ...]) -> Callable[[int], int]:
    def minimum(score: int) -> int:
        for bound, value in table:
            if score < bound:
                return value
        raise AssertionError("unreachable: last bound is infinite")

    return minimum


@dataclass(frozen=True)
class RuleSet:
    name: str
    title: str
    seed_text: str
    summary: str
    player_counts: tuple[int, ...]
    packs: int
    jokers: int
    cards_dealt: Mapping[int, int]
    options: tuple[Option, ...]
    minimum_for_score: Callable[[int], int]
    max_wilds: Callable[[int], int]
    card_value: Callable[[Card], int]
    # Deal and draw.
    has_upcard: bool = True
    upcard_covered: Callable[[Card], bool] = _classic_upcard_covered
    first_player_extra_card: bool = False  # tiles: 15 for the first player, who only discards
    draw_count: Mapping[int, int] = field(default_factory=dict)  # players -> cards; default 1
    # Melds.
    joker_meld: bool = False  # party: a meld made only of wild cards ("W")
    twos_meld: bool = False  # tiles: a meld of 2s with at most 2 jokers ("2")
    black_three_meld_sizes: tuple[int, ...] = (3, 4)  # () where threes never meld
    # Bonuses.
    natural_canasta: int = 500
    mixed_canasta: int = 300
    joker_canasta: int = 0
    twos_canasta_clean: int = 0
    twos_canasta_dirty: int = 0
    red_three_each: int = 100
    red_three_all_four: int = 800
    going_out_bonus: int = 100
    concealed_extra: int = 100  # 0: no concealed bonus
    concealed_scope: str = "player"  # "player" (docs/rules.md#going-out) or "side" (party)
    canastas_to_go_out: Mapping[int, int] = field(default_factory=dict)  # default 1
    final_discard_required: bool = False  # tiles: going out must end with a discard
    # The discard pile.
    freeze: str = "classic"  # "classic", "none", "party" or "always" (tiles)
    pile_needs_side_melded: bool = False  # family, party
    top_card_alone: bool = True  # taking the pile by adding only the top card to a meld
    stock_out: str = "classic"  # "classic" (docs/rules.md#when-the-stock-runs-out) or "tiles"
    # The match.
    match_rule: str = "target"  # "target" (>=), "above" (>), "tiles" (rounds or 10,000)

    # --- derived facts -------------------------------------------------------

    def deck(self) -> list[Card]:
        return canonical_deck(self.packs, self.jokers)

    def sides(self, players: int) -> int:
        """Number of sides: seats s and s + sides are partners (docs/variants.md#party)."""
        return players if players <= 3 else players // 2

    def hand_size(self, players: int) -> int:
        return self.cards_dealt[players]

    def draws(self, players: int) -> int:
        return self.draw_count.get(players, 1)

    def canastas_needed(self, players: int) -> int:
        return self.canastas_to_go_out.get(players, 1)

    def option(self, name: str) -> Option | None:
        for opt in self.options:
            if opt.name == name:
                return opt
        return None

    def resolve_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults filled in; unknown names or values are an invalid table."""
        if not isinstance(given, Mapping):
            raise InvalidTableError("options must be an object")
        known = {opt.name for opt in self.options}
        for key in given:
            if key not in known:
                raise InvalidTableError(f"unknown option {key!r} for variant {self.name}")
        return {opt.name: opt.check(given.get(opt.name, opt.default)) for opt in self.options}

    def describe(self) -> dict[str, Any]:
        """The listing the API serves for GET /variants/."""
        return {
            "name": self.name,
            "title": self.title,
            "summary": self.summary,
            "players": list(self.player_counts),
            "deck_size": len(self.deck()),
            "cards_dealt": {str(k): v for k, v in self.cards_dealt.items()},
            "options": [opt.describe() for opt in self.options],
        }

    def is_pile_blocker(self, card: Card, options: Mapping[str, Any]) -> bool:
        """A top card that can never be taken (docs/rules.md#the-discard-pile, docs/variants.md)."""
        if self.freeze == "none":
            # family: a 2, a joker or a black three on top blocks the pile.
            return is_wild(card) or is_black_three(card)
        return is_wild(card) or is_three(card)

    def freezes_pile(self, card: Card, options: Mapping[str, Any]) -> bool:
        """Does this card, anywhere in the pile, freeze it? (docs/rules.md#the-discard-pile)."""
        if self.freeze == "classic":
            if is_wild(card) or is_red_three(card):
                return True
            return is_black_three(card) and options.get("black_three", "freeze") == "freeze"
        if self.freeze == "party":
            return is_wild(card) or is_red_three(card)
        return False

    def is_bonus_three(self, card: Card) -> bool:
        return is_red_three(card)

    def is_twos_meld_card(self, card: Card) -> bool:
        return self.twos_meld and (is_two(card) or card == JOKER)
