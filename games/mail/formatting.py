"""Engine actions written back as the commands that make them, in the player's language.

``parse_commands(format_action(a, variant, lang), view, lang=lang)`` gives back ``a`` (a
pickup without cards is written ``take``/``nehmen``/``taka``, which means exactly that
whenever such a pickup is legal). The "what you can do now" lines of the turn email and
the "Applied: ..." line of an answer are written here. Pure: `games.display` only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games import display
from games.engine.cards import sort_key

# The command words each language writes (the parser reads all of them; these are the ones
# it shows). Keys: draw, take, with, meld, add, to, discard, ask, yes, no, and.
COMMAND_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "draw": "draw",
        "take": "take",
        "with": "with",
        "meld": "meld",
        "add": "add",
        "to": "to",
        "discard": "discard",
        "ask": "ask",
        "yes": "yes",
        "no": "no",
        "and": "and",
        "status": "status",
        "help": "help",
        "say": "say",
        "resign": "resign",
    },
    "de": {
        "draw": "ziehen",
        "take": "nehmen",
        "with": "mit",
        "meld": "auslegen",
        "add": "anlegen",
        "to": "an",
        "discard": "abwerfen",
        "ask": "fragen",
        "yes": "ja",
        "no": "nein",
        "and": "und",
        "status": "stand",
        "help": "hilfe",
        "say": "sagen",
        "resign": "aufgeben",
    },
    "is": {
        "draw": "draga",
        "take": "taka",
        "with": "með",
        "meld": "leggja út",
        "add": "bæta",
        "to": "við",
        "discard": "kasta",
        "ask": "spyrja",
        "yes": "já",
        "no": "nei",
        "and": "og",
        "status": "staða",
        "help": "hjálp",
        "say": "segja",
        "resign": "gefast upp",
    },
}
_WILD_TARGET = {"en": "jokers", "de": "Jokern", "is": "jókerana"}
# Icelandic "bæta 5l við fimmurnar": the target in the accusative, with the article.
_ICELANDIC_TARGETS = {
    "A": "ásana",
    "K": "kóngana",
    "Q": "drottningarnar",
    "J": "gosana",
    "T": "tíurnar",
    "9": "níurnar",
    "8": "átturnar",
    "7": "sjöurnar",
    "6": "sexurnar",
    "5": "fimmurnar",
    "4": "fjarkana",
    "3": "þristana",
    "2": "tvistana",
}


def word(name: str, lang: str = display.DEFAULT_LANGUAGE) -> str:
    """A command word in ``lang``: word("discard", "de") == "abwerfen"."""
    return COMMAND_WORDS[display.language_code(lang)][name]


def format_card(card: str, variant: str, lang: str = display.DEFAULT_LANGUAGE) -> str:
    """A card as a command writes it: ``7h``, ``10s``, ``Kd``, ``JK``; German ``Dp``;
    tiles ``7 red`` (see `games.display.typed_card`)."""
    return display.typed_card(card, variant, lang)


def cards_text(cards: Sequence[str], variant: str, lang: str = display.DEFAULT_LANGUAGE) -> str:
    # Sorted for reading (high to low, wild cards last); order never matters to the engine.
    return " ".join(format_card(c, variant, lang) for c in sorted(cards, key=sort_key))


def target_text(key: str, variant: str, lang: str = display.DEFAULT_LANGUAGE) -> str:
    """The meld named after "to": "fives", "Fünfen", "fimmur"; tiles by number."""
    lang = display.language_code(lang)
    if variant == "tiles" and key != "W":
        return display.TILE_NUMBERS.get(key, key)
    if key == "W":
        return _WILD_TARGET[lang]
    if lang == "is":
        return _ICELANDIC_TARGETS.get(key, key)
    plural = display.RANK_PLURALS[lang].get(key, key)
    return plural.lower() if lang != "de" else plural


def _melds_text(melds: Sequence[Sequence[str]], variant: str, lang: str) -> str:
    return ", ".join(cards_text(m, variant, lang) for m in melds)


def _meld_action(action: Mapping[str, Any], variant: str, lang: str) -> str:
    w = COMMAND_WORDS[lang]
    parts = []
    if action.get("melds"):
        parts.append(f"{w['meld']} {_melds_text(action['melds'], variant, lang)}")
    if action.get("add"):
        adds = ", ".join(
            f"{cards_text(cards, variant, lang)} {w['to']} {target_text(key, variant, lang)}"
            for key, cards in action["add"].items()
        )
        parts.append(f"{w['add']} {adds}")
    return f" {w['and']} ".join(parts)


def format_action(
    action: Mapping[str, Any], variant: str, lang: str = display.DEFAULT_LANGUAGE
) -> str:
    """The command that produces ``action`` (an engine action dict) for the replying seat."""
    lang = display.language_code(lang)
    w = COMMAND_WORDS[lang]
    kind = action.get("type")
    if kind == "draw":
        return w["draw"]
    if kind == "pickup":
        text = w["take"]
        if action.get("cards"):
            text += f" {w['with']} {cards_text(action['cards'], variant, lang)}"
        if action.get("melds"):
            text += f" {w['and']} {w['meld']} {_melds_text(action['melds'], variant, lang)}"
        return text
    if kind == "meld":
        return _meld_action(action, variant, lang)
    if kind == "discard":
        return f"{w['discard']} {format_card(action['card'], variant, lang)}"
    if kind == "ask_partner":
        return w["ask"]
    if kind == "answer":
        return w["yes"] if action.get("yes") else w["no"]
    raise ValueError(f"not an action: {action!r}")


def format_actions(
    actions: Sequence[Mapping[str, Any]], variant: str, lang: str = display.DEFAULT_LANGUAGE
) -> str:
    """Several actions as one line of commands separated by ``;`` (e.g. a way to go out)."""
    return "; ".join(format_action(a, variant, lang) for a in actions)
