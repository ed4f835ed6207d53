"""The command language in English, German and Icelandic: no word means two things, every
command the service writes parses back, and the words players use are understood."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.utils import translation

from games import display
from games.engine import legal_actions, player_view
from games.mail.commands import (
    CommandError,
    format_action,
    format_actions,
    help_text,
    parse_commands,
)
from games.mail.vocabulary import VOCABULARIES, fold, words_for
from tests.mail.positions import positions
from tests.mail.test_commands import CLASSIC, TILES
from tests.mail.test_roundtrip import _normal_action, _same_effect

LANGS = ("en", "de", "is")


def _meanings(lang: str) -> dict[str, set[tuple[str, str]]]:
    """Every folded word of ``lang`` with what it means, by the part of a command it is."""
    v = VOCABULARIES[lang]
    out: dict[str, set[tuple[str, str]]] = {}

    def put(word: str, meaning: tuple[str, str]) -> None:
        out.setdefault(fold(word), set()).add(meaning)

    for word, verb in v.verbs.items():
        put(word, ("command", verb))
    for phrase, (kind, value) in v.phrases.items():
        if len(phrase.split()) == 1:
            put(phrase, ("command", f"{kind}:{value}"))
    for word, key in v.ranks.items():
        put(word, ("rank", key))
    for word, suit in v.suits.items():
        put(word, ("suit", suit))
    for word, suit in v.colours.items():
        put(word, ("colour", suit))
    for word in v.jokers:
        put(word, ("card", "JK"))
    for name in ("connectors", "with_words", "target_words"):
        for word in getattr(v, name):
            put(word, ("joins", name))
    return out


def test_no_word_means_different_things_in_two_languages() -> None:
    tables = {lang: _meanings(lang) for lang in LANGS}
    clashes = []
    for a, b in itertools.combinations(LANGS, 2):
        for word in tables[a].keys() & tables[b].keys():
            if tables[a][word] != tables[b][word]:
                clashes.append((word, a, tables[a][word], b, tables[b][word]))
    assert clashes == []


def test_no_word_is_two_things_in_one_language() -> None:
    for lang in LANGS:
        merged: dict[str, set[tuple[str, str]]] = {}
        for code in ("en", lang):
            for word, meanings in _meanings(code).items():
                merged.setdefault(word, set()).update(meanings)
        # A word may join commands in several ways ("auf": to / pick up), never be both a
        # command and a card or target.
        for word, meanings in merged.items():
            kinds = {kind for kind, _ in meanings}
            assert not ({"command"} & kinds and kinds - {"command"}), (lang, word, meanings)
            commands = {m for m in meanings if m[0] == "command"}
            assert len(commands) <= 1, (lang, word, commands)


def test_card_letters_read_one_way_only() -> None:
    """Rank letter + suit letter: every spelling names exactly one card, in every language."""
    for lang in LANGS:
        words = words_for(lang)
        ranks = dict(words.rank_letters) | {str(n): str(n) for n in range(2, 10)} | {"10": "T"}
        seen: dict[str, str] = {}
        for (r, rank), (s, suit) in itertools.product(ranks.items(), words.suit_letters.items()):
            code = rank + suit
            assert seen.setdefault(r + s, code) == code, (lang, r + s)


@pytest.mark.parametrize("lang", ("de", "is"))
def test_every_legal_action_written_in_the_language_parses_back(lang: str) -> None:
    checked = 0
    for _label, table in positions():
        seat = table.turn
        view = player_view(table, seat)
        legal = legal_actions(table, seat)
        for action in legal.actions():
            line = format_action(action, view["variant"], lang)
            parsed = parse_commands(line, view, lang=lang).actions
            assert len(parsed) == 1, (lang, line)
            assert _normal_action(parsed[0]) == _normal_action(action), (lang, line)
            checked += 1
        if legal.going_out:
            line = format_actions(legal.going_out, view["variant"], lang)
            got = parse_commands(line, view, lang=lang).actions
            _same_effect(table, seat, legal.going_out, got)
    assert checked > 100


@pytest.mark.parametrize("lang", ("de", "is"))
@pytest.mark.parametrize("variant", ["classic", "family", "party", "tiles"])
def test_help_examples_parse_in_each_language(lang: str, variant: str) -> None:
    with translation.override(lang):
        text = help_text(variant, lang)
    view = {**(TILES if variant == "tiles" else CLASSIC), "variant": variant}
    for line in text.splitlines():
        if line.startswith("  ") and line.strip() and not line.startswith("   "):
            command = line.strip().split("  ")[0]
            for part in command.split(" / "):
                assert len(parse_commands(part, view, lang=lang)) == 1, part
    example = next(line for line in text.splitlines() if line.startswith(("Beispiel:", "Dæmi:")))
    assert len(parse_commands(example.split(": ", 1)[1], view, lang=lang)) == 3


def one(text: str, lang: str, view: dict[str, Any] | None = None) -> dict[str, Any]:
    actions = parse_commands(text, view or CLASSIC, lang=lang).actions
    assert len(actions) == 1, actions
    return actions[0]


def test_german_commands() -> None:
    assert one("Ziehen", "de") == {"type": "draw"}
    assert one("ziehe eine Karte vom Talon", "de") == {"type": "draw"}
    assert one("nehmen mit 7h 7ka", "de") == {"type": "pickup", "cards": ["7H", "7D"]}
    assert one("kaufen mit 7 Herz, Karo 7", "de") == {
        "type": "pickup",
        "cards": ["7H", "7D"],
    }
    assert one("auslegen Dame Herz, Dame Pik, Kreuz-Dame", "de") == {
        "type": "meld",
        "melds": [["QH", "QS", "QC"]],
    }
    assert one("melden Bh Bka Bkr", "de") == {"type": "meld", "melds": [["JH", "JD", "JC"]]}
    assert one("anlegen 5kr an die Fünfen", "de") == {"type": "meld", "add": {"5": ["5C"]}}
    assert one("anlegen 2p an Könige", "de") == {"type": "meld", "add": {"K": ["2S"]}}
    assert one("anlegen 5kr an D", "de") == {"type": "meld", "add": {"Q": ["5C"]}}
    assert one("abwerfen Kreuz As", "de") == {"type": "discard", "card": "AC"}
    assert one("ablegen 9♣", "de") == {"type": "discard", "card": "9C"}
    assert one("JA", "de") == {"type": "answer", "yes": True}
    assert one("nein", "de") == {"type": "answer", "yes": False}
    assert one("Darf ich ausmachen?", "de") == {"type": "ask_partner"}
    assert parse_commands("Ich gebe auf", CLASSIC, lang="de").services == ["resign"]
    assert parse_commands("hilfe", CLASSIC, lang="de").services == ["help"]
    assert [
        c.kind
        for c in parse_commands(
            "ziehen und auslegen 7p 7h 7ka, dann abwerfen 9kr", CLASSIC, lang="de"
        )
    ] == [
        "draw",
        "meld",
        "discard",
    ]
    # English always works too.
    assert one("discard 9c", "de") == {"type": "discard", "card": "9C"}


def test_german_word_order() -> None:
    """The verb last ("9kr abwerfen") or split around the cards ("lege ... aus")."""
    assert one("Karte ziehen", "de") == {"type": "draw"}
    assert one("Bube Herz abwerfen", "de") == {"type": "discard", "card": "JH"}
    assert one("7p 7h 7ka auslegen", "de") == {"type": "meld", "melds": [["7S", "7H", "7D"]]}
    assert one("lege 7p 7h 7ka aus", "de") == {"type": "meld", "melds": [["7S", "7H", "7D"]]}
    assert one("lege 5kr an die Fünfen an", "de") == {"type": "meld", "add": {"5": ["5C"]}}
    assert one("werfe 9kr ab", "de") == {"type": "discard", "card": "9C"}
    assert one("nehme 7h 7ka auf", "de") == {"type": "pickup", "cards": ["7H", "7D"]}
    # German only: for an English player "9c discard" stays an unknown command.
    with pytest.raises(CommandError, match="unknown command"):
        parse_commands("9c discard", CLASSIC, lang="en")


def test_icelandic_commands() -> None:
    assert one("draga", "is") == {"type": "draw"}
    assert one("Taka með 7h 7t", "is") == {"type": "pickup", "cards": ["7H", "7D"]}
    assert one("leggja út drottning hjarta, spaði drottning, Dl", "is") == {
        "type": "meld",
        "melds": [["QH", "QS", "QC"]],
    }
    assert one("leggja niður Gh Gt Gl", "is") == {"type": "meld", "melds": [["JH", "JD", "JC"]]}
    assert one("bæta 5l við fimmurnar", "is") == {"type": "meld", "add": {"5": ["5C"]}}
    assert one("bæta við 5l", "is") == {"type": "meld", "add": {"5": ["5C"]}}
    assert one("baeta 2s vid kongana", "is") == {"type": "meld", "add": {"K": ["2S"]}}
    assert one("kasta tígull ás", "is") == {"type": "discard", "card": "AD"}
    assert one("já", "is") == {"type": "answer", "yes": True}
    assert one("JA", "is") == {"type": "answer", "yes": True}
    assert one("nei", "is") == {"type": "answer", "yes": False}
    assert one("má ég fara út?", "is") == {"type": "ask_partner"}
    assert parse_commands("Ég gefst upp", CLASSIC, lang="is").services == ["resign"]
    assert parse_commands("hjálp", CLASSIC, lang="is").services == ["help"]
    parsed = parse_commands("draga og leggja út 7s 7h 7t, svo kasta 9l", CLASSIC, lang="is")
    assert [c.kind for c in parsed] == ["draw", "meld", "discard"]
    assert one("take with 7h 7d", "is") == {"type": "pickup", "cards": ["7H", "7D"]}


def test_tiles_in_each_language() -> None:
    view = {**TILES, "variant": "tiles"}
    assert one("abwerfen 13 blau", "de", view) == {"type": "discard", "card": "KC"}
    assert one("kasta 13 blár", "is", view) == {"type": "discard", "card": "KC"}
    assert one("kasta rauður 7", "is", view) == {"type": "discard", "card": "7H"}
    assert display.tile_name("7D", "de") == "7 gelb"


def test_a_german_ace_without_suit_is_refused_not_guessed() -> None:
    # "As" is the German word for ace: never read as the English code for the ace of spades.
    with pytest.raises(CommandError, match=r"ace|As"):
        parse_commands("abwerfen As", CLASSIC, lang="de")
    assert one("abwerfen Pik As", "de") == {"type": "discard", "card": "AS"}
    assert one("abwerfen Ap", "de") == {"type": "discard", "card": "AS"}
    assert one("discard As", "en") == {"type": "discard", "card": "AS"}


def test_other_languages_are_not_read_for_an_english_player() -> None:
    with pytest.raises(CommandError, match="unknown command"):
        parse_commands("ziehen", CLASSIC, lang="en")
    with pytest.raises(CommandError, match="unknown command"):
        parse_commands("draga", CLASSIC, lang="de")


def test_refusals_are_in_the_players_language() -> None:
    with translation.override("de"), pytest.raises(CommandError) as error:
        parse_commands("zeihen", CLASSIC, lang="de")
    assert "unbekannter Befehl" in error.value.message and "ziehen" in error.value.message
    with translation.override("is"), pytest.raises(CommandError) as error:
        parse_commands("kasta 9l 9h", CLASSIC, lang="is")
    assert "kastaðu nákvæmlega einu spili" in error.value.message
