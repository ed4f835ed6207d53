"""How cards, tiles and melds are shown to people, in each language: the one place for it.

Used by the turn emails (games/mail/text.py), the email command language
(games/mail/parsing.py and formatting.py), the web pages (web/cards.py) and any API
presenter that wants a label. Pure: standard library and `games.engine` only.

Why tables and not gettext: card names are a vocabulary, not sentences. The command parser
must know the words of every language at once (a German player may write ``Dame`` or
``Q``), and the labels are two or three letters that no translator should have to invent.
Sentences around them are translated with gettext where they are written.

Short forms (typed in email commands and shown in "what you can do now"):

=========  ==========================  ==========================  =========================
language   ranks A K Q J 10            suits ♠ ♥ ♦ ♣               examples
=========  ==========================  ==========================  =========================
en         A K Q J 10 (or T)           s h d c                     ``7h``, ``Qs``, ``10d``
de         A K D B 10  (As, König,     p h ka kr  (Pik, Herz,      ``7h``, ``Dp``, ``Bkr``,
           Dame, Bube)                 Karo, Kreuz)                ``10ka``
is         A K D G 10  (ás, kóngur,    s h t l  (spaði, hjarta,    ``7h``, ``Ds``, ``Gl``,
           drottning, gosi)            tígull, lauf)               ``10t``
=========  ==========================  ==========================  =========================

Kreuz, Karo and König all start with K, so the German suits take two letters (``kr``,
``ka``) and ``K`` alone is always the King. The letters never clash: ``D`` is the Queen in
German and Icelandic alike, ``d`` after a rank is English diamonds, ``B`` and ``G`` are the
Jack. Cards are shown with the suit symbols (``D♠``), which every language reads the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from games.engine.cards import JOKER, is_wild, sort_key

LANGUAGES = ("en", "de", "is")
DEFAULT_LANGUAGE = "en"

# Suit code -> symbol. (games.engine.cards.SUIT_SYMBOLS is the other way: symbol -> code.)
SYMBOL_OF_SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

# Rank code -> the rank as a card label shows it.
RANK_LETTERS: dict[str, dict[str, str]] = {
    "en": {"A": "A", "K": "K", "Q": "Q", "J": "J", "T": "10"},
    "de": {"A": "A", "K": "K", "Q": "D", "J": "B", "T": "10"},
    "is": {"A": "Á", "K": "K", "Q": "D", "J": "G", "T": "10"},
}
# Rank code -> the rank letter as typed in commands (what the parser reads back).
TYPED_RANKS: dict[str, dict[str, str]] = {
    "en": {"A": "A", "K": "K", "Q": "Q", "J": "J", "T": "10"},
    "de": {"A": "A", "K": "K", "Q": "D", "J": "B", "T": "10"},
    "is": {"A": "A", "K": "K", "Q": "D", "J": "G", "T": "10"},
}
# Suit code -> the suit as typed after the rank.
TYPED_SUITS: dict[str, dict[str, str]] = {
    "en": {"S": "s", "H": "h", "D": "d", "C": "c"},
    "de": {"S": "p", "H": "h", "D": "ka", "C": "kr"},
    "is": {"S": "s", "H": "h", "D": "t", "C": "l"},
}
SUIT_NAMES: dict[str, dict[str, str]] = {
    "en": {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"},
    "de": {"S": "Pik", "H": "Herz", "D": "Karo", "C": "Kreuz"},
    "is": {"S": "spaði", "H": "hjarta", "D": "tígull", "C": "lauf"},
}
RANK_NAMES: dict[str, dict[str, str]] = {
    "en": {"A": "Ace", "K": "King", "Q": "Queen", "J": "Jack", "T": "10"},
    "de": {"A": "Ass", "K": "König", "Q": "Dame", "J": "Bube", "T": "10"},
    "is": {"A": "ás", "K": "kóngur", "Q": "drottning", "J": "gosi", "T": "10"},
}
JOKER_NAMES = {"en": "Joker", "de": "Joker", "is": "jóker"}
# Ranks in the plural: hand groups and meld headings ("Kings"), and the targets of ``add``.
RANK_PLURALS: dict[str, dict[str, str]] = {
    "en": {
        "A": "Aces",
        "K": "Kings",
        "Q": "Queens",
        "J": "Jacks",
        "T": "Tens",
        "9": "Nines",
        "8": "Eights",
        "7": "Sevens",
        "6": "Sixes",
        "5": "Fives",
        "4": "Fours",
        "3": "Threes",
        "2": "Twos",
    },
    "de": {
        "A": "Asse",
        "K": "Könige",
        "Q": "Damen",
        "J": "Buben",
        "T": "Zehnen",
        "9": "Neunen",
        "8": "Achten",
        "7": "Siebenen",
        "6": "Sechsen",
        "5": "Fünfen",
        "4": "Vieren",
        "3": "Dreien",
        "2": "Zweien",
    },
    "is": {
        "A": "Ásar",
        "K": "Kóngar",
        "Q": "Drottningar",
        "J": "Gosar",
        "T": "Tíur",
        "9": "Níur",
        "8": "Áttur",
        "7": "Sjöur",
        "6": "Sexur",
        "5": "Fimmur",
        "4": "Fjarkar",
        "3": "Þristar",
        "2": "Tvistar",
    },
}
# Meld keys that are not a rank of natural cards (docs/formats.md "melds").
SPECIAL_KEYS: dict[str, dict[str, str]] = {
    "en": {"W": "Wild cards", "3": "Black threes", "wild": "Wild cards"},
    "de": {"W": "Joker und Zweien", "3": "Schwarze Dreier", "wild": "Joker und Zweien"},
    "is": {"W": "Jókerar og tvistar", "3": "Svartir þristar", "wild": "Jókerar og tvistar"},
}
# Tiles (variant `tiles`): numbers 1-13 in four colours.
TILE_NUMBERS = {"A": "1", "T": "10", "J": "11", "Q": "12", "K": "13"}
TILE_COLOURS: dict[str, dict[str, str]] = {
    "en": {"H": "red", "D": "yellow", "S": "black", "C": "blue"},
    "de": {"H": "rot", "D": "gelb", "S": "schwarz", "C": "blau"},
    "is": {"H": "rauður", "D": "gulur", "S": "svartur", "C": "blár"},
}
TILE_JOKER = {"en": "joker", "de": "Joker", "is": "jóker"}

# Meld keys in the order the table shows them; other keys last.
KEY_ORDER = "AKQJT98765432W"


def language_code(lang: str | None) -> str:
    """One of `LANGUAGES` for a language code ("de-AT" -> "de"); English when unknown."""
    base = (lang or "").lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else DEFAULT_LANGUAGE


# --- one card ------------------------------------------------------------------------


def tile_name(card: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """A tile as people call it: "7 red", "7 rot", "7 rauður"; the joker."""
    lang = language_code(lang)
    if card == JOKER:
        return TILE_JOKER[lang]
    return f"{TILE_NUMBERS.get(card[0], card[0])} {TILE_COLOURS[lang][card[1]]}"


def card_label(
    card: str,
    variant: str = "classic",
    lang: str = DEFAULT_LANGUAGE,
    display: Mapping[str, str] | None = None,
) -> str:
    """A card for people: ``A♠``, ``10♥``, ``D♦`` (German Dame), ``JK``; tiles ``7 rot``.

    ``display`` is the player view's English tile names; it is used for English only.
    """
    lang = language_code(lang)
    if variant == "tiles":
        if lang == "en" and display and isinstance(display.get(card), str):
            return display[card]
        return tile_name(card, lang)
    if card == JOKER:
        return "JK"
    rank = RANK_LETTERS[lang].get(card[0], card[0])
    return rank + SYMBOL_OF_SUIT.get(card[1], card[1])


def typed_card(card: str, variant: str = "classic", lang: str = DEFAULT_LANGUAGE) -> str:
    """A card as a command writes it: ``7h``, ``10s``, ``Kd``, ``JK``; German ``Dp``,
    ``Bkr``; Icelandic ``Ds``, ``Gl``; tiles ``7 red`` / ``7 rot``."""
    lang = language_code(lang)
    if variant == "tiles":
        return tile_name(card, lang)
    if card == JOKER:
        return "JK"
    return TYPED_RANKS[lang].get(card[0], card[0]) + TYPED_SUITS[lang][card[1]]


def card_name(card: str, variant: str = "classic", lang: str = DEFAULT_LANGUAGE) -> str:
    """A card spoken in full: "Queen of spades", "Pik-Dame" / "Herz-Ass" (German writes the
    pair as one word, with a hyphen: Duden), "spaði drottning"."""
    lang = language_code(lang)
    if variant == "tiles":
        return tile_name(card, lang)
    if card == JOKER:
        return JOKER_NAMES[lang]
    rank = RANK_NAMES[lang].get(card[0], card[0])
    suit = SUIT_NAMES[lang][card[1]]
    if lang == "en":
        return f"{rank} of {suit}"
    if lang == "de":
        return f"{suit}-{rank}"
    return f"{suit} {rank}"


# --- ranks and melds -----------------------------------------------------------------


def key_short_label(key: str, variant: str = "classic", lang: str = DEFAULT_LANGUAGE) -> str:
    """A meld key as the turn email heads a meld line: ``A``, ``10``, ``D``, "Twos", "Wild
    cards", "Black threes"; tiles by number (``13``)."""
    lang = language_code(lang)
    if key in SPECIAL_KEYS[lang]:
        return SPECIAL_KEYS[lang][key]
    if key == "2":
        return RANK_PLURALS[lang]["2"]
    if variant == "tiles":
        return TILE_NUMBERS.get(key, key)
    return RANK_LETTERS[lang].get(key, key)


def group_label(key: str, variant: str = "classic", lang: str = DEFAULT_LANGUAGE) -> str:
    """A group of the hand or a meld by rank in words: "Kings", "Könige", "Kóngar"; the wild
    cards' group (key ``wild``); tiles by number ("7s")."""
    lang = language_code(lang)
    if key == "wild":
        return SPECIAL_KEYS[lang]["wild"]
    if variant == "tiles" and key not in ("3", "2"):
        number = TILE_NUMBERS.get(key, key)
        return {"en": f"{number}s", "de": f"{number}er", "is": f"{number}"}[lang]
    return RANK_PLURALS[lang].get(key, key)


def meld_label(key: str, variant: str = "classic", lang: str = DEFAULT_LANGUAGE) -> str:
    """A meld heading: "Wild cards" (party), "Black threes", else the rank in words."""
    lang = language_code(lang)
    if key in ("W", "3"):
        return SPECIAL_KEYS[lang][key]
    return group_label(key, variant, lang)


def meld_order(keys: Iterable[str]) -> list[str]:
    """Meld keys in table order: aces first, down to twos, then the wild-card meld."""
    return sorted(keys, key=lambda k: KEY_ORDER.find(k) if k in KEY_ORDER else 99)


def group_key(card: str) -> str:
    """The hand group of a card: its rank, or ``wild`` for jokers and twos."""
    return "wild" if is_wild(card) else card[0]


def hand_groups(hand: Iterable[str]) -> list[list[str]]:
    """The hand sorted high to low and grouped by rank; wild cards form the last group."""
    groups: list[list[str]] = []
    last = None
    for card in sorted(hand, key=sort_key):
        key = group_key(card)
        if key != last:
            groups.append([])
            last = key
        groups[-1].append(card)
    return groups
