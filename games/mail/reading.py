"""Reading the words of a reply: lines into tokens, tokens into cards, in the languages the
reply is read in (the player's and English; `games.mail.vocabulary`).

`line_tokens` normalizes a line (Unicode forms, suit symbols, bullets, hyphens, accents);
`read_card`/`read_cards` read cards written as codes (``7h``, ``Dka``, ``Gl``), in two tokens
(``7 h``, ``7 of hearts``), in words (``Dame Herz``, ``hjarta drottning``) or as tiles
(``7 rot``); `context_of` is what a reply is read against (the replying seat's view).
`Refusal` is a line that cannot be read; `games.mail.parsing` turns it into a CommandError.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.utils.translation import gettext as _

from games import display
from games.engine.cards import ALL_CODES, JOKER
from games.engine.melds import MELD_KEYS
from games.engine.rules import RuleSet
from games.engine.variants import VARIANTS

from .formatting import format_action, format_card
from .vocabulary import Words, fold, words_for

ActionJSON = dict[str, Any]


class Refusal(Exception):
    """A line that does not parse; becomes a CommandError with the line attached."""


# --- text to tokens ----------------------------------------------------------------

_INVISIBLE = dict.fromkeys(map(ord, "\ufe0e\ufe0f\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_SYMBOLS = str.maketrans(
    {
        "♠": "s",
        "♤": "s",
        "♥": "h",
        "♡": "h",
        "❤": "h",
        "♦": "d",
        "♢": "d",
        "♣": "c",
        "♧": "c",
        "🃏": "jk",
        ":": " ",
        "\u00a0": " ",
    }
)
_BULLET = re.compile(r"^(?:[-*•–—·]+|\d{1,2}[.)])\s+")
_TOKEN = re.compile(r"[,|+&/]|[^\s,|+&/]+")
_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")  # "Herz-Dame", "pick-up": two words
BASE_SEPARATORS = frozenset({",", "|", "+", "&", "/"})


def shorten(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def normalize(line: str) -> str:
    text = unicodedata.normalize("NFKC", line).translate(_INVISIBLE).lower()
    text = text.translate(_SYMBOLS).strip().rstrip(".!? \t")
    return _HYPHEN.sub(" ", _BULLET.sub("", text))


def line_tokens(line: str) -> list[str]:
    return [fold(t) for t in _TOKEN.findall(normalize(line))]


# --- cards -------------------------------------------------------------------------

RANK_CODES = {"10": "T", "1": "A", "11": "J", "12": "Q", "13": "K"}


@dataclass(frozen=True)
class _CardPatterns:
    run: re.Pattern[str]
    one: re.Pattern[str]
    rank: re.Pattern[str]


def _patterns(words: Words, tiles: bool) -> _CardPatterns:
    return _patterns_for(words.languages[-1], tiles)


@lru_cache(maxsize=16)
def _patterns_for(lang: str, tiles: bool) -> _CardPatterns:
    words = words_for(lang)
    letters = "".join(sorted(words.rank_letters))
    suits = sorted(words.suit_letters, key=len, reverse=True)
    if tiles:
        suits += sorted(words.colours, key=len, reverse=True)
        rank = rf"1[0-3]|[1-9]|[{letters}]"
    else:
        rank = rf"10|[2-9]|[{letters}]"
    suit = "|".join(re.escape(s) for s in suits)
    jokers = "|".join(sorted(words.jokers, key=len, reverse=True))
    return _CardPatterns(
        run=re.compile(rf"(?:(?:{rank})(?:{suit})|{jokers})+"),
        one=re.compile(rf"({rank})({suit})|({jokers})"),
        rank=re.compile(rank),
    )


@dataclass
class Context:
    tiles: bool
    rules: RuleSet | None
    hand: list[str]
    side_keys: set[str]
    top: str | None
    frozen: bool
    words: Words
    variant: str = "classic"
    lang: str = "en"

    @property
    def separators(self) -> frozenset[str]:
        return BASE_SEPARATORS | self.words.connectors

    @property
    def strong_separators(self) -> frozenset[str]:
        return self.separators - {","}

    def show(self, cards: Sequence[str]) -> str:
        return " ".join(format_card(c, self.variant, self.lang) for c in cards)

    def example(self, action: ActionJSON) -> str:
        """An example command in the player's language (cards chosen to fit the variant)."""
        return format_action(action, self.variant, self.lang)

    def card_hint(self) -> str:
        if self.tiles:
            return _("write tiles like %(examples)s") % {
                "examples": ", ".join(
                    display.tile_name(c, self.lang) for c in ("7H", "KC", "AD", JOKER)
                )
            }
        return _("write cards like %(examples)s") % {
            "examples": ", ".join([*self.show(["7H", "TS", "QD", JOKER]).split(), "7♥"])
        }


def _code(rank: str, suit: str, words: Words) -> str:
    r = RANK_CODES.get(rank) or words.rank_letters.get(rank) or rank.upper()
    s = words.colours.get(suit) or words.suit_letters.get(suit) or words.suits[suit]
    return r + s


def _run(token: str, ctx: Context) -> list[str] | None:
    """A token made of whole card codes run together ("7h", "7h7d", "jk"), else None."""
    patterns = _patterns(ctx.words, ctx.tiles)
    if not patterns.run.fullmatch(token):
        return None
    return [
        JOKER if m.group(3) else _code(m.group(1), m.group(2), ctx.words)
        for m in patterns.one.finditer(token)
    ]


def _rank_of(token: str, ctx: Context) -> str | None:
    """The rank a token names on its own ("7", "q", "dame", "ás"), else None."""
    if _patterns(ctx.words, ctx.tiles).rank.fullmatch(token):
        return RANK_CODES.get(token) or ctx.words.rank_letters.get(token) or token.upper()
    key = ctx.words.ranks.get(token)
    return key if key not in (None, "W") else None


def _suit_of(token: str | None, ctx: Context) -> str | None:
    if token is None:
        return None
    if ctx.tiles and token in ctx.words.colours:
        return ctx.words.colours[token]
    return ctx.words.suits.get(token) or ctx.words.suit_letters.get(token)


def _read_named(tokens: Sequence[str], i: int, ctx: Context) -> tuple[list[str], int] | None:
    """A card written in words or in two tokens: "7 h", "7 of hearts", "Dame Herz",
    "Herz Dame", "hjarta 7", tiles "7 rot", "rot 7"."""
    token = tokens[i]
    rank = _rank_of(token, ctx)
    if rank is not None:
        j = i + 2 if i + 2 < len(tokens) and tokens[i + 1] in ctx.words.of_words else i + 1
        suit = _suit_of(tokens[j] if j < len(tokens) else None, ctx)
        if suit is not None:
            return [rank + suit], j + 1
    lead = ctx.words.suits.get(token) or (ctx.words.colours.get(token) if ctx.tiles else None)
    if lead is not None and i + 1 < len(tokens):
        rank = _rank_of(tokens[i + 1], ctx)
        if rank is not None:
            return [rank + lead], i + 2
    return None


def read_card(tokens: Sequence[str], i: int, ctx: Context) -> tuple[list[str], int]:
    """The card(s) starting at tokens[i] and the index after them."""
    token = tokens[i]
    named = _read_named(tokens, i, ctx)
    if named is not None:
        return named
    if token == "as" and ctx.lang == "de":
        # German "As" is an ace of any suit (German spades are "p"): never read as English As.
        raise Refusal(
            _("which ace? name its suit, e.g. %(example)s") % {"example": ctx.show(["AS", "AH"])}
        )
    found = _run(token, ctx)
    if found is not None:
        return found, i + 1
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if _rank_of(token, ctx) is not None:
        if nxt in ctx.words.colours:
            raise Refusal(
                _("%(card)s: colours are for tiles; name the suit (%(example)s)")
                % {"card": f"{token} {nxt}", "example": ctx.show(["7H"])}
            )
        raise Refusal(
            _("%(word)r needs a suit (%(hint)s)") % {"word": token, "hint": ctx.card_hint()}
        )
    raise Refusal(
        _("%(word)r is not a card (%(hint)s)") % {"word": shorten(token), "hint": ctx.card_hint()}
    )


def read_cards(tokens: Sequence[str], ctx: Context) -> list[str]:
    out: list[str] = []
    i = 0
    separators = ctx.separators
    while i < len(tokens):
        if tokens[i] in separators:
            i += 1
            continue
        cards, i = read_card(tokens, i, ctx)
        out += cards
    return out


def _is_code(value: object) -> bool:
    return isinstance(value, str) and value in ALL_CODES


def _side_keys(view: Mapping[str, Any]) -> set[str]:
    melds = view.get("melds")
    seat = view.get("seat", view.get("turn"))
    if isinstance(melds, list) and melds and isinstance(seat, int) and not isinstance(seat, bool):
        side = melds[seat % len(melds)]
        if isinstance(side, Mapping):
            # Only real meld keys: a malformed view must not put a key like '' into a command.
            return {k for k in side if isinstance(k, str) and len(k) == 1 and k in MELD_KEYS}
    return set()


def context_of(view: Any, lang: str) -> Context:
    view = view if isinstance(view, Mapping) else {}
    variant = view.get("variant")
    rules = VARIANTS.get(variant) if isinstance(variant, str) else None
    hand_raw = view.get("hand")
    hand = [c for c in hand_raw if _is_code(c)] if isinstance(hand_raw, list) else []
    pile = view.get("discard")
    top = pile[-1] if isinstance(pile, list) and pile and _is_code(pile[-1]) else None
    lang = display.language_code(lang)
    return Context(
        tiles=variant == "tiles",
        rules=rules,
        hand=hand,
        side_keys=_side_keys(view),
        top=top,
        frozen=view.get("frozen") is True,
        words=words_for(lang),
        variant=variant if isinstance(variant, str) else "classic",
        lang=lang,
    )
