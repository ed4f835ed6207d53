"""Reading a reply: its lines of commands into engine actions and service commands.

The grammar and its words are described in `games.mail.commands` (and, for players, in
docs/play-by-email-commands.md); the words of each language are in `games.mail.vocabulary`.
A reply is read in the player's language and English together. `parse_commands` raises
nothing but `CommandError`, whatever the input; its messages are translated into the
language active when it runs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.utils.translation import gettext as _

from games import display
from games.engine.actions import MAX_CARDS_IN_ACTION
from games.engine.cards import ALL_CODES, JOKER, sort_key
from games.engine.errors import EngineError
from games.engine.melds import MELD_KEYS, meld_key
from games.engine.rules import RuleSet
from games.engine.variants import VARIANTS

from .formatting import format_action, format_card, word
from .vocabulary import GERMAN_SEPARABLE, Words, fold, words_for

MAX_COMMANDS = 50
MAX_LINE_LENGTH = 500
MAX_TEXT_LENGTH = 100_000  # characters, blank lines included: a reply is short
SERVICE_COMMANDS = ("resign", "status", "help")

ActionJSON = dict[str, Any]

# Re-raise unexpected internal errors instead of refusing cleanly (tests set this).
_STRICT = False


class CommandError(Exception):
    """A reply that cannot be understood. ``code`` is ``invalid_action``."""

    def __init__(self, code: str, message: str, line: str = "", line_number: int = 0) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.line_number = line_number

    def __str__(self) -> str:
        if self.line_number:
            return f"line {self.line_number} ({_shorten(self.line, 60)!r}): {self.message}"
        return self.message

    def __repr__(self) -> str:
        return f"CommandError({self.code!r}, {self.message!r}, {self.line!r}, {self.line_number!r})"


@dataclass(frozen=True)
class Command:
    """One command of a reply: an engine action or a service command."""

    line: str  # the command as written (one ``;`` segment of a line, trimmed)
    line_number: int  # 1-based, in the text given to parse_commands
    action: ActionJSON | None = None  # table-json.md action
    service: str | None = None  # "resign", "status" or "help"

    @property
    def kind(self) -> str:
        """The action type ("draw", "pickup", ...) or the service command."""
        if self.action is not None:
            return str(self.action["type"])
        return self.service or ""

    @property
    def is_action(self) -> bool:
        return self.action is not None


@dataclass(frozen=True)
class ParsedCommands:
    commands: tuple[Command, ...] = ()

    def __iter__(self) -> Iterator[Command]:
        return iter(self.commands)

    def __len__(self) -> int:
        return len(self.commands)

    def __getitem__(self, index: int) -> Command:
        return self.commands[index]

    @property
    def actions(self) -> list[ActionJSON]:
        """The engine actions, in order."""
        return [c.action for c in self.commands if c.action is not None]

    @property
    def services(self) -> list[str]:
        """The service commands, in order."""
        return [c.service for c in self.commands if c.service is not None]


class _Refusal(Exception):
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
_BASE_SEPARATORS = frozenset({",", "|", "+", "&", "/"})


def _chain(words: Words) -> re.Pattern[str]:
    return _chain_for(words.languages[-1])


@lru_cache(maxsize=8)
def _chain_for(lang: str) -> re.Pattern[str]:
    """ "draw and meld 7h 7d 7s, then discard 9c": a verb after "and", "then" or "," (in any
    language read) starts a new command, except meld/add continuing a take, meld or add."""
    words = words_for(lang)
    verbs = "|".join(sorted((re.escape(v) for v in words.raw_verbs), key=len, reverse=True))
    joins = "|".join(sorted((re.escape(c) for c in words.raw_connectors), key=len, reverse=True))
    return re.compile(
        rf"\s*(?:,|\b(?:{joins})\b)(?:\s*(?:{joins})\b)?\s*(?=(pick\s*-?\s*up|{verbs})\b)",
        re.IGNORECASE,
    )


def _verb_of(word_: str, words: Words) -> str | None:
    folded = fold(word_)
    if re.fullmatch(r"pick\s*-?\s*up", folded):
        return "take"
    return words.verbs.get(folded)


def _chain_split(text: str, words: Words) -> list[str]:
    pieces: list[str] = []
    start = 0
    for m in _chain(words).finditer(text):
        continuing = _verb_of(m.group(1), words) in ("meld", "add")
        first = text[start:].lstrip(" -*•").split(maxsplit=1)
        if continuing and first and _verb_of(first[0], words) in ("take", "meld", "add"):
            continue
        if continuing and first and fold(first[0]) == "pick":
            continue
        pieces.append(text[start : m.start()])
        start = m.end()
    pieces.append(text[start:])
    return pieces


def _shorten(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _normalize(line: str) -> str:
    text = unicodedata.normalize("NFKC", line).translate(_INVISIBLE).lower()
    text = text.translate(_SYMBOLS).strip().rstrip(".!? \t")
    return _HYPHEN.sub(" ", _BULLET.sub("", text))


def _tokens(line: str) -> list[str]:
    return [fold(t) for t in _TOKEN.findall(_normalize(line))]


# --- cards -------------------------------------------------------------------------

_RANK_CODES = {"10": "T", "1": "A", "11": "J", "12": "Q", "13": "K"}


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
class _Context:
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
        return _BASE_SEPARATORS | self.words.connectors

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
    r = _RANK_CODES.get(rank) or words.rank_letters.get(rank) or rank.upper()
    s = words.colours.get(suit) or words.suit_letters.get(suit) or words.suits[suit]
    return r + s


def _run(token: str, ctx: _Context) -> list[str] | None:
    """A token made of whole card codes run together ("7h", "7h7d", "jk"), else None."""
    patterns = _patterns(ctx.words, ctx.tiles)
    if not patterns.run.fullmatch(token):
        return None
    return [
        JOKER if m.group(3) else _code(m.group(1), m.group(2), ctx.words)
        for m in patterns.one.finditer(token)
    ]


def _rank_of(token: str, ctx: _Context) -> str | None:
    """The rank a token names on its own ("7", "q", "dame", "ás"), else None."""
    if _patterns(ctx.words, ctx.tiles).rank.fullmatch(token):
        return _RANK_CODES.get(token) or ctx.words.rank_letters.get(token) or token.upper()
    key = ctx.words.ranks.get(token)
    return key if key not in (None, "W") else None


def _suit_of(token: str | None, ctx: _Context) -> str | None:
    if token is None:
        return None
    if ctx.tiles and token in ctx.words.colours:
        return ctx.words.colours[token]
    return ctx.words.suits.get(token) or ctx.words.suit_letters.get(token)


def _read_named(tokens: Sequence[str], i: int, ctx: _Context) -> tuple[list[str], int] | None:
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


def _read_card(tokens: Sequence[str], i: int, ctx: _Context) -> tuple[list[str], int]:
    """The card(s) starting at tokens[i] and the index after them."""
    token = tokens[i]
    named = _read_named(tokens, i, ctx)
    if named is not None:
        return named
    if token == "as" and ctx.lang == "de":
        # German "As" is an ace of any suit (German spades are "p"): never read as English As.
        raise _Refusal(
            _("which ace? name its suit, e.g. %(example)s") % {"example": ctx.show(["AS", "AH"])}
        )
    found = _run(token, ctx)
    if found is not None:
        return found, i + 1
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if _rank_of(token, ctx) is not None:
        if nxt in ctx.words.colours:
            raise _Refusal(
                _("%(card)s: colours are for tiles; name the suit (%(example)s)")
                % {"card": f"{token} {nxt}", "example": ctx.show(["7H"])}
            )
        raise _Refusal(
            _("%(word)r needs a suit (%(hint)s)") % {"word": token, "hint": ctx.card_hint()}
        )
    raise _Refusal(
        _("%(word)r is not a card (%(hint)s)") % {"word": _shorten(token), "hint": ctx.card_hint()}
    )


def _read_cards(tokens: Sequence[str], ctx: _Context) -> list[str]:
    out: list[str] = []
    i = 0
    separators = ctx.separators
    while i < len(tokens):
        if tokens[i] in separators:
            i += 1
            continue
        cards, i = _read_card(tokens, i, ctx)
        out += cards
    return out


# --- structure of a line -----------------------------------------------------------


def _strip_separators(tokens: list[str], ctx: _Context) -> list[str]:
    start, end = 0, len(tokens)
    while start < end and tokens[start] in ctx.separators:
        start += 1
    while end > start and tokens[end - 1] in ctx.separators:
        end -= 1
    return tokens[start:end]


def _split(tokens: Sequence[str], separators: frozenset[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token in separators:
            parts.append([])
        else:
            parts[-1].append(token)
    return [p for p in parts if p]


def _is_target_filler(tokens: Sequence[str], index: int, ctx: _Context) -> bool:
    """Is ``meld`` at ``index`` part of a target ("add 5c to the fives meld")?"""
    for j in range(index - 1, max(-1, index - 5), -1):
        if tokens[j] in ctx.separators:
            return False
        if tokens[j] in ctx.words.target_words:
            return True
    return False


def _skip_particles(verb: str, tokens: list[str], ctx: _Context) -> list[str]:
    """Drop the words a verb carries ("leggja út", "bæta við")."""
    particles = ctx.words.particles.get(verb, frozenset())
    i = 0
    while i < len(tokens) and tokens[i] in particles:
        i += 1
    return tokens[i:]


def _sections(verb: str, tokens: Sequence[str], ctx: _Context) -> list[tuple[str, list[str]]]:
    """Split at the meld and add verbs: [(meld|add|take, tokens), ...]."""
    out: list[tuple[str, list[str]]] = [(verb, [])]
    for index, token in enumerate(tokens):
        meaning = ctx.words.verbs.get(token)
        if meaning in ("meld", "add") and not _is_target_filler(tokens, index, ctx):
            out.append((meaning, []))
        else:
            out[-1][1].append(token)
    return [(kw, _strip_separators(_skip_particles(kw, toks, ctx), ctx)) for kw, toks in out]


def _natural_rank(card: str) -> str | None:
    return None if card == JOKER or card[0] == "2" else card[0]


def _groups(tokens: list[str], ctx: _Context) -> list[list[str]]:
    """Melds of a ``meld`` section: "Kh Kd 2c, 5s 5h 5d" or "7h,7d,7s | 5s 5h 5d"."""
    groups: list[tuple[list[str], bool]] = []  # (cards, made of single-card parts)
    for part in _split(tokens, ctx.strong_separators):
        if groups:
            groups[-1] = (groups[-1][0], False)  # a strong separator ends a run
        lists = [_read_cards(p, ctx) for p in _split(part, frozenset({","}))]
        for cards in (c for c in lists if c):
            # "7h, 7d, 7s": commas between single cards separate cards, not melds.
            if len(cards) == 1 and groups and groups[-1][1]:
                groups[-1][0].append(cards[0])
            else:
                groups.append((cards, len(cards) == 1))
    out: list[list[str]] = []
    for cards, _single in groups:
        ranks = list(dict.fromkeys(r for r in map(_natural_rank, cards) if r))
        if len(ranks) > 1:
            if any(_natural_rank(c) is None for c in cards):
                raise _Refusal(
                    _(
                        "which meld do the wild cards of %(cards)r belong to? "
                        "separate melds with commas, e.g. %(example)s"
                    )
                    % {"cards": ctx.show(cards), "example": ctx.example(_TWO_MELDS)}
                )
            out += [[c for c in cards if _natural_rank(c) == r] for r in ranks]
        else:
            out.append(cards)
    return out


_TWO_MELDS: ActionJSON = {"type": "meld", "melds": [["KH", "KD", "2C"], ["5S", "5H", "5D"]]}
_ONE_MELD: ActionJSON = {"type": "meld", "melds": [["7H", "7D", "7S"]]}
_ADD_FIVE: ActionJSON = {"type": "meld", "add": {"5": ["5C"]}}
_TAKE_WITH: ActionJSON = {"type": "pickup", "cards": ["7H", "7D"]}
_TAKE_MELD: ActionJSON = {"type": "pickup", "cards": ["7H", "7D"], "melds": [["KH", "KD", "2C"]]}
_RANK_TARGET = re.compile(r"(10|[2-9tjqka])(?:'s|s|es)?")
_TILE_TARGET = re.compile(r"(1[0-3]|[1-9]|[tjqka])(?:'s|s|es)?")


def _key_of_card(card: str, ctx: _Context) -> str:
    if card == JOKER:
        return "2" if ctx.tiles else "W"
    return card[0]


def _target(tokens: list[str], ctx: _Context) -> str:
    """The meld key named after "to": a card of the rank, a rank, a rank word."""
    words = [t for t in tokens if t not in ctx.words.target_fillers]
    if not words:
        raise _Refusal(_("add to which meld? e.g. %(example)s") % {"example": _add_example(ctx)})
    key: str | None = None
    if len(words) == 1:
        word_ = words[0]
        m = (_TILE_TARGET if ctx.tiles else _RANK_TARGET).fullmatch(word_)
        if word_ in ctx.words.ranks:
            key = ctx.words.ranks[word_]
        elif word_ in ctx.words.rank_letters:
            key = ctx.words.rank_letters[word_]
        elif m:
            key = _RANK_CODES.get(m.group(1), m.group(1).upper())
    if key is None:
        try:
            cards = _read_cards(words, ctx)
        except _Refusal:
            raise _Refusal(
                _("%(words)r is not a meld: name a card or a rank, e.g. %(example)s")
                % {"words": _shorten(" ".join(words)), "example": _add_example(ctx)}
            ) from None
        if len(cards) != 1:
            raise _Refusal(
                _("add to one meld at a time, not %(words)r") % {"words": _shorten(" ".join(words))}
            )
        key = _key_of_card(cards[0], ctx)
    return key


def _add_example(ctx: _Context) -> str:
    return ctx.example(_ADD_FIVE)


def _loose_adds(loose: list[str], ctx: _Context, new_keys: list[str]) -> dict[str, list[str]]:
    """Cards added without a target: to the meld of their rank (wild cards: see commands)."""
    out: dict[str, list[str]] = {}
    ranks = list(dict.fromkeys(r for r in map(_natural_rank, loose) if r))
    wilds = [c for c in loose if _natural_rank(c) is None]
    for rank in ranks:
        out.setdefault(rank, []).extend(c for c in loose if _natural_rank(c) == rank)
    if not wilds:
        return out
    shown = ctx.show(wilds)
    which = _("which meld gets %(cards)s? say e.g. %(example)s") % {
        "cards": shown,
        "example": ctx.example({"type": "meld", "add": {"K": wilds}}),
    }
    if len(ranks) == 1:
        out[ranks[0]].extend(wilds)
    elif ranks:
        raise _Refusal(which)
    else:
        known = ctx.side_keys | set(new_keys)
        known.discard("3")
        if len(known) != 1:
            raise _Refusal(which)
        out.setdefault(next(iter(known)), []).extend(wilds)
    return out


def _adds(sections: list[list[str]], ctx: _Context, new_keys: list[str]) -> dict[str, list[str]]:
    """Additions of the ``add`` sections: {meld key: cards}."""
    out: dict[str, list[str]] = {}
    loose: list[str] = []
    for tokens in sections:
        for part in _split(tokens, ctx.separators):
            at = next((i for i, t in enumerate(part) if t in ctx.words.target_words), None)
            cards = _read_cards(part if at is None else part[:at], ctx)
            if at is None:
                loose += cards
                continue
            if not cards:
                raise _Refusal(
                    _("add what to %(target)r? e.g. %(example)s")
                    % {"target": " ".join(part[at + 1 :]), "example": _add_example(ctx)}
                )
            key = _target(part[at + 1 :], ctx)
            out.setdefault(key, []).extend(cards)
    if loose:
        for key, cards in _loose_adds(loose, ctx, new_keys).items():
            out.setdefault(key, []).extend(cards)
    return out


def _key_of_meld(cards: list[str], ctx: _Context) -> str | None:
    if ctx.rules is None:
        return next((r for r in map(_natural_rank, cards) if r), None)
    try:
        return meld_key(ctx.rules, cards)
    except EngineError:
        return None


# --- one command -------------------------------------------------------------------


def _parse_pickup(tokens: list[str], ctx: _Context) -> ActionJSON:
    sections = _sections("take", tokens, ctx)
    head = sections[0][1]
    i = 0
    while i < len(head) and head[i] in ctx.words.pile_fillers:
        i += 1
    with_word = i < len(head) and head[i] in ctx.words.with_words
    cards = _read_cards(head[i + 1 if with_word else i :], ctx)
    if with_word and not cards:
        raise _Refusal(
            _("take the pile with which cards? e.g. %(example)s")
            % {"example": ctx.example(_TAKE_WITH)}
        )
    melds: list[list[str]] = []
    for keyword, section in sections[1:]:
        if keyword == "add":
            raise _Refusal(
                _(
                    "taking the pile cannot add to melds in the same command: "
                    "put the addition on its own line after the take"
                )
            )
        if not section:
            raise _Refusal(_("meld what? e.g. %(example)s") % {"example": ctx.example(_TAKE_MELD)})
        melds += _groups(section, ctx)
    action: ActionJSON = {"type": "pickup"}
    chosen = cards or _pair_for_pile(ctx)
    if chosen:
        action["cards"] = chosen
    if melds:
        action["melds"] = melds
    return action


def _pair_for_pile(ctx: _Context) -> list[str] | None:
    """The cards ``take`` means when none are named (see `games.mail.commands`)."""
    top = ctx.top
    if top is None or top == JOKER or top[0] in "23":
        return None  # the engine says why the pile cannot be taken
    key = top[0]
    alone = ctx.rules is None or ctx.rules.top_card_alone
    if key in ctx.side_keys and alone and not ctx.frozen:
        return None  # the top card joins the side's meld
    naturals = sorted((c for c in ctx.hand if _natural_rank(c) == key), key=sort_key)
    if len(naturals) >= 2:
        return naturals[:2]
    if naturals and any(_natural_rank(c) is None for c in ctx.hand):
        example = ctx.example({"type": "pickup", "cards": [*naturals, "2C"]})
        raise _Refusal(_("say which cards take the pile, e.g. %(example)s") % {"example": example})
    return None


def _parse_meld(verb: str, tokens: list[str], ctx: _Context) -> ActionJSON:
    melds: list[list[str]] = []
    add_sections: list[list[str]] = []
    for keyword, section in _sections(verb, tokens, ctx):
        if not section:
            if keyword == "meld":
                raise _Refusal(
                    _("meld what? e.g. %(example)s") % {"example": ctx.example(_ONE_MELD)}
                )
            raise _Refusal(_("add what? e.g. %(example)s") % {"example": _add_example(ctx)})
        if keyword == "meld":
            melds += _groups(section, ctx)
        else:
            add_sections.append(section)
    new_keys = [k for k in (_key_of_meld(m, ctx) for m in melds) if k]
    add = _adds(add_sections, ctx, new_keys)
    action: ActionJSON = {"type": "meld"}
    if melds:
        action["melds"] = melds
    if add:
        action["add"] = add
    return action


def _parse_discard(rest: list[str], ctx: _Context) -> ActionJSON:
    cards = _read_cards([t for t in rest if t not in ("the", "die", "den")], ctx)
    if len(cards) != 1:
        raise _Refusal(
            _("discard exactly one card, e.g. %(example)s (to lay a meld write %(meld)s)")
            % {
                "example": ctx.example({"type": "discard", "card": "9C"}),
                "meld": word("meld", ctx.lang),
            }
        )
    return {"type": "discard", "card": cards[0]}


def _remember_melds(action: ActionJSON, ctx: _Context) -> None:
    """Melds this command starts count for later ``take``/``add`` of the same reply."""
    if action["type"] == "pickup" and ctx.top and ctx.top[0] not in "23" and ctx.top != JOKER:
        ctx.side_keys.add(ctx.top[0])
    for meld in action.get("melds", []):
        key = _key_of_meld(meld, ctx)
        if key:
            ctx.side_keys.add(key)


def _phrase(seq: tuple[str, ...], ctx: _Context) -> tuple[ActionJSON | None, str | None] | None:
    meaning = ctx.words.phrases.get(seq)
    if meaning is None:
        return None
    kind, value = meaning
    if kind == "answer":
        return {"type": "answer", "yes": bool(value)}, None
    if kind == "ask":
        return {"type": "ask_partner"}, None
    return None, str(value)


def _verbs_list(ctx: _Context) -> str:
    names = ("draw", "take", "meld", "add", "discard", "yes", "no", "ask", "resign", "status")
    return ", ".join(word(n, ctx.lang) for n in (*names, "help"))


def _german_order(tokens: list[str], ctx: _Context) -> list[str]:
    """German word order as English's: the verb first ("9kr abwerfen" -> "abwerfen 9kr",
    "lege 7p 7h 7ka aus" -> "auslegen 7p 7h 7ka"). Only for German players."""
    if "de" not in ctx.words.languages or len(tokens) < 2:
        return tokens
    separable = GERMAN_SEPARABLE.get((tokens[0], tokens[-1]))
    if separable is not None:
        verb = next(w for w, v in ctx.words.verbs.items() if v == separable)
        return [verb, *tokens[1:-1]]
    first_is_command = tokens[0] in ctx.words.verbs or _phrase((tokens[0],), ctx) is not None
    if not first_is_command and tokens[-1] in ctx.words.verbs and tokens[0] != "pick":
        return [tokens[-1], *tokens[:-1]]
    return tokens


def _parse_one(segment: str, ctx: _Context) -> tuple[ActionJSON | None, str | None]:
    tokens = _german_order(_tokens(segment), ctx)
    found = _phrase(tuple(tokens), ctx)
    if found is not None:
        return found
    head, rest = tokens[0], tokens[1:]
    if _phrase((head,), ctx) is not None:
        raise _Refusal(
            _("%(word)r takes nothing more; write it alone on its line") % {"word": head}
        )
    verb = ctx.words.verbs.get(head)
    if head == "pick" and rest[:1] == ["up"]:
        verb, rest = "take", rest[1:]
    if verb is None:
        raise _Refusal(
            _("unknown command %(word)r; commands are: %(verbs)s")
            % {"word": _shorten(head), "verbs": _verbs_list(ctx)}
        )
    rest = _skip_particles(verb, rest, ctx)
    if verb == "draw":
        extra = [t for t in rest if t not in ctx.words.draw_fillers]
        if extra:
            raise _Refusal(
                _("draw takes no cards (%(word)r): write just %(draw)s")
                % {"word": _shorten(extra[0]), "draw": word("draw", ctx.lang)}
            )
        return {"type": "draw"}, None
    if verb == "discard":
        return _parse_discard(rest, ctx), None
    action = _parse_pickup(rest, ctx) if verb == "take" else _parse_meld(verb, rest, ctx)
    _remember_melds(action, ctx)
    return action, None


def _is_code(value: object) -> bool:
    return isinstance(value, str) and value in ALL_CODES


def _card_count(action: ActionJSON) -> int:
    count = len(action.get("cards") or ())
    count += sum(len(m) for m in action.get("melds", ()))
    return count + sum(len(c) for c in action.get("add", {}).values())


def _side_keys(view: Mapping[str, Any]) -> set[str]:
    melds = view.get("melds")
    seat = view.get("seat", view.get("turn"))
    if isinstance(melds, list) and melds and isinstance(seat, int) and not isinstance(seat, bool):
        side = melds[seat % len(melds)]
        if isinstance(side, Mapping):
            # Only real meld keys: a malformed view must not put a key like '' into a command.
            return {k for k in side if isinstance(k, str) and len(k) == 1 and k in MELD_KEYS}
    return set()


def _context(view: Any, lang: str) -> _Context:
    view = view if isinstance(view, Mapping) else {}
    variant = view.get("variant")
    rules = VARIANTS.get(variant) if isinstance(variant, str) else None
    hand_raw = view.get("hand")
    hand = [c for c in hand_raw if _is_code(c)] if isinstance(hand_raw, list) else []
    pile = view.get("discard")
    top = pile[-1] if isinstance(pile, list) and pile and _is_code(pile[-1]) else None
    lang = display.language_code(lang)
    return _Context(
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


def parse_commands(
    text: str, view: Mapping[str, Any] | None, *, lang: str = display.DEFAULT_LANGUAGE
) -> ParsedCommands:
    """Parse a reply (already stripped of quotes and signature) into commands.

    ``view`` is the Player view JSON of the replying seat; ``lang`` the player's language
    (its words and English are read). Raises only `CommandError`.
    """
    try:
        return _parse_commands(text, view, lang)
    except CommandError:
        raise
    except Exception as exc:  # pragma: no cover - a bug; the fuzz tests run with _STRICT
        if _STRICT:
            raise
        raise CommandError("invalid_action", _("this reply could not be understood")) from exc


def _segments(text: str, words: Words) -> Iterator[tuple[int, str]]:
    """(line number, command text) of each command of the reply, long lines refused."""
    for number, raw in enumerate(text.splitlines(), start=1):
        if len(raw) > MAX_LINE_LENGTH:
            raise CommandError(
                "invalid_action",
                _("line too long (%(length)d characters; at most %(limit)d)")
                % {"length": len(raw), "limit": MAX_LINE_LENGTH},
                _shorten(raw, 80),
                number,
            )
        for piece in (p for part in raw.split(";") for p in _chain_split(part, words)):
            segment = piece.strip()
            if _tokens(segment):
                yield number, segment


def _parse_commands(text: str, view: Mapping[str, Any] | None, lang: str) -> ParsedCommands:
    if not isinstance(text, str):
        raise CommandError("invalid_action", _("a reply must be text"))
    if len(text) > MAX_TEXT_LENGTH:
        raise CommandError(
            "invalid_action",
            _("the reply is too long (more than %(limit)d characters)")
            % {"limit": MAX_TEXT_LENGTH},
        )
    ctx = _context(view, lang)
    commands: list[Command] = []
    for number, segment in _segments(text, ctx.words):
        if len(commands) >= MAX_COMMANDS:
            raise CommandError(
                "invalid_action",
                _("too many commands: at most %(limit)d in one reply") % {"limit": MAX_COMMANDS},
                segment,
                number,
            )
        try:
            action, service = _parse_one(segment, ctx)
            if action is not None and _card_count(action) > MAX_CARDS_IN_ACTION:
                raise _Refusal(
                    _("too many cards in one command (at most %(limit)d)")
                    % {"limit": MAX_CARDS_IN_ACTION}
                )
        except _Refusal as refusal:
            raise CommandError("invalid_action", str(refusal), segment, number) from None
        commands.append(Command(segment, number, action=action, service=service))
    return ParsedCommands(tuple(commands))


def is_command_line(line: str, *, lang: str = display.DEFAULT_LANGUAGE) -> bool:
    """Does ``line`` start like a command (a verb or a whole-line command of the languages
    read)? Used to tell a signature from a mistyped command (games.mail.body)."""
    words = words_for(lang)
    tokens = _tokens(line)
    if not tokens:
        return False
    if tuple(tokens) in words.phrases or tokens[0] in words.verbs:
        return True
    return tokens[0] == "pick" and tokens[1:2] == ["up"]
