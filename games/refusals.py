"""The engine's refusals as sentences for people, in the active language (docs/i18n.md).

The engine raises a reason and its parameters (games/engine/errors.py, `REASONS`); here each
reason has its sentence, built from the same parameters: cards as people name them ("the Q♠
and Q♦"), a meld's rank as people say it. Nothing parses the engine's English. Reasons that
only a program can cause (a malformed action or table) read, in English, as the engine's own
message, which names what is wrong; in other languages as the code's general sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.utils.translation import get_language, gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games import l10n
from games.engine.errors import REASONS, english_params

# The one place card codes become words for people.
from games.mail.text import card_label

Params = Mapping[str, Any]
Sentence = Callable[[Params, str], str]


def _card(code: str, variant: str) -> str:
    try:
        return card_label(code, variant)
    except (IndexError, KeyError, TypeError, ValueError):
        return code


def cards_text(codes: Sequence[str], variant: str = "classic") -> str:
    """ "Q♠", "Q♠ and Q♦", "Q♠, Q♦ and 2♣" in the active language."""
    labels = [_card(c, variant) for c in codes]
    if not labels:
        return ""
    if len(labels) == 1:
        return labels[0]
    return gettext("%(first)s and %(last)s") % {"first": ", ".join(labels[:-1]), "last": labels[-1]}


def rank_text(key: str) -> str:
    """A meld's rank as people say it: "10", "Q", the twos, the black threes."""
    names = {
        "T": "10",
        "2": gettext("twos"),
        "W": gettext("wild cards"),
        "3": gettext("black threes"),
    }
    return names.get(key.upper(), key.upper())


def alternatives_text(values: Sequence[Any]) -> str:
    """ "3 or 4" in the active language."""
    numbers = [str(value) for value in values]
    if len(numbers) == 1:
        return numbers[0]
    return gettext("%(first)s or %(last)s") % {
        "first": ", ".join(numbers[:-1]),
        "last": numbers[-1],
    }


def words(params: Params, variant: str = "classic") -> dict[str, Any]:
    """The parameters as people read them: figures as the reader writes them ("1.500" in
    German, games/l10n.py), cards and ranks as people name them, other lists as alternatives
    ("3 or 4"). Text (a year, a username) stays as it is."""
    shown: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            shown[key] = l10n.number(value)
        elif isinstance(value, list | tuple) and key != "cards":
            shown[key] = alternatives_text(value)
        else:
            shown[key] = value
    if "cards" in params:
        shown["cards"] = cards_text(params["cards"], variant)
    if "card" in params:
        shown["card"] = _card(params["card"], variant)
    if "rank" in params:
        shown["rank"] = rank_text(params["rank"])
    return shown


def _say(message: Any) -> Sentence:
    """A sentence whose placeholders are the reason's parameters, as words."""

    def sentence(params: Params, variant: str) -> str:
        return str(message) % words(params, variant) if "%(" in str(message) else str(message)

    return sentence


def _wrong_phase(params: Params, variant: str) -> str:
    if params["phase"] == "draw":
        return gettext("Draw first: from the stock, or take the discard pile.")
    if params["phase"] == "answer":
        return gettext("Your partner has not answered yet.")
    if list(params["phases"]) == ["draw"]:
        return gettext("You have already drawn this turn.")
    return gettext("That is not possible at this point of the turn.")


def _too_few(params: Params, variant: str) -> str:
    # Fewer than three cards: one or two (none is refused before as an empty meld).
    codes = params["cards"]
    if not codes:
        return gettext("A meld needs at least three cards.")
    if len(codes) == 1:
        return gettext("The %(card)s alone is no meld: a meld needs at least three cards.") % {
            "card": cards_text(codes, variant)
        }
    return gettext("The %(cards)s are only two cards: a meld needs at least three.") % {
        "cards": cards_text(codes, variant)
    }


def _canastas_needed(params: Params, variant: str) -> str:
    need = int(params["need"])
    return ngettext(
        "Going out needs %(need)s canasta; your side has %(have)s.",
        "Going out needs %(need)s canastas; your side has %(have)s.",
        need,
    ) % {"need": need, "have": params["have"]}


def _canastas_needed_alone(params: Params, variant: str) -> str:
    need = int(params["need"])
    return ngettext(
        "Going out needs %(need)s canasta; you have %(have)s.",
        "Going out needs %(need)s canastas; you have %(have)s.",
        need,
    ) % {"need": need, "have": params["have"]}


# The reasons only a program causes (a malformed action, an impossible table): the general
# sentence of their code.
FOR_PROGRAMS = frozenset(
    {
        "not_an_object",
        "unknown_action_type",
        "unexpected_keys",
        "melds_not_lists",
        "too_many_cards",
        "empty_pickup_cards",
        "add_not_object",
        "add_twice",
        "add_no_cards",
        "meld_action_empty",
        "answer_not_bool",
        "card_not_string",
        "unknown_card",
        "cards_not_list",
        "meld_key_not_string",
        "unknown_meld_key",
        "no_such_seat",
        "invalid_table",
    }
)
GENERAL_FOR_PROGRAMS = {
    "invalid_action": _("This move could not be read."),
    "invalid_table": _("The request is invalid."),
}

_YES = _say(_("Your partner said yes: you must go out this turn."))

SENTENCES: dict[str, Sentence] = {
    "hand_over": _say(_("The hand is over.")),
    "not_your_turn": _say(_("It is not your turn.")),
    "wrong_phase": _wrong_phase,
    "card_not_in_hand": _say(_("You do not hold %(cards)s (or not that many).")),
    "stock_empty_take_pile": _say(
        _("The stock is empty and the top card of the pile fits a meld: take the pile.")
    ),
    "no_ask_partner_option": _say(_("At this table you do not ask your partner before going out.")),
    "already_asked": _say(_("You have already asked your partner this turn.")),
    "no_partner": _say(_("You have no partner to ask.")),
    "ask_before_last_card": _say(_("Ask your partner before you are down to your last card.")),
    "ask_only_when_out": _say(_("Ask your partner only when you can go out this turn.")),
    "partner_said_no": _say(_("Your partner said no: you may not go out this turn.")),
    "partner_said_yes": _YES,
    "yes_leaves_no_way_out": _YES,
    "pile_empty": _say(_("The discard pile is empty.")),
    "pile_blocked": _say(_("The %(card)s on top of the pile blocks it: draw from the stock.")),
    "pile_needs_initial_meld": _say(
        _("Your side must make its first meld before it may take the pile.")
    ),
    "stock_exhausted": _say(_("The stock is used up and the round is over: draw to end it.")),
    "one_card_pile": _say(_("With one card in your hand you may not take a pile of one card.")),
    "top_card_alone": _say(
        _("The %(card)s alone may not take the pile: meld it with two cards from your hand.")
    ),
    "pile_needs_pair": _say(_("To take the pile you need a natural pair to go with the %(card)s.")),
    "take_with_two": _say(
        _("Take the %(card)s with two natural cards, or one natural card and one wild card.")
    ),
    "frozen_take_with_pair": _say(
        _("The pile is frozen: take it with a natural pair of %(rank)s.")
    ),
    "frozen_needs_pair": _say(
        _("The pile is frozen: you need a natural pair to go with the %(card)s.")
    ),
    "frozen_new_meld_only": _say(
        _("A frozen pile may be taken only by starting a new meld with its top card.")
    ),
    "cards_do_not_meld_with": _say(_("The %(cards)s do not meld with the %(card)s.")),
    "red_threes_melded": _say(_("Red threes are never melded: they are laid out by themselves.")),
    "threes_never_meld": _say(_("Threes never form melds in this game.")),
    "black_threes_only": _say(_("Black threes meld only with black threes, without wild cards.")),
    "no_natural_cards": _say(_("The %(cards)s are no meld: a meld needs natural cards.")),
    "mixed_ranks": _say(_("The %(cards)s are of different ranks: a meld is of one rank.")),
    "too_few_cards": _too_few,
    "not_black_threes": _say(_("Only black threes go into a meld of black threes.")),
    "black_three_sizes": _say(_("Black threes may be melded only as %(sizes)s of them.")),
    "black_threes_not_going_out": _say(_("Black threes may be melded only when you go out.")),
    "joker_meld_wilds_only": _say(_("A meld of wild cards holds only jokers and twos.")),
    "twos_meld_only": _say(_("A meld of twos holds only twos and jokers.")),
    "twos_meld_jokers": _say(
        _("A meld of twos has at most two jokers, and always fewer jokers than twos.")
    ),
    "not_a_meld_rank": _say(_("There are no melds of %(rank)s.")),
    "other_rank_in_meld": _say(_("The %(cards)s do not all belong to the meld of %(rank)s.")),
    "too_few_naturals": _say(
        _("The %(cards)s are no meld: a meld needs at least two natural cards.")
    ),
    "too_many_wilds": _say(_("The %(cards)s hold too many wild cards for their natural cards.")),
    "meld_exists": _say(_("Your side already has a meld of %(rank)s: add the %(cards)s to it.")),
    "cards_not_for_meld": _say(_("The %(cards)s do not belong to the meld of %(rank)s.")),
    "no_such_meld": _say(_("Your side has no meld of %(rank)s to add the %(cards)s to.")),
    "initial_meld_too_low": _say(
        _("Your side's first meld must be worth %(need)s points; these cards are worth %(worth)s.")
    ),
    "canastas_needed": _canastas_needed,
    "go_out_with_discard": _say(
        _("In this game you must go out with a discard: keep one card to discard.")
    ),
    "must_keep_card": _say(
        _("You may not go out yet, so keep two cards: one to discard and one to keep.")
    ),
}


# The sentences that say "your side", for a player without partners (a two- or three-handed
# game, where each side is one player): the services pass `partners` (games/services/moves.py).
ALONE: dict[str, Sentence] = {
    "pile_needs_initial_meld": _say(
        _("You must make your first meld before you may take the pile.")
    ),
    "initial_meld_too_low": _say(
        _("Your first meld must be worth %(need)s points; these cards are worth %(worth)s.")
    ),
    "canastas_needed": _canastas_needed_alone,
    "meld_exists": _say(_("You already have a meld of %(rank)s: add the %(cards)s to it.")),
    "no_such_meld": _say(_("You have no meld of %(rank)s to add the %(cards)s to.")),
}


def _english_sentence(reason: str, params: Params) -> str:
    """The engine's English message as a sentence: capital first letter, final full stop."""
    text = REASONS[reason].english.format(**english_params(params))
    text = text[0].upper() + text[1:] if text else text
    return text if text.endswith((".", "!", "?", ")")) else text + "."


def refusal_text(reason: str, params: Params, variant: str = "classic") -> str:
    """The engine's refusal ``reason`` with its ``params``, for people, in the active
    language."""
    if params.get("partners") is False and reason in ALONE:
        return ALONE[reason](params, variant)
    if reason in SENTENCES:
        return SENTENCES[reason](params, variant)
    if (get_language() or "en").split("-")[0] == "en":
        return _english_sentence(reason, params)
    return str(GENERAL_FOR_PROGRAMS[REASONS[reason].code])
