"""One error family for everything the engine refuses (docs/formats.md#error-codes).

An error is raised with a *reason* and its parameters (`EngineError("pile_blocked",
card="3S")`), never with a sentence: `REASONS` gives each reason its stable `code` (the one
programs compare, from ERROR_CODES) and its English message. Sentences in other languages are
built from the reason and the same parameters (games/refusals.py), so nothing ever parses the
English back.

Parameters: `cards` is a list of card codes, `card` one code, `rank` a meld key; other lists
(`sizes`, `phases`) read as alternatives ("3 or 4").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Codes fixed by docs/formats.md, plus `invalid_table` for impossible tables and
# `must_go_out` for the binding "yes" of ask_partner (docs/engine-notes.md).
ERROR_CODES: frozenset[str] = frozenset(
    {
        "invalid_action",
        "invalid_table",
        "not_your_turn",
        "wrong_phase",
        "card_not_in_hand",
        "stock_empty",
        "pile_empty",
        "pile_blocked",
        "pile_frozen",
        "cannot_take_pile",
        "invalid_meld",
        "no_such_meld",
        "initial_meld_too_low",
        "cannot_go_out",
        "must_keep_card",
        "must_go_out",
        "hand_over",
    }
)


@dataclass(frozen=True)
class Reason:
    code: str
    english: str  # str.format template over the parameters (see english_params)


_ACTION = "invalid_action"
_MELD = "invalid_meld"
_PILE = "cannot_take_pile"

REASONS: Mapping[str, Reason] = {
    # --- the shape of an action (actions.py, cards.py, melds.parse_meld_key) ---
    "not_an_object": Reason(_ACTION, "an action must be a JSON object with a type"),
    "unknown_action_type": Reason(_ACTION, "unknown action type {kind!r}"),
    "unexpected_keys": Reason(_ACTION, "unexpected keys in {kind}: {keys}"),
    "melds_not_lists": Reason(_ACTION, "melds must be a list of lists of card codes"),
    "too_many_cards": Reason(_ACTION, "too many cards in one action"),
    "empty_pickup_cards": Reason(_ACTION, "pickup cards must name hand cards, or be left out"),
    "add_not_object": Reason(_ACTION, "add must be an object keyed by meld rank"),
    "add_twice": Reason(_ACTION, "add names the {rank} meld twice"),
    "add_no_cards": Reason(_ACTION, "add to {rank} names no cards"),
    "meld_action_empty": Reason(_ACTION, "a meld action needs melds or add"),
    "answer_not_bool": Reason(_ACTION, "answer needs yes: true or false"),
    "card_not_string": Reason(_ACTION, "card code must be a string, got {text!r}"),
    "unknown_card": Reason(_ACTION, "unknown card code {text!r}"),
    "cards_not_list": Reason(_ACTION, "{what} must be a list of card codes"),
    "meld_key_not_string": Reason(_ACTION, "meld key must be a string, got {text!r}"),
    "unknown_meld_key": Reason(_ACTION, "unknown meld key {text!r}"),
    # --- whose turn, which phase (play.py, turn.py) ---
    "hand_over": Reason("hand_over", "the hand is over"),
    "no_such_seat": Reason(_ACTION, "no seat {seat!r} at this table"),
    "not_your_turn": Reason("not_your_turn", "it is seat {turn}'s turn, not seat {seat}'s"),
    "wrong_phase": Reason("wrong_phase", "phase is {phase}; this action needs phase {phases}"),
    "card_not_in_hand": Reason("card_not_in_hand", "not in hand (or not often enough): {cards}"),
    "stock_empty_take_pile": Reason(
        "stock_empty", "the stock is empty and the top card fits a meld: take the pile"
    ),
    # --- asking the partner (play.py) ---
    "no_ask_partner_option": Reason(_ACTION, "this table does not use the ask_partner option"),
    "already_asked": Reason("wrong_phase", "you have already asked your partner this turn"),
    "no_partner": Reason(_ACTION, "you have no partner to ask"),
    "ask_before_last_card": Reason("wrong_phase", "ask before you are down to your last card"),
    "ask_only_when_out": Reason("cannot_go_out", "ask only when you can go out this turn"),
    "partner_said_no": Reason(
        "cannot_go_out", "your partner said no: you may not go out this turn"
    ),
    "partner_said_yes": Reason("must_go_out", "your partner said yes: you must go out this turn"),
    "yes_leaves_no_way_out": Reason(
        "must_go_out", "your partner said yes: this would leave you unable to go out"
    ),
    # --- the discard pile (pile.py) ---
    "pile_empty": Reason("pile_empty", "the discard pile is empty"),
    "pile_blocked": Reason("pile_blocked", "{card} on top of the pile blocks it"),
    "pile_needs_initial_meld": Reason(
        _PILE, "your side must make its initial meld before taking the pile"
    ),
    "stock_exhausted": Reason(_PILE, "the stock is exhausted: the round is over (draw to end it)"),
    "one_card_pile": Reason(_PILE, "with one card in hand you may not take a pile of one card"),
    "top_card_alone": Reason(_PILE, "{card} alone may not take the pile; meld it with two cards"),
    "pile_needs_pair": Reason(_PILE, "taking the pile needs a natural pair of {rank} ({card})"),
    "take_with_two": Reason(
        _PILE, "take {card} with two natural cards or one natural and one wild"
    ),
    "frozen_take_with_pair": Reason(
        "pile_frozen", "the pile is frozen: take it with a natural pair of {rank}"
    ),
    "frozen_needs_pair": Reason(
        "pile_frozen", "the pile is frozen: you need a natural pair of {rank} ({card})"
    ),
    "frozen_new_meld_only": Reason(
        "pile_frozen", "a frozen pile may be taken only by starting a new meld with the top card"
    ),
    "cards_do_not_meld_with": Reason(_MELD, "{cards} do not meld with {card}"),
    # --- melds (melds.py, laying.py) ---
    "red_threes_melded": Reason(_MELD, "red threes are never melded: {cards}"),
    "threes_never_meld": Reason(_MELD, "threes never form melds in {variant}: {cards}"),
    "black_threes_only": Reason(
        _MELD, "black threes meld only with black threes, no wild cards: {cards}"
    ),
    "no_natural_cards": Reason(_MELD, "a meld needs natural cards: {cards}"),
    "mixed_ranks": Reason(_MELD, "mixed ranks in one meld: {cards}"),
    "too_few_cards": Reason(_MELD, "a meld needs at least 3 cards: {cards}"),
    "not_black_threes": Reason(_MELD, "not a black-three meld: {cards}"),
    "black_three_sizes": Reason(_MELD, "black threes meld only as {sizes} black threes: {cards}"),
    "black_threes_not_going_out": Reason(
        _MELD, "black threes may be melded only when going out: {cards}"
    ),
    "joker_meld_wilds_only": Reason(_MELD, "a joker meld holds only wild cards: {cards}"),
    "twos_meld_only": Reason(_MELD, "a twos meld holds only 2s and jokers: {cards}"),
    "twos_meld_jokers": Reason(
        _MELD, "a twos meld has at most 2 jokers, always fewer than 2s: {cards}"
    ),
    "not_a_meld_rank": Reason(_MELD, "{rank} is not a meld rank"),
    "other_rank_in_meld": Reason(_MELD, "cards of another rank in the {rank} meld: {cards}"),
    "too_few_naturals": Reason(_MELD, "a meld needs at least 2 natural cards: {cards}"),
    "too_many_wilds": Reason(_MELD, "too many wild cards for {naturals} natural cards: {cards}"),
    "meld_exists": Reason(_MELD, "your side already has a {rank} meld: add {cards} to it"),
    "cards_not_for_meld": Reason(_MELD, "{cards} do not belong to the {rank} meld"),
    "no_such_meld": Reason("no_such_meld", "your side has no {rank} meld to add {cards} to"),
    "initial_meld_too_low": Reason(
        "initial_meld_too_low",
        "your side's first meld must be worth {need}; these cards are worth {worth}",
    ),
    # --- going out (laying.py, play.py) ---
    "canastas_needed": Reason(
        "cannot_go_out", "going out needs {need} canasta{plural}; your side has {have}"
    ),
    "go_out_with_discard": Reason("cannot_go_out", "in {variant} you must go out with a discard"),
    "must_keep_card": Reason(
        "must_keep_card", "you may not go out, so keep two cards: one to discard, one to keep"
    ),
    # --- tables (table.py, rules.py, variants.py): for programs, not players ---
    "invalid_table": Reason("invalid_table", "{problem}"),
}


def english_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters as the English message shows them: `cards` "QS QD", other lists as
    alternatives ("3 or 4", "play or discard")."""
    shown: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, list | tuple):
            separator = " " if name == "cards" else " or "
            shown[name] = separator.join(map(str, value))
        else:
            shown[name] = value
    return shown


class EngineError(ValueError):
    """A rejected action or table: ``reason`` (a key of REASONS) and its parameters. `code` is
    the reason's stable code from ERROR_CODES; `message` its English sentence."""

    def __init__(self, reason: str, **params: Any) -> None:
        entry = REASONS[reason]
        self.reason = reason
        self.params = params
        self.code = entry.code
        self.message = entry.english.format(**english_params(params))
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason!r}, **{self.params!r})"


class IllegalActionError(EngineError):
    """The action is malformed or not allowed by the rules now."""


class InvalidTableError(EngineError):
    """The table JSON cannot describe a position of the variant."""

    def __init__(self, problem: str) -> None:
        super().__init__("invalid_table", problem=problem)
