"""The variants in words for players, in their language: titles, a short rules summary, the
table options with their choices.

The engine (games/engine) describes its variants in English for programs (GET /variants/),
some with references to the rule texts it was built from; players read these sentences
instead. A variant or option the engine adds later, without words here yet, falls back to
the engine's own text (the CI catalogue check then asks for the translation once it is
written here).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games import engine
from games.engine.variants import VARIANTS
from games.mail import text as mail_text
from games.models import TimeoutPolicy

SUMMARIES = {
    "classic": _(
        "108 cards, 2 or 4 players, 11 cards each (15 with two players); the match is played "
        "to 5,000 points"
    ),
    "family": _(
        "2 or 4 players, 11 cards each; twos and black threes block the pile, which is never frozen"
    ),
    "party": _(
        "110 cards with 6 jokers, 2 to 6 players in at most 3 teams; canastas count 700 and "
        "500, a canasta of jokers 1,000"
    ),
    "tiles": _(
        "106 tiles, 14 each (15 for the first player); canastas of twos; from 7,000 points "
        "the first meld needs 150; played to 10,000 or a fixed number of rounds"
    ),
}

OPTION_LABELS = {
    "seating": _("Seating"),
    "black_three": _("Black three on the pile"),
    "target": _("Points to win the match"),
    "ask_partner": _("Ask your partner before going out"),
    "match": _("Length of the match"),
}

OPTION_HELP = {
    ("seating", ""): _("How the players find their seats before the first hand."),
    ("black_three", ""): _(
        "Freeze: a black three on the pile freezes it. Stop: it only blocks the next player."
    ),
    ("target", ""): _("The match ends when a side reaches this many points."),
    ("target", "party"): _("The match ends when a side has more points than this."),
    ("ask_partner", ""): _(
        "Before going out you ask your partner “May I go out?”, and the answer binds you."
    ),
    ("match", ""): _("One round, three rounds, or first to 10,000 points (a tie adds a round)."),
}

CHOICE_LABELS = {
    ("seating", "draw"): pgettext_lazy("seating", "by drawing cards"),
    ("seating", "invitation"): pgettext_lazy("seating", "in the order of the invitations"),
    ("seating", "random"): pgettext_lazy("seating", "at random"),
    ("black_three", "freeze"): pgettext_lazy("black three", "freezes the pile"),
    ("black_three", "stop"): pgettext_lazy("black three", "only stops the next player"),
    ("match", "one_round"): pgettext_lazy("match length", "one round"),
    ("match", "three_rounds"): pgettext_lazy("match length", "three rounds"),
    ("match", "to_10000"): pgettext_lazy("match length", "first to 10,000 points"),
}


# A bot's level in a sentence ("bot, strong"; "a strong bot plays until they move again").
BOT_LEVEL_NAMES = {
    "basic": pgettext_lazy("bot level", "basic"),
    "strong": pgettext_lazy("bot level", "strong"),
    "random": pgettext_lazy("bot level", "random"),
}

# What happens when a turn's time runs out: the create form's choices and the table's rules.
TIMEOUT_POLICY_LABELS = {
    str(TimeoutPolicy.AUTOPLAY): _("the system draws and discards for the player"),
    str(TimeoutPolicy.FORFEIT): _("the side whose time ran out loses the match"),
}


def variant_title(variant: dict[str, Any] | str, fallback: str = "") -> str:
    name = variant if isinstance(variant, str) else variant["name"]
    if name in VARIANTS:
        return mail_text.variant_title(name)  # the one place of the translated titles
    return fallback or (variant["title"] if isinstance(variant, dict) else name)


def variant_titles() -> dict[str, str]:
    """Every variant's name in the reader's language, by the engine's variant name."""
    return {v["name"]: variant_title(v) for v in engine.list_variants()}


def variant_summary(variant: dict[str, Any]) -> str:
    return str(SUMMARIES.get(variant["name"], variant["summary"]))


def option_label(option: dict[str, Any] | str) -> str:
    """An option's name in the reader's language (``option``: the engine's dict, or its name)."""
    name = option if isinstance(option, str) else option["name"]
    return str(OPTION_LABELS.get(name, name.replace("_", " ").capitalize()))


def option_help(variant: str, option: dict[str, Any]) -> str:
    name = option["name"]
    text = OPTION_HELP.get((name, variant)) or OPTION_HELP.get((name, ""))
    return str(text) if text is not None else ""


def choice_label(option: str, choice: Any) -> str:
    label = CHOICE_LABELS.get((option, str(choice)))
    return str(label) if label is not None else str(choice).replace("_", " ")
