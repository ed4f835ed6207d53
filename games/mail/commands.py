"""The command language of email replies (and of any text box that wants it).

`parse_commands(text, view)` turns a reply into engine actions (docs/formats.md#actions)
and service commands; `format_action(action, variant)` writes an action back as the command
that produces it; `help_text(variant)` is the plain-text help that every turn email carries.
Pure: standard library and `games.engine` only.

Grammar
=======

A reply holds commands, one per line or several on a line separated by ``;``; "and",
"then" or "," before a verb also start a new command ("draw and meld 7h 7d 7s, then discard
9c"), except ``meld``/``add`` continuing a take, meld or add, which stay one move. Blank lines
are ignored; every other line must be a command (chatter such as "thanks!" is refused, so
nothing is ever guessed). The commands are applied in order as one all-or-nothing batch, except
that a draw from the stock stands when a later command is refused (docs/fair-play.md).
At most `MAX_COMMANDS` commands; a line longer than `MAX_LINE_LENGTH` characters is refused.

Forgiving: case does not matter, nor extra spaces, a leading bullet (``-``, ``*``, ``1.``),
trailing ``. ! ?``, or ``:`` after a verb. ``10`` or ``T``; suits as letters ``s h d c`` or
symbols ``♠ ♥ ♦ ♣`` (also ``♤ ♡ ♢ ♧``, ``❤``, emoji forms with U+FE0F), after the rank with
or without a space (``7h``, ``7♥``, ``7 h``, ``7 of hearts``); cards may be run together
(``7h7d7s``) or separated by spaces or commas; ``JK``, ``joker`` or ``🃏`` for a joker. On
`tiles` tables tiles may be written as they are called: a number 1-13 and a colour (``7 red``,
``13 blue``, ``1 yellow``, ``red 7``; red = H, yellow = D, black = S, blue = C) or as codes.

    draw                     (also "draw a card", "draw from the stock")
    take                     take the discard pile: the top card joins your side's meld of its
                             rank when you have one and the pile is not frozen (classic, party);
                             otherwise it is taken with two natural cards of its rank from your
                             hand (if you hold two or more; always the same two); with one
                             natural and a wild card you must name them
    take with 7h 7d          (also "pick up with ...", "pickup ...", "take the pile with ...")
    take with 7h 7d and meld Kh Kd 2c, 5s 5h 5d
                             further melds from your hand in the same move (initial meld)
    meld 7h 7d 7s            one new meld
    meld Kh Kd 2c, 5s 5h 5d  several: separate melds with "," or "|" or "and"; commas between
                             single cards separate cards ("meld 7h, 7d, 7s" is one meld); cards
                             of several ranks without wild cards are split by rank
    add 5c to 5s             add to your side's meld of that rank (the target may be any card of
                             the rank or a rank: "to fives", "to 5", "to kings", "to the K meld",
                             "to jokers" for party's wild-card meld, "to 2" for tiles' twos)
    add 5c                   without a target, natural cards go to the meld of their rank; wild
                             cards go with the natural cards of the same command, or to your
                             side's only meld; otherwise say where ("add 2c to kings")
    add 5c to fives, 2c to kings      several additions
    meld 7h 7d 7s and add 5c to fives one move that lays new melds and adds (e.g. to go out)
    discard 9c
    yes / no  (also y / n)   answer your partner's "may I go out?"
    ask                      ask your partner "may I go out?" (also "may I go out?")
    resign, status, help     service commands (not engine actions)

Resolving ``take`` and ``add`` without cards or target uses the Player view JSON of the
replying seat as given (its hand, its side's melds, the pile), plus the melds started by
earlier commands of the same reply.

Errors: `CommandError` with code ``invalid_action`` naming the line and the offending word.
`parse_commands` raises nothing else, whatever the input.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.actions import MAX_CARDS_IN_ACTION
from games.engine.cards import ALL_CODES, JOKER, sort_key
from games.engine.errors import EngineError
from games.engine.melds import MELD_KEYS, meld_key
from games.engine.rules import RuleSet
from games.engine.variants import VARIANTS

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
    action: ActionJSON | None = None  # docs/formats.md action
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
# "draw and meld 7h 7d 7s, then discard 9c": a verb after "and", "then" or "," starts a new
# command, except "meld"/"add" continuing a take, meld or add (one move: "meld ... and add ...").
_CHAIN = re.compile(
    r"\s*(?:,|\band\b|\bthen\b)(?:\s*(?:and|then)\b)?\s*"
    r"(?=(draw|discard|take|pick\s*-?\s*up|pickup|meld|add)\b)",
    re.IGNORECASE,
)
_MOVE_VERB = re.compile(r"\s*[-*•]?\s*(take|pick|pickup|meld|add)\b", re.IGNORECASE)


def _chain_split(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for m in _CHAIN.finditer(text):
        continuing = m.group(1).lower() in ("meld", "add")
        if continuing and _MOVE_VERB.match(text, start):
            continue
        pieces.append(text[start : m.start()])
        start = m.end()
    pieces.append(text[start:])
    return pieces


_BULLET = re.compile(r"^(?:[-*•–—·]+|\d{1,2}[.)])\s+")
_TOKEN = re.compile(r"[,|+&/]|[^\s,|+&/]+")
_SEPARATORS = frozenset({",", "|", "+", "&", "/", "and", "then"})
_STRONG_SEPARATORS = _SEPARATORS - {","}
_TARGET_WORDS = frozenset({"to", "onto", "on", "into"})
_TARGET_FILLERS = frozenset({"the", "my", "our", "meld", "melds", "of"})
_DRAW_FILLERS = frozenset({"a", "card", "tile", "one", "from", "the", "stock", "deck"})
_PILE_FILLERS = frozenset({"the", "discard", "pile", "it", "up"})
_ANSWERS = {("yes",): True, ("y",): True, ("no",): False, ("n",): False}
_ASK = {
    ("ask",),
    ("ask", "partner"),
    ("ask", "my", "partner"),
    ("may", "i", "go", "out"),
    ("can", "i", "go", "out"),
}
_SERVICES = {
    ("resign",): "resign",
    ("i", "resign"): "resign",
    ("status",): "status",
    ("help",): "help",
}
VERBS = "draw, take, meld, add, discard, yes, no, ask, resign, status, help"


def _shorten(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _normalize(line: str) -> str:
    text = unicodedata.normalize("NFKC", line).translate(_INVISIBLE).lower()
    text = text.translate(_SYMBOLS).strip().rstrip(".!? \t")
    return _BULLET.sub("", text)


def _tokens(line: str) -> list[str]:
    return _TOKEN.findall(_normalize(line))


# --- cards -------------------------------------------------------------------------

_SUIT_WORDS = {
    "s": "S",
    "spade": "S",
    "spades": "S",
    "h": "H",
    "heart": "H",
    "hearts": "H",
    "d": "D",
    "diamond": "D",
    "diamonds": "D",
    "c": "C",
    "club": "C",
    "clubs": "C",
}
_COLOURS = {"red": "H", "yellow": "D", "black": "S", "blue": "C"}
_RANK_CODES = {"10": "T", "1": "A", "11": "J", "12": "Q", "13": "K"}
_JOKER_WORDS = frozenset({"jk", "joker", "jkr"})

_CARD_RUN = re.compile(r"(?:(?:10|[2-9tjqka])[shdc]|joker|jkr|jk)+")
_CARD_ONE = re.compile(r"(10|[2-9tjqka])([shdc])|(joker|jkr|jk)")
_TILE_RUN = re.compile(
    r"(?:(?:1[0-3]|[1-9]|[tjqka])(?:[shdc]|red|yellow|black|blue)|joker|jkr|jk)+"
)
_TILE_ONE = re.compile(r"(1[0-3]|[1-9]|[tjqka])([shdc]|red|yellow|black|blue)|(joker|jkr|jk)")
_CARD_RANK = re.compile(r"10|[2-9tjqka]")
_TILE_RANK = re.compile(r"1[0-3]|[1-9]|[tjqka]")


def _code(rank: str, suit: str) -> str:
    r = _RANK_CODES.get(rank, rank.upper())
    s = _COLOURS.get(suit) or _SUIT_WORDS[suit]
    return r + s


@dataclass
class _Context:
    tiles: bool
    rules: RuleSet | None
    hand: list[str]
    side_keys: set[str]
    top: str | None
    frozen: bool
    variant: str = "classic"

    def show(self, cards: Sequence[str]) -> str:
        return " ".join(format_card(c, self.variant) for c in cards)

    def card_hint(self) -> str:
        if self.tiles:
            return "write tiles like 7 red, 13 blue, 1 yellow, joker (or codes like 7h)"
        return "write cards like 7h, 10s, Kd, JK or 7♥"


def _run(token: str, ctx: _Context) -> list[str] | None:
    """A token made of whole card codes run together ("7h", "7h7d", "jk"), else None."""
    run, one = (_TILE_RUN, _TILE_ONE) if ctx.tiles else (_CARD_RUN, _CARD_ONE)
    if not run.fullmatch(token):
        return None
    out = []
    for m in one.finditer(token):
        out.append(JOKER if m.group(3) else _code(m.group(1), m.group(2)))
    return out


def _read_card(tokens: Sequence[str], i: int, ctx: _Context) -> tuple[list[str], int]:
    """The card(s) starting at tokens[i] and the index after them."""
    token = tokens[i]
    found = _run(token, ctx)
    if found is not None:
        return found, i + 1
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    rank_re = _TILE_RANK if ctx.tiles else _CARD_RANK
    if rank_re.fullmatch(token):
        j = i + 1
        if nxt == "of" and i + 2 < len(tokens):
            j = i + 2
        suit = tokens[j] if j < len(tokens) else None
        if suit is not None and (suit in _SUIT_WORDS or (ctx.tiles and suit in _COLOURS)):
            return [_code(token, suit)], j + 1
        if suit in _COLOURS:
            raise _Refusal(f"{token} {suit!r}: colours are for tiles; name the suit (7h, 7♥)")
        raise _Refusal(f"{token!r} needs a suit ({ctx.card_hint()})")
    if ctx.tiles and token in _COLOURS and nxt is not None and _TILE_RANK.fullmatch(nxt):
        return [_code(nxt, token)], i + 2
    raise _Refusal(f"{_shorten(token)!r} is not a card ({ctx.card_hint()})")


def _read_cards(tokens: Sequence[str], ctx: _Context) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] in _SEPARATORS:
            i += 1
            continue
        cards, i = _read_card(tokens, i, ctx)
        out += cards
    return out


# --- structure of a line -----------------------------------------------------------


def _strip_separators(tokens: list[str]) -> list[str]:
    start, end = 0, len(tokens)
    while start < end and tokens[start] in _SEPARATORS:
        start += 1
    while end > start and tokens[end - 1] in _SEPARATORS:
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


def _is_target_filler(tokens: Sequence[str], index: int) -> bool:
    """Is ``meld`` at ``index`` part of a target ("add 5c to the fives meld")?"""
    for j in range(index - 1, max(-1, index - 5), -1):
        if tokens[j] in _SEPARATORS:
            return False
        if tokens[j] in _TARGET_WORDS:
            return True
    return False


def _sections(verb: str, tokens: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Split at the keywords ``meld`` and ``add``: [(keyword, tokens), ...]."""
    out: list[tuple[str, list[str]]] = [(verb, [])]
    for index, token in enumerate(tokens):
        if token in ("meld", "add") and not _is_target_filler(tokens, index):
            out.append((token, []))
        else:
            out[-1][1].append(token)
    return [(kw, _strip_separators(toks)) for kw, toks in out]


def _natural_rank(card: str) -> str | None:
    return None if card == JOKER or card[0] == "2" else card[0]


def _groups(tokens: list[str], ctx: _Context) -> list[list[str]]:
    """Melds of a ``meld`` section: "Kh Kd 2c, 5s 5h 5d" or "7h,7d,7s | 5s 5h 5d"."""
    groups: list[tuple[list[str], bool]] = []  # (cards, made of single-card parts)
    for part in _split(tokens, _STRONG_SEPARATORS):
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
    for cards, _ in groups:
        ranks = list(dict.fromkeys(r for r in map(_natural_rank, cards) if r))
        if len(ranks) > 1:
            if any(_natural_rank(c) is None for c in cards):
                raise _Refusal(
                    f"which meld do the wild cards of {ctx.show(cards)!r} belong to? "
                    "separate melds with commas, e.g. meld Kh Kd 2c, 5s 5h 5d"
                )
            out += [[c for c in cards if _natural_rank(c) == r] for r in ranks]
        else:
            out.append(cards)
    return out


_RANK_WORDS = {
    "ace": "A",
    "aces": "A",
    "king": "K",
    "kings": "K",
    "queen": "Q",
    "queens": "Q",
    "jack": "J",
    "jacks": "J",
    "ten": "T",
    "tens": "T",
    "nine": "9",
    "nines": "9",
    "eight": "8",
    "eights": "8",
    "seven": "7",
    "sevens": "7",
    "six": "6",
    "sixes": "6",
    "five": "5",
    "fives": "5",
    "four": "4",
    "fours": "4",
    "three": "3",
    "threes": "3",
    "two": "2",
    "twos": "2",
    "jokers": "W",
    "wild": "W",
    "wilds": "W",
    "w": "W",
}
_RANK_TARGET = re.compile(r"(10|[2-9tjqka])(?:'s|s|es)?")
_TILE_TARGET = re.compile(r"(1[0-3]|[1-9]|[tjqka])(?:'s|s|es)?")


def _key_of_card(card: str, ctx: _Context) -> str:
    if card == JOKER:
        return "2" if ctx.tiles else "W"
    return card[0]


def _target(tokens: list[str], ctx: _Context) -> str:
    """The meld key named after "to": a card of the rank, a rank, a rank word."""
    words = [t for t in tokens if t not in _TARGET_FILLERS]
    if not words:
        raise _Refusal("add to which meld? e.g. add 5c to fives")
    key: str | None = None
    if len(words) == 1:
        word = words[0]
        pattern = _TILE_TARGET if ctx.tiles else _RANK_TARGET
        m = pattern.fullmatch(word)
        if word in _RANK_WORDS:
            key = _RANK_WORDS[word]
        elif m:
            key = _RANK_CODES.get(m.group(1), m.group(1).upper())
    if key is None:
        try:
            cards = _read_cards(words, ctx)
        except _Refusal:
            raise _Refusal(
                f"{_shorten(' '.join(words))!r} is not a meld: name a card or a rank, "
                "e.g. to 5s, to fives, to kings"
            ) from None
        if len(cards) != 1:
            raise _Refusal(f"add to one meld at a time, not {_shorten(' '.join(words))!r}")
        key = _key_of_card(cards[0], ctx)
    return key


def _adds(sections: list[list[str]], ctx: _Context, new_keys: list[str]) -> dict[str, list[str]]:
    """Additions of the ``add`` sections: {meld key: cards}."""
    out: dict[str, list[str]] = {}
    loose: list[str] = []
    for tokens in sections:
        for part in _split(tokens, _SEPARATORS):
            at = next((i for i, t in enumerate(part) if t in _TARGET_WORDS), None)
            cards = _read_cards(part if at is None else part[:at], ctx)
            if at is None:
                loose += cards
                continue
            if not cards:
                raise _Refusal(f"add what to {' '.join(part[at + 1 :])!r}? e.g. add 5c to fives")
            key = _target(part[at + 1 :], ctx)
            out.setdefault(key, []).extend(cards)
    if not loose:
        return out
    ranks = list(dict.fromkeys(r for r in map(_natural_rank, loose) if r))
    wilds = [c for c in loose if _natural_rank(c) is None]
    for rank in ranks:
        out.setdefault(rank, []).extend(c for c in loose if _natural_rank(c) == rank)
    if wilds:
        shown = ctx.show(wilds)
        if len(ranks) == 1:
            out[ranks[0]].extend(wilds)
        elif ranks:
            raise _Refusal(f"which meld gets {shown}? say e.g. add {shown} to kings")
        else:
            known = ctx.side_keys | set(new_keys)
            known.discard("3")
            if len(known) != 1:
                raise _Refusal(f"which meld gets {shown}? say e.g. add {shown} to kings")
            out.setdefault(next(iter(known)), []).extend(wilds)
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
    sections = _sections("take", tokens)
    head = sections[0][1]
    i = 0
    while i < len(head) and head[i] in _PILE_FILLERS:
        i += 1
    with_word = i < len(head) and head[i] in ("with", "using")
    cards = _read_cards(head[i + 1 if with_word else i :], ctx)
    if with_word and not cards:
        raise _Refusal("take the pile with which cards? e.g. take with 7h 7d")
    melds: list[list[str]] = []
    for keyword, section in sections[1:]:
        if keyword == "add":
            raise _Refusal(
                "taking the pile cannot add to melds in the same command: "
                "put the add on its own line after the take"
            )
        if not section:
            raise _Refusal("meld what? e.g. take with 7h 7d and meld Kh Kd 2c")
        melds += _groups(section, ctx)
    action: ActionJSON = {"type": "pickup"}
    chosen = cards or _pair_for_pile(ctx)
    if chosen:
        action["cards"] = chosen
    if melds:
        action["melds"] = melds
    return action


def _pair_for_pile(ctx: _Context) -> list[str] | None:
    """The cards ``take`` means when none are named (see the module docstring)."""
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
        raise _Refusal(
            f"say which cards take the pile, e.g. take with {ctx.show(naturals)} {ctx.show(['2C'])}"
        )
    return None


def _parse_meld(verb: str, tokens: list[str], ctx: _Context) -> ActionJSON:
    melds: list[list[str]] = []
    add_sections: list[list[str]] = []
    for keyword, section in _sections(verb, tokens):
        if not section:
            example = "meld 7h 7d 7s" if keyword == "meld" else "add 5c to fives"
            raise _Refusal(f"{keyword} what? e.g. {example}")
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


def _parse_one(segment: str, ctx: _Context) -> tuple[ActionJSON | None, str | None]:
    tokens = _tokens(segment)
    seq = tuple(tokens)
    if seq in _ANSWERS:
        return {"type": "answer", "yes": _ANSWERS[seq]}, None
    if seq in _ASK:
        return {"type": "ask_partner"}, None
    if seq in _SERVICES:
        return None, _SERVICES[seq]
    verb = tokens[0]
    rest = tokens[1:]
    if verb in ("resign", "status", "help", "yes", "no", "ask"):
        raise _Refusal(f"{verb!r} takes nothing more; write it alone on its line")
    if verb == "draw":
        extra = [t for t in rest if t not in _DRAW_FILLERS]
        if extra:
            raise _Refusal(f"draw takes no cards ({_shorten(extra[0])!r}): write just draw")
        return {"type": "draw"}, None
    if verb == "pick" and rest[:1] == ["up"]:
        verb, rest = "take", rest[1:]
    if verb == "pick-up":
        verb = "take"
    if verb in ("take", "pickup"):
        action = _parse_pickup(rest, ctx)
        if ctx.top and ctx.top[0] not in "23" and ctx.top != JOKER:
            ctx.side_keys.add(ctx.top[0])
        for meld in action.get("melds", []):
            key = _key_of_meld(meld, ctx)
            if key:
                ctx.side_keys.add(key)
        return action, None
    if verb in ("meld", "add"):
        action = _parse_meld(verb, rest, ctx)
        for meld in action.get("melds", []):
            key = _key_of_meld(meld, ctx)
            if key:
                ctx.side_keys.add(key)
        return action, None
    if verb == "discard":
        cards = _read_cards([t for t in rest if t != "the"], ctx)
        if len(cards) != 1:
            raise _Refusal("discard exactly one card, e.g. discard 9c")
        return {"type": "discard", "card": cards[0]}, None
    raise _Refusal(f"unknown command {_shorten(verb)!r}; commands are: {VERBS}")


def _is_code(value: object) -> bool:
    return isinstance(value, str) and value in ALL_CODES


def _card_count(action: ActionJSON) -> int:
    count = len(action.get("cards") or ())
    count += sum(len(m) for m in action.get("melds", ()))
    return count + sum(len(c) for c in action.get("add", {}).values())


def _context(view: Any) -> _Context:
    view = view if isinstance(view, Mapping) else {}
    variant = view.get("variant")
    rules = VARIANTS.get(variant) if isinstance(variant, str) else None
    hand_raw = view.get("hand")
    hand = [c for c in hand_raw if _is_code(c)] if isinstance(hand_raw, list) else []
    keys: set[str] = set()
    melds = view.get("melds")
    seat = view.get("seat", view.get("turn"))
    if isinstance(melds, list) and melds and isinstance(seat, int) and not isinstance(seat, bool):
        side = melds[seat % len(melds)]
        if isinstance(side, Mapping):
            # Only real meld keys: a malformed view must not put a key like '' into a command.
            keys = {k for k in side if isinstance(k, str) and len(k) == 1 and k in MELD_KEYS}
    pile = view.get("discard")
    top = pile[-1] if isinstance(pile, list) and pile and _is_code(pile[-1]) else None
    return _Context(
        tiles=variant == "tiles",
        rules=rules,
        hand=hand,
        side_keys=keys,
        top=top,
        frozen=view.get("frozen") is True,
        variant=variant if isinstance(variant, str) else "classic",
    )


def parse_commands(text: str, view: Mapping[str, Any] | None) -> ParsedCommands:
    """Parse a reply (already stripped of quotes and signature) into commands.

    ``view`` is the Player view JSON of the replying seat. Raises only `CommandError`.
    """
    try:
        return _parse_commands(text, view)
    except CommandError:
        raise
    except Exception as exc:  # pragma: no cover - a bug; the fuzz tests run with _STRICT
        if _STRICT:
            raise
        raise CommandError("invalid_action", "this reply could not be understood") from exc


def _parse_commands(text: str, view: Mapping[str, Any] | None) -> ParsedCommands:
    if not isinstance(text, str):
        raise CommandError("invalid_action", "a reply must be text")
    if len(text) > MAX_TEXT_LENGTH:
        raise CommandError(
            "invalid_action", f"the reply is too long (more than {MAX_TEXT_LENGTH} characters)"
        )
    ctx = _context(view)
    commands: list[Command] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if len(raw) > MAX_LINE_LENGTH:
            raise CommandError(
                "invalid_action",
                f"line too long ({len(raw)} characters; at most {MAX_LINE_LENGTH})",
                _shorten(raw, 80),
                number,
            )
        for piece in (p for part in raw.split(";") for p in _chain_split(part)):
            segment = piece.strip()
            if not _tokens(segment):
                continue
            if len(commands) >= MAX_COMMANDS:
                raise CommandError(
                    "invalid_action",
                    f"too many commands: at most {MAX_COMMANDS} in one reply",
                    segment,
                    number,
                )
            try:
                action, service = _parse_one(segment, ctx)
                if action is not None and _card_count(action) > MAX_CARDS_IN_ACTION:
                    raise _Refusal(f"too many cards in one command (at most {MAX_CARDS_IN_ACTION})")
            except _Refusal as refusal:
                raise CommandError("invalid_action", str(refusal), segment, number) from None
            commands.append(Command(segment, number, action=action, service=service))
    return ParsedCommands(tuple(commands))


# --- actions back to commands ------------------------------------------------------

_SUIT_LETTERS = {"S": "s", "H": "h", "D": "d", "C": "c"}
_TILE_COLOUR_NAMES = {"H": "red", "D": "yellow", "S": "black", "C": "blue"}
_TILE_NUMBERS = {"A": "1", "T": "10", "J": "11", "Q": "12", "K": "13"}
_TARGET_NAMES = {
    "A": "aces",
    "K": "kings",
    "Q": "queens",
    "J": "jacks",
    "T": "tens",
    "9": "nines",
    "8": "eights",
    "7": "sevens",
    "6": "sixes",
    "5": "fives",
    "4": "fours",
    "3": "threes",
    "2": "twos",
    "W": "jokers",
}


def format_card(card: str, variant: str) -> str:
    """A card as a command writes it: ``7h``, ``10s``, ``Kd``, ``JK``; tiles: ``7 red``."""
    if card == JOKER:
        return "joker" if variant == "tiles" else "JK"
    if variant == "tiles":
        return f"{_TILE_NUMBERS.get(card[0], card[0])} {_TILE_COLOUR_NAMES[card[1]]}"
    rank = "10" if card[0] == "T" else card[0]
    return rank + _SUIT_LETTERS[card[1]]


def _cards_text(cards: Sequence[str], variant: str) -> str:
    # Sorted for reading (high to low, wild cards last); order never matters to the engine.
    return " ".join(format_card(c, variant) for c in sorted(cards, key=sort_key))


def _target_text(key: str, variant: str) -> str:
    if variant == "tiles" and key != "W":
        return _TILE_NUMBERS.get(key, key)
    return _TARGET_NAMES.get(key, key)


def _melds_text(melds: Sequence[Sequence[str]], variant: str) -> str:
    return ", ".join(_cards_text(m, variant) for m in melds)


def format_action(action: Mapping[str, Any], variant: str) -> str:
    """The command that produces ``action`` (an engine action dict) for the replying seat.

    ``parse_commands(format_action(a, v), view)`` gives back ``a`` (a pickup without cards
    is written ``take``, which means exactly that whenever such a pickup is legal).
    """
    kind = action.get("type")
    if kind == "draw":
        return "draw"
    if kind == "pickup":
        text = "take"
        if action.get("cards"):
            text += " with " + _cards_text(action["cards"], variant)
        if action.get("melds"):
            text += " and meld " + _melds_text(action["melds"], variant)
        return text
    if kind == "meld":
        parts = []
        if action.get("melds"):
            parts.append("meld " + _melds_text(action["melds"], variant))
        if action.get("add"):
            adds = ", ".join(
                f"{_cards_text(cards, variant)} to {_target_text(key, variant)}"
                for key, cards in action["add"].items()
            )
            parts.append("add " + adds)
        return " and ".join(parts)
    if kind == "discard":
        return "discard " + format_card(action["card"], variant)
    if kind == "ask_partner":
        return "ask"
    if kind == "answer":
        return "yes" if action.get("yes") else "no"
    raise ValueError(f"not an action: {action!r}")


def format_actions(actions: Sequence[Mapping[str, Any]], variant: str) -> str:
    """Several actions as one line of commands separated by ``;`` (e.g. a way to go out)."""
    return "; ".join(format_action(a, variant) for a in actions)


# --- help --------------------------------------------------------------------------


def help_text(variant: str = "classic") -> str:
    """The plain-text help of the command language, as turn emails carry it."""
    if variant == "tiles":
        cards = (
            "Tiles: a number 1-13 and a colour (7 red, 13 blue, 1 yellow), or joker.\n"
            "Codes work too: 7h (red), 7d (yellow), 7s (black), 7c (blue); 1 = A,\n"
            "11 12 13 = J Q K."
        )
        pair, three = "7 red 7 yellow", "7 red 7 yellow 7 black"
        kings, fives = "13 red 13 yellow 2 blue", "5 black 5 red 5 yellow"
        add5, add_wild, nine = "add 5 blue to 5", "add 2 blue to 13", "9 blue"
        add_plain = "add 5 blue"
    else:
        cards = (
            "Cards: rank then suit, like 7h, 10s (or Ts), Kd, As; JK is a joker.\n"
            "Suits: s h d c, or the symbols ♠ ♥ ♦ ♣."
        )
        pair, three = "7h 7d", "7h 7d 7s"
        kings, fives = "Kh Kd 2c", "5s 5h 5d"
        add5, add_wild, nine = "add 5c to fives", "add 2c to kings", "9c"
        add_plain = "add 5c"

    def row(command: str, meaning: str) -> str:
        if len(command) > 30:
            return f"  {command}\n  {'':30}  {meaning}"
        return f"  {command:30}  {meaning}"

    rows = [
        row("draw", "draw from the stock"),
        *(
            [row("take", "take the discard pile with your natural pair")]
            if variant in ("family", "tiles")
            else [
                row("take", "take the discard pile (onto your meld of its"),
                row("", "rank, or with your natural pair)"),
            ]
        ),
        row(f"take with {pair}", "take the pile with these cards"),
        row(f"take with {pair} and meld {kings}", "... and lay more melds at once"),
        row(f"meld {three}", "lay a new meld"),
        row(f"meld {kings}, {fives}", "several melds, separated by commas"),
        row(add5, "add to your side's meld"),
        row(add_plain, "(to the meld of the same rank)"),
        row(add_wild, "wild cards: say which meld"),
        row(f"meld {three} and add {add5[4:]}", "melds and additions in one move"),
    ]
    if variant == "party":
        rows.append(row("add 2c to jokers", "add to your wild-card (joker) meld"))
    rows += [
        row(f"discard {nine}", "discard, ending your turn"),
        row("ask", 'ask your partner "may I go out?"'),
        row("yes / no", 'answer your partner\'s "may I go out?"'),
        row("status", "send me the table again"),
        row("help", "send me this help"),
        row("resign", "resign the game"),
    ]
    lines = [
        "HOW TO REPLY",
        "Write commands at the top of your reply, one per line or separated by ;",
        "They are applied in order, all or nothing. Case and spacing do not matter.",
        "But a draw from the stock stands, as at a real table: if a later command",
        "is refused, the draw is kept, and you are told the cards it brought.",
        cards,
        "",
        *rows,
        "",
        f"Example: draw; meld {three}; discard {nine}",
        "Quoted text and your signature are ignored; any other line must be a command.",
    ]
    return "\n".join(lines) + "\n"
