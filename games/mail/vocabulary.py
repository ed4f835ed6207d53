"""The words of the email command language, in English, German and Icelandic.

A reply is read with the words of the player's language and English together (an English
word always works). Words are compared folded (`fold`): lower case, without accents, ``ß``
as ``ss``, ``þ`` as ``th``, ``ð`` as ``d``, ``æ`` as ``ae``, so ``König``, ``konig`` and
``KÖNIG`` are one word, as are ``já`` and ``ja``. A folded word means the same thing in every
language that has it (tests/mail/test_vocabulary.py checks this): no word of one language
is ever read as a different command, card or target in another.

Which words were chosen, and why, is documented for players in
docs/play-by-email-commands.md. Card letters and names come from `games.display`.
Pure: standard library only.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from games import display

_FOLD = str.maketrans({"ß": "ss", "þ": "th", "ð": "d", "æ": "ae", "ø": "o", "œ": "oe"})


def fold(word: str) -> str:
    """A word as the vocabularies compare it (see the module docstring)."""
    text = unicodedata.normalize("NFKC", word).lower().translate(_FOLD)
    text = unicodedata.normalize("NFD", text)
    return "".join(c for c in text if not unicodedata.combining(c))


# A whole-line command: ("answer", True), ("ask", None), ("service", "resign").
Phrase = tuple[str, object]


@dataclass(frozen=True)
class Vocabulary:
    """The words of one language (as written; folded when merged)."""

    # word -> "draw", "take", "meld", "add" or "discard"
    verbs: dict[str, str]
    # Words a verb may carry right after it ("pick up", Icelandic "leggja út", "bæta við").
    particles: dict[str, frozenset[str]]
    # Whole lines: "yes", "ich gebe auf", "má ég fara út".
    phrases: dict[str, Phrase]
    connectors: frozenset[str]  # "and", "then": join commands and melds
    with_words: frozenset[str]  # "take with 7h 7d"
    target_words: frozenset[str]  # "add 5c to fives"
    target_fillers: frozenset[str]  # "to the fives meld"
    draw_fillers: frozenset[str]  # "draw a card from the stock"
    pile_fillers: frozenset[str]  # "take the discard pile"
    of_words: frozenset[str] = frozenset()  # "7 of hearts"
    # Rank words, singular and plural (targets: "to kings"; cards: "Dame Herz").
    ranks: dict[str, str] = field(default_factory=dict)
    suits: dict[str, str] = field(default_factory=dict)  # suit words: "hearts", "Herz"
    colours: dict[str, str] = field(default_factory=dict)  # tiles: "red", "rot"
    jokers: frozenset[str] = frozenset()
    # Words that start a line of table talk ("say good luck"): the rest of the line is said
    # to the table as written, never read as a command (docs/table-talk.md).
    say_words: frozenset[str] = frozenset()


def _rank_words(*pairs: tuple[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for words, key in pairs:
        for word in words.split():
            out[word] = key
    return out


def _suit_words(lang: str, extra: dict[str, str]) -> dict[str, str]:
    names = {name.lower(): code for code, name in display.SUIT_NAMES[lang].items()}
    return {**names, **extra}


def _colour_words(lang: str, extra: dict[str, str]) -> dict[str, str]:
    names = {name.lower(): code for code, name in display.TILE_COLOURS[lang].items()}
    return {**names, **extra}


ENGLISH = Vocabulary(
    verbs={
        "draw": "draw",
        "take": "take",
        "pickup": "take",
        "pick-up": "take",
        "meld": "meld",
        "add": "add",
        "discard": "discard",
    },
    particles={"take": frozenset({"up"})},
    phrases={
        "yes": ("answer", True),
        "y": ("answer", True),
        "no": ("answer", False),
        "n": ("answer", False),
        "ask": ("ask", None),
        "ask partner": ("ask", None),
        "ask my partner": ("ask", None),
        "may i go out": ("ask", None),
        "can i go out": ("ask", None),
        "resign": ("service", "resign"),
        "i resign": ("service", "resign"),
        "status": ("service", "status"),
        "help": ("service", "help"),
    },
    connectors=frozenset({"and", "then"}),
    with_words=frozenset({"with", "using"}),
    target_words=frozenset({"to", "onto", "on", "into"}),
    target_fillers=frozenset({"the", "my", "our", "meld", "melds", "of"}),
    draw_fillers=frozenset({"a", "card", "tile", "one", "from", "the", "stock", "deck"}),
    pile_fillers=frozenset({"the", "discard", "pile", "it", "up"}),
    of_words=frozenset({"of"}),
    ranks=_rank_words(
        ("ace aces", "A"),
        ("king kings", "K"),
        ("queen queens", "Q"),
        ("jack jacks", "J"),
        ("ten tens", "T"),
        ("nine nines", "9"),
        ("eight eights", "8"),
        ("seven sevens", "7"),
        ("six sixes", "6"),
        ("five fives", "5"),
        ("four fours", "4"),
        ("three threes", "3"),
        ("two twos", "2"),
        ("jokers wild wilds w", "W"),
    ),
    suits=_suit_words("en", {"spade": "S", "heart": "H", "diamond": "D", "club": "C"}),
    colours=_colour_words("en", {}),
    jokers=frozenset({"jk", "joker", "jkr"}),
    say_words=frozenset({"say", "chat"}),
)

GERMAN = Vocabulary(
    verbs={
        "ziehen": "draw",
        "ziehe": "draw",
        "zieh": "draw",
        "nachziehen": "draw",
        "nehmen": "take",
        "nehme": "take",
        "nimm": "take",
        "aufnehmen": "take",
        "kaufen": "take",
        "kaufe": "take",
        "auslegen": "meld",
        "melden": "meld",
        "melde": "meld",
        "anlegen": "add",
        "dazulegen": "add",
        "abwerfen": "discard",
        "abwerfe": "discard",
        "ablegen": "discard",
    },
    particles={"take": frozenset({"auf"})},
    phrases={
        "ja": ("answer", True),
        "j": ("answer", True),
        "nein": ("answer", False),
        "fragen": ("ask", None),
        "frage": ("ask", None),
        "partner fragen": ("ask", None),
        "frage partner": ("ask", None),
        "frage meinen partner": ("ask", None),
        "darf ich ausmachen": ("ask", None),
        "darf ich ausgehen": ("ask", None),
        "darf ich rausgehen": ("ask", None),
        "darf ich raus": ("ask", None),
        "aufgeben": ("service", "resign"),
        "ich gebe auf": ("service", "resign"),
        "gebe auf": ("service", "resign"),
        "stand": ("service", "status"),
        "hilfe": ("service", "help"),
    },
    connectors=frozenset({"und", "dann", "danach"}),
    with_words=frozenset({"mit"}),
    target_words=frozenset({"an", "zu", "zum", "zur", "auf"}),
    target_fillers=frozenset(
        {"den", "die", "der", "das", "dem", "meine", "meinen", "unsere", "unseren", "satz"}
    ),
    draw_fillers=frozenset({"eine", "karte", "vom", "stock", "talon", "stapel"}),
    pile_fillers=frozenset({"den", "ablagestapel", "stapel", "talon", "auf"}),
    ranks=_rank_words(
        ("as ass asse", "A"),
        ("konig koenig konige koenige konigen koenigen", "K"),
        ("dame damen", "Q"),
        ("bube buben", "J"),
        ("zehn zehnen zehner", "T"),
        ("neun neunen neuner", "9"),
        ("acht achten achter", "8"),
        ("sieben siebenen siebener", "7"),
        ("sechs sechsen sechser", "6"),
        ("funf fuenf funfen fuenfen funfer fuenfer", "5"),
        ("vier vieren vierer", "4"),
        ("drei dreien dreier", "3"),
        ("zwei zweien zweier", "2"),
        ("jokern", "W"),
    ),
    suits=_suit_words("de", {}),
    colours=_colour_words("de", {"rote": "H", "gelbe": "D", "schwarze": "S", "blaue": "C"}),
    jokers=frozenset({"joker"}),
    say_words=frozenset({"sagen", "sage", "sag"}),
)

ICELANDIC = Vocabulary(
    verbs={
        "draga": "draw",
        "dreg": "draw",
        "taka": "take",
        "tek": "take",
        "leggja": "meld",
        "legg": "meld",
        "bæta": "add",
        "bæti": "add",
        "kasta": "discard",
        "henda": "discard",
        "hendi": "discard",
    },
    particles={
        "meld": frozenset({"út", "niður"}),
        "add": frozenset({"við"}),
    },
    phrases={
        "já": ("answer", True),
        "nei": ("answer", False),
        "spyrja": ("ask", None),
        "spyr": ("ask", None),
        "spyrja makker": ("ask", None),
        "spyrja félaga": ("ask", None),
        "má ég fara út": ("ask", None),
        "má ég klára": ("ask", None),
        "gefast upp": ("service", "resign"),
        "gefst upp": ("service", "resign"),
        "ég gefst upp": ("service", "resign"),
        "staða": ("service", "status"),
        "staðan": ("service", "status"),
        "hjálp": ("service", "help"),
    },
    connectors=frozenset({"og", "svo", "síðan"}),
    with_words=frozenset({"með"}),
    target_words=frozenset({"við"}),
    target_fillers=frozenset({"mína", "okkar", "sögnina", "röðina"}),
    draw_fillers=frozenset({"spil", "eitt", "úr", "bunkanum", "stokknum"}),
    pile_fillers=frozenset({"bunkann", "kastbunkann", "hann"}),
    ranks=_rank_words(
        ("ás ása ásar ásana ásunum", "A"),
        ("kóngur kóng kónga kóngar kóngana kóngunum", "K"),
        ("drottning drottningu drottningar drottningarnar", "Q"),
        ("gosi gosa gosar gosana", "J"),
        ("tía tíu tíur tíurnar", "T"),
        ("nía níu níur níurnar", "9"),
        ("átta áttu áttur átturnar", "8"),
        ("sjöa sjöu sjöur sjöurnar", "7"),
        ("sexa sexu sexur sexurnar", "6"),
        ("fimma fimmu fimmur fimmurnar", "5"),
        ("fjarki fjarka fjarkar fjarkana", "4"),
        ("þristur þrista þristar þristana", "3"),
        ("tvistur tvista tvistar tvistana", "2"),
        ("jókerar jókera jókerana villispil", "W"),
    ),
    suits=_suit_words("is", {"spaða": "S", "hjörtu": "H", "tígul": "D", "laufi": "C"}),
    colours=_colour_words(
        "is", {"rauð": "H", "rautt": "H", "gul": "D", "svört": "S", "blá": "C", "blátt": "C"}
    ),
    jokers=frozenset({"jóker"}),
    say_words=frozenset({"segja", "segi"}),
)

VOCABULARIES = {"en": ENGLISH, "de": GERMAN, "is": ICELANDIC}

# German word order: the verb may come last ("9kr abwerfen", "Karte ziehen"), and separable
# verbs split around the cards ("lege 7p 7h 7ka aus", "werfe 9kr ab"). (first word, last
# word) -> verb; the parser reads such a line as if the verb came first.
GERMAN_SEPARABLE: dict[tuple[str, str], str] = {
    ("lege", "aus"): "meld",
    ("leg", "aus"): "meld",
    ("lege", "an"): "add",
    ("leg", "an"): "add",
    ("werfe", "ab"): "discard",
    ("wirf", "ab"): "discard",
    ("nehme", "auf"): "take",
    ("nimm", "auf"): "take",
}


@dataclass(frozen=True)
class Words:
    """The folded words of the languages a reply is read in (the player's and English)."""

    languages: tuple[str, ...]
    verbs: dict[str, str]
    particles: dict[str, frozenset[str]]
    phrases: dict[tuple[str, ...], Phrase]
    connectors: frozenset[str]
    with_words: frozenset[str]
    target_words: frozenset[str]
    target_fillers: frozenset[str]
    draw_fillers: frozenset[str]
    pile_fillers: frozenset[str]
    of_words: frozenset[str]
    ranks: dict[str, str]
    suits: dict[str, str]
    colours: dict[str, str]
    jokers: frozenset[str]
    say_words: frozenset[str]
    rank_letters: dict[str, str]  # "q" -> "Q", "d" -> "Q" (German/Icelandic), "b" -> "J"
    suit_letters: dict[str, str]  # "s" -> "S", "kr" -> "C" (German), "l" -> "C" (Icelandic)
    # Verbs and connectors as written and folded, for splitting the raw text of a line
    # ("draw and meld ..."): every spelling that folds to a verb.
    raw_verbs: frozenset[str]
    raw_connectors: frozenset[str]


def _folded_set(words: frozenset[str]) -> frozenset[str]:
    return frozenset(fold(w) for w in words)


def _folded_map(words: dict[str, str]) -> dict[str, str]:
    return {fold(w): v for w, v in words.items()}


@lru_cache(maxsize=8)
def words_for(lang: str) -> Words:
    """The words a reply of a player writing in ``lang`` is read with (``lang`` + English)."""
    lang = display.language_code(lang)
    languages = ("en",) if lang == "en" else ("en", lang)
    vocabularies = [VOCABULARIES[code] for code in languages]
    particles: dict[str, frozenset[str]] = {}
    for v in vocabularies:
        for verb, extra in v.particles.items():
            particles[verb] = particles.get(verb, frozenset()) | _folded_set(extra)
    rank_letters: dict[str, str] = {"t": "T"}  # English "Ts" as well as "10s"
    suit_letters: dict[str, str] = {}
    for code in languages:
        for rank, letter in display.TYPED_RANKS[code].items():
            if not letter.isdigit():
                rank_letters[fold(letter)] = rank
        for suit, letter in display.TYPED_SUITS[code].items():
            suit_letters[fold(letter)] = suit

    def union(name: str) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for v in vocabularies:
            out |= _folded_set(getattr(v, name))
        return out

    def merged(name: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for v in vocabularies:
            out.update(_folded_map(getattr(v, name)))
        return out

    phrases: dict[tuple[str, ...], Phrase] = {}
    for v in vocabularies:
        for text, meaning in v.phrases.items():
            phrases[tuple(fold(text).split())] = meaning
    return Words(
        languages=languages,
        verbs=merged("verbs"),
        particles=particles,
        phrases=phrases,
        connectors=union("connectors"),
        with_words=union("with_words"),
        target_words=union("target_words"),
        target_fillers=union("target_fillers"),
        draw_fillers=union("draw_fillers"),
        pile_fillers=union("pile_fillers"),
        of_words=union("of_words"),
        ranks=merged("ranks"),
        suits=merged("suits"),
        colours=merged("colours"),
        jokers=union("jokers"),
        say_words=union("say_words"),
        rank_letters=rank_letters,
        suit_letters=suit_letters,
        raw_verbs=frozenset(w for v in vocabularies for w in v.verbs)
        | frozenset(fold(w) for v in vocabularies for w in v.verbs),
        raw_connectors=frozenset(w for v in vocabularies for w in v.connectors)
        | frozenset(fold(w) for v in vocabularies for w in v.connectors),
    )
