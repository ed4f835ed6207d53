"""The four rule sets the product serves (docs/rules.md, docs/variants.md)."""

from __future__ import annotations

from typing import Any

from .errors import InvalidTableError
from .rules import (
    INF,
    SEATING,
    Option,
    RuleSet,
    _classic_max_wilds,
    _minimum_from,
    _red_or_wild_covered,
    _strict_majority_max_wilds,
    _strict_majority_three_max_wilds,
    classic_value,
    tiles_value,
)

TARGET = Option(
    "target",
    5000,
    kind="int",
    minimum=100,
    maximum=100000,
    help="points that end the match",
)

CLASSIC = RuleSet(
    name="classic",
    title="Classic Canasta",
    seed_text="000_14b24217bb3073ea.txt, 001_aa72cd18c6414e01.txt",
    summary="108 cards, 2 or 4 players, 11 cards (15 for two), match to 5,000",
    player_counts=(2, 4),
    packs=2,
    jokers=4,
    cards_dealt={2: 15, 4: 11},
    options=(
        SEATING,
        Option(
            "black_three",
            "freeze",
            ("freeze", "stop"),
            help="freeze: a black three freezes the pile (seed); stop: it only blocks the next player",
        ),
        TARGET,
        Option(
            "ask_partner",
            False,
            kind="bool",
            help='"may I go out?": the partner\'s yes/no binds',
        ),
    ),
    minimum_for_score=_minimum_from(((0, 15), (1500, 50), (3000, 90), (INF, 120))),
    max_wilds=_classic_max_wilds,
    card_value=classic_value,
    draw_count={2: 2},
    canastas_to_go_out={2: 2},
)

FAMILY = RuleSet(
    name="family",
    title="Family Canasta",
    seed_text="003_1022bee35332d067.txt",
    summary="2 or 4 players, 11 cards, 2s and black 3s block the pile, no freezing",
    player_counts=(2, 4),
    packs=2,
    jokers=4,
    cards_dealt={2: 11, 4: 11},
    options=(SEATING, TARGET),
    minimum_for_score=_minimum_from(((0, 15), (1500, 50), (3000, 90), (INF, 120))),
    max_wilds=_strict_majority_max_wilds,
    card_value=classic_value,
    upcard_covered=_red_or_wild_covered,
    freeze="none",
    pile_needs_side_melded=True,
    top_card_alone=False,
)

PARTY = RuleSet(
    name="party",
    title="Party Canasta",
    seed_text="002_924730430636b72c.txt",
    summary="110 cards (6 jokers), 2-6 players in at most 3 parties, 700/500 canastas, "
    "joker canasta 1,000",
    player_counts=(2, 3, 4, 6),
    packs=2,
    jokers=6,
    cards_dealt={2: 15, 3: 13, 4: 12, 6: 12},
    options=(
        SEATING,
        Option(
            "target",
            5000,
            kind="int",
            minimum=100,
            maximum=100000,
            help="the match ends when a side has more than this",
        ),
    ),
    minimum_for_score=_minimum_from(((1500, 50), (3000, 90), (INF, 120))),
    max_wilds=_strict_majority_three_max_wilds,
    card_value=classic_value,
    upcard_covered=_red_or_wild_covered,
    joker_meld=True,
    black_three_meld_sizes=(4,),
    natural_canasta=700,
    mixed_canasta=500,
    joker_canasta=1000,
    concealed_scope="side",
    freeze="party",
    pile_needs_side_melded=True,
    match_rule="above",
)

TILES = RuleSet(
    name="tiles",
    title="Canasta with tiles",
    seed_text="004_271d19c52460311b.txt",
    summary="106 tiles, 14 each (15 for the first player), twos canastas, threshold 150 at "
    "7,000, match to 10,000 or a fixed number of rounds",
    player_counts=(4,),
    packs=2,
    jokers=2,
    cards_dealt={4: 14},
    options=(
        SEATING,
        Option(
            "match",
            "to_10000",
            ("one_round", "three_rounds", "to_10000"),
            help="1 round, 3 rounds, or first to 10,000 (a tie adds a round)",
        ),
    ),
    minimum_for_score=_minimum_from(((0, 15), (1500, 50), (3000, 90), (7000, 120), (INF, 150))),
    max_wilds=_strict_majority_three_max_wilds,
    card_value=tiles_value,
    has_upcard=False,
    first_player_extra_card=True,
    twos_meld=True,
    black_three_meld_sizes=(),
    twos_canasta_clean=1000,
    twos_canasta_dirty=700,
    red_three_all_four=400,
    concealed_extra=0,
    final_discard_required=True,
    freeze="always",
    top_card_alone=False,
    stock_out="tiles",
    match_rule="tiles",
)

VARIANTS: dict[str, RuleSet] = {r.name: r for r in (CLASSIC, FAMILY, PARTY, TILES)}


def get_rules(name: object) -> RuleSet:
    if not isinstance(name, str) or name not in VARIANTS:
        raise InvalidTableError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")
    return VARIANTS[name]


def list_variants() -> list[dict[str, Any]]:
    """Every variant with its parameters and options, as the API serves it."""
    return [rules.describe() for rules in VARIANTS.values()]
