"""Reading a reply: its lines of commands into engine actions and service commands (the
words and cards of a line are read by `games.mail.reading`).

The grammar and its words are described in `games.mail.commands` (and, for players, in
docs/play-by-email-commands.md); the words of each language are in `games.mail.vocabulary`.
A reply is read in the player's language and English together. `parse_commands` raises
nothing but `CommandError`, whatever the input; its messages are translated into the
language active when it runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.utils.translation import gettext as _

from games import display
from games.engine.actions import MAX_CARDS_IN_ACTION
from games.engine.cards import JOKER, sort_key
from games.engine.errors import EngineError
from games.engine.melds import meld_key

from .formatting import word
from .reading import (
    RANK_CODES,
    ActionJSON,
    Context,
    Refusal,
    context_of,
    line_tokens,
    read_cards,
    shorten,
)
from .vocabulary import GERMAN_SEPARABLE, Words, fold, words_for

MAX_COMMANDS = 50
MAX_LINE_LENGTH = 500
MAX_TEXT_LENGTH = 100_000  # characters, blank lines included: a reply is short
SERVICE_COMMANDS = ("resign", "status", "help")

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
            return f"line {self.line_number} ({shorten(self.line, 60)!r}): {self.message}"
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
    say: str | None = None  # table talk: the words after "say", as written

    @property
    def kind(self) -> str:
        """The action type ("draw", "pickup", ...), the service command or "say"."""
        if self.action is not None:
            return str(self.action["type"])
        if self.say is not None:
            return "say"
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

    @property
    def says(self) -> list[str]:
        """The lines of table talk, in order."""
        return [c.say for c in self.commands if c.say is not None]


# --- splitting a line into commands ------------------------------------------------


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


# --- structure of a line -----------------------------------------------------------


def _strip_separators(tokens: list[str], ctx: Context) -> list[str]:
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


def _is_target_filler(tokens: Sequence[str], index: int, ctx: Context) -> bool:
    """Is ``meld`` at ``index`` part of a target ("add 5c to the fives meld")?"""
    for j in range(index - 1, max(-1, index - 5), -1):
        if tokens[j] in ctx.separators:
            return False
        if tokens[j] in ctx.words.target_words:
            return True
    return False


def _skip_particles(verb: str, tokens: list[str], ctx: Context) -> list[str]:
    """Drop the words a verb carries ("leggja út", "bæta við")."""
    particles = ctx.words.particles.get(verb, frozenset())
    i = 0
    while i < len(tokens) and tokens[i] in particles:
        i += 1
    return tokens[i:]


def _sections(verb: str, tokens: Sequence[str], ctx: Context) -> list[tuple[str, list[str]]]:
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


def _groups(tokens: list[str], ctx: Context) -> list[list[str]]:
    """Melds of a ``meld`` section: "Kh Kd 2c, 5s 5h 5d" or "7h,7d,7s | 5s 5h 5d"."""
    groups: list[tuple[list[str], bool]] = []  # (cards, made of single-card parts)
    for part in _split(tokens, ctx.strong_separators):
        if groups:
            groups[-1] = (groups[-1][0], False)  # a strong separator ends a run
        lists = [read_cards(p, ctx) for p in _split(part, frozenset({","}))]
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
                raise Refusal(
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


def _key_of_card(card: str, ctx: Context) -> str:
    if card == JOKER:
        return "2" if ctx.tiles else "W"
    return card[0]


def _target(tokens: list[str], ctx: Context) -> str:
    """The meld key named after "to": a card of the rank, a rank, a rank word."""
    words = [t for t in tokens if t not in ctx.words.target_fillers]
    if not words:
        raise Refusal(_("add to which meld? e.g. %(example)s") % {"example": _add_example(ctx)})
    key: str | None = None
    if len(words) == 1:
        word_ = words[0]
        m = (_TILE_TARGET if ctx.tiles else _RANK_TARGET).fullmatch(word_)
        if word_ in ctx.words.ranks:
            key = ctx.words.ranks[word_]
        elif word_ in ctx.words.rank_letters:
            key = ctx.words.rank_letters[word_]
        elif m:
            key = RANK_CODES.get(m.group(1), m.group(1).upper())
    if key is None:
        try:
            cards = read_cards(words, ctx)
        except Refusal:
            raise Refusal(
                _("%(words)r is not a meld: name a card or a rank, e.g. %(example)s")
                % {"words": shorten(" ".join(words)), "example": _add_example(ctx)}
            ) from None
        if len(cards) != 1:
            raise Refusal(
                _("add to one meld at a time, not %(words)r") % {"words": shorten(" ".join(words))}
            )
        key = _key_of_card(cards[0], ctx)
    return key


def _add_example(ctx: Context) -> str:
    return ctx.example(_ADD_FIVE)


def _loose_adds(loose: list[str], ctx: Context, new_keys: list[str]) -> dict[str, list[str]]:
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
        raise Refusal(which)
    else:
        known = ctx.side_keys | set(new_keys)
        known.discard("3")
        if len(known) != 1:
            raise Refusal(which)
        out.setdefault(next(iter(known)), []).extend(wilds)
    return out


def _adds(sections: list[list[str]], ctx: Context, new_keys: list[str]) -> dict[str, list[str]]:
    """Additions of the ``add`` sections: {meld key: cards}."""
    out: dict[str, list[str]] = {}
    loose: list[str] = []
    for tokens in sections:
        for part in _split(tokens, ctx.separators):
            at = next((i for i, t in enumerate(part) if t in ctx.words.target_words), None)
            cards = read_cards(part if at is None else part[:at], ctx)
            if at is None:
                loose += cards
                continue
            if not cards:
                raise Refusal(
                    _("add what to %(target)r? e.g. %(example)s")
                    % {"target": " ".join(part[at + 1 :]), "example": _add_example(ctx)}
                )
            key = _target(part[at + 1 :], ctx)
            out.setdefault(key, []).extend(cards)
    if loose:
        for key, cards in _loose_adds(loose, ctx, new_keys).items():
            out.setdefault(key, []).extend(cards)
    return out


def _key_of_meld(cards: list[str], ctx: Context) -> str | None:
    if ctx.rules is None:
        return next((r for r in map(_natural_rank, cards) if r), None)
    try:
        return meld_key(ctx.rules, cards)
    except EngineError:
        return None


# --- one command -------------------------------------------------------------------


def _parse_pickup(tokens: list[str], ctx: Context) -> ActionJSON:
    sections = _sections("take", tokens, ctx)
    head = sections[0][1]
    i = 0
    while i < len(head) and head[i] in ctx.words.pile_fillers:
        i += 1
    with_word = i < len(head) and head[i] in ctx.words.with_words
    cards = read_cards(head[i + 1 if with_word else i :], ctx)
    if with_word and not cards:
        raise Refusal(
            _("take the pile with which cards? e.g. %(example)s")
            % {"example": ctx.example(_TAKE_WITH)}
        )
    melds: list[list[str]] = []
    for keyword, section in sections[1:]:
        if keyword == "add":
            raise Refusal(
                _(
                    "taking the pile cannot add to melds in the same command: "
                    "put the addition on its own line after the take"
                )
            )
        if not section:
            raise Refusal(_("meld what? e.g. %(example)s") % {"example": ctx.example(_TAKE_MELD)})
        melds += _groups(section, ctx)
    action: ActionJSON = {"type": "pickup"}
    chosen = cards or _pair_for_pile(ctx)
    if chosen:
        action["cards"] = chosen
    if melds:
        action["melds"] = melds
    return action


def _pair_for_pile(ctx: Context) -> list[str] | None:
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
        raise Refusal(_("say which cards take the pile, e.g. %(example)s") % {"example": example})
    return None


def _parse_meld(verb: str, tokens: list[str], ctx: Context) -> ActionJSON:
    melds: list[list[str]] = []
    add_sections: list[list[str]] = []
    for keyword, section in _sections(verb, tokens, ctx):
        if not section:
            if keyword == "meld":
                raise Refusal(
                    _("meld what? e.g. %(example)s") % {"example": ctx.example(_ONE_MELD)}
                )
            raise Refusal(_("add what? e.g. %(example)s") % {"example": _add_example(ctx)})
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


def _parse_discard(rest: list[str], ctx: Context) -> ActionJSON:
    cards = read_cards([t for t in rest if t not in ("the", "die", "den")], ctx)
    if len(cards) != 1:
        raise Refusal(
            _("discard exactly one card, e.g. %(example)s (to lay a meld write %(meld)s)")
            % {
                "example": ctx.example({"type": "discard", "card": "9C"}),
                "meld": word("meld", ctx.lang),
            }
        )
    return {"type": "discard", "card": cards[0]}


def _remember_melds(action: ActionJSON, ctx: Context) -> None:
    """Melds this command starts count for later ``take``/``add`` of the same reply."""
    if action["type"] == "pickup" and ctx.top and ctx.top[0] not in "23" and ctx.top != JOKER:
        ctx.side_keys.add(ctx.top[0])
    for meld in action.get("melds", []):
        key = _key_of_meld(meld, ctx)
        if key:
            ctx.side_keys.add(key)


def _phrase(seq: tuple[str, ...], ctx: Context) -> tuple[ActionJSON | None, str | None] | None:
    meaning = ctx.words.phrases.get(seq)
    if meaning is None:
        return None
    kind, value = meaning
    if kind == "answer":
        return {"type": "answer", "yes": bool(value)}, None
    if kind == "ask":
        return {"type": "ask_partner"}, None
    return None, str(value)


def _verbs_list(ctx: Context) -> str:
    names = ("draw", "take", "meld", "add", "discard", "yes", "no", "ask", "resign", "status")
    return ", ".join(word(n, ctx.lang) for n in (*names, "help"))


def _german_order(tokens: list[str], ctx: Context) -> list[str]:
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


def _parse_one(segment: str, ctx: Context) -> tuple[ActionJSON | None, str | None]:
    tokens = _german_order(line_tokens(segment), ctx)
    found = _phrase(tuple(tokens), ctx)
    if found is not None:
        return found
    head, rest = tokens[0], tokens[1:]
    if _phrase((head,), ctx) is not None:
        raise Refusal(_("%(word)r takes nothing more; write it alone on its line") % {"word": head})
    verb = ctx.words.verbs.get(head)
    if head == "pick" and rest[:1] == ["up"]:
        verb, rest = "take", rest[1:]
    if verb is None:
        raise Refusal(
            _("unknown command %(word)r; commands are: %(verbs)s")
            % {"word": shorten(head), "verbs": _verbs_list(ctx)}
        )
    rest = _skip_particles(verb, rest, ctx)
    if verb == "draw":
        extra = [t for t in rest if t not in ctx.words.draw_fillers]
        if extra:
            raise Refusal(
                _("draw takes no cards (%(word)r): write just %(draw)s")
                % {"word": shorten(extra[0]), "draw": word("draw", ctx.lang)}
            )
        return {"type": "draw"}, None
    if verb == "discard":
        return _parse_discard(rest, ctx), None
    action = _parse_pickup(rest, ctx) if verb == "take" else _parse_meld(verb, rest, ctx)
    _remember_melds(action, ctx)
    return action, None


def _card_count(action: ActionJSON) -> int:
    count = len(action.get("cards") or ())
    count += sum(len(m) for m in action.get("melds", ()))
    return count + sum(len(c) for c in action.get("add", {}).values())


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


_SAY = re.compile(r"^\W*?(\w+)\s*[:,-]?\s*(.*)$", re.DOTALL)


def say_of(line: str, words: Words) -> str | None:
    """The words said when ``line`` is a line of table talk ("say good luck", "sagen: Hallo",
    "segja takk"), else None. A say line is never read as a command: its words after the say
    word are not split on ";" or "and"."""
    match = _SAY.match(line.strip())
    if match is None or fold(match.group(1)) not in words.say_words:
        return None
    return match.group(2).strip()


def _segments(text: str, words: Words) -> Iterator[tuple[int, str]]:
    """(line number, command text) of each command of the reply, long lines refused."""
    for number, raw in enumerate(text.splitlines(), start=1):
        if len(raw) > MAX_LINE_LENGTH:
            raise CommandError(
                "invalid_action",
                _("line too long (%(length)d characters; at most %(limit)d)")
                % {"length": len(raw), "limit": MAX_LINE_LENGTH},
                shorten(raw, 80),
                number,
            )
        if say_of(raw, words) is not None:
            yield number, raw.strip()
            continue
        for piece in (p for part in raw.split(";") for p in _chain_split(part, words)):
            segment = piece.strip()
            if line_tokens(segment):
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
    ctx = context_of(view, lang)
    commands: list[Command] = []
    for number, segment in _segments(text, ctx.words):
        if len(commands) >= MAX_COMMANDS:
            raise CommandError(
                "invalid_action",
                _("too many commands: at most %(limit)d in one reply") % {"limit": MAX_COMMANDS},
                segment,
                number,
            )
        said = say_of(segment, ctx.words)
        if said is not None:
            if not said:
                raise CommandError(
                    "invalid_action",
                    _("write your message after %(say)s on the same line")
                    % {"say": word("say", ctx.lang)},
                    segment,
                    number,
                )
            commands.append(Command(segment, number, say=said))
            continue
        try:
            action, service = _parse_one(segment, ctx)
            if action is not None and _card_count(action) > MAX_CARDS_IN_ACTION:
                raise Refusal(
                    _("too many cards in one command (at most %(limit)d)")
                    % {"limit": MAX_CARDS_IN_ACTION}
                )
        except Refusal as refusal:
            raise CommandError("invalid_action", str(refusal), segment, number) from None
        commands.append(Command(segment, number, action=action, service=service))
    return ParsedCommands(tuple(commands))


# A German command with its verb last is short ("Kreuz 6 abwerfen", "mit 7h 7ka nehmen"); a
# longer line ending in a verb is prose (a disclaimer wrapped before "... zu nehmen").
_VERB_LAST_TOKENS = 10


def is_command_line(line: str, *, lang: str = display.DEFAULT_LANGUAGE) -> bool:
    """Does ``line`` start like a command (a verb or a whole-line command of the languages
    read)? Used to tell a signature from a mistyped command (games.mail.body)."""
    words = words_for(lang)
    tokens = line_tokens(line)
    if not tokens:
        return False
    if tuple(tokens) in words.phrases or tokens[0] in words.verbs:
        return True
    # German puts the verb last ("Karte ziehen", "Kreuz 6 abwerfen") or splits it ("lege 7p
    # 7h 7ka aus"): such a line is a command as much as "ziehen" is (_german_order).
    german = "de" in words.languages and 2 <= len(tokens) <= _VERB_LAST_TOKENS
    if german and (tokens[-1] in words.verbs or (tokens[0], tokens[-1]) in GERMAN_SEPARABLE):
        return True
    if tokens[0] in words.say_words:
        return True
    return tokens[0] == "pick" and tokens[1:2] == ["up"]
