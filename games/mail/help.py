"""The help of the email command language, as every turn email carries it, per language.

The example commands are written by `formatting` in the player's language (so they parse
back: tests/mail/test_commands.py); the explanations are translated with gettext.
"""

from __future__ import annotations

import functools
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from games import display

from .formatting import format_action, format_card, word

_PAIR = ["7H", "7D"]
_THREE = ["7H", "7D", "7S"]
_KINGS = ["KH", "KD", "2C"]
_FIVES = ["5S", "5H", "5D"]


def _row(command: str, meaning: str) -> str:
    if len(command) > 30:
        return f"  {command}\n  {'':30}  {meaning}"
    return f"  {command:30}  {meaning}"


def _cards_explained(variant: str, lang: str) -> str:
    if variant == "tiles":
        return _(
            "Tiles: a number 1-13 and a colour (%(examples)s), or %(joker)s.\n"
            "Codes work too: 7h (red), 7d (yellow), 7s (black), 7c (blue); 1 = A,\n"
            "11 12 13 = J Q K."
        ) % {
            "examples": ", ".join(display.tile_name(c, lang) for c in ("7H", "KC", "AD")),
            "joker": display.tile_name("JK", lang),
        }
    suits = ", ".join(
        f"{display.SYMBOL_OF_SUIT[s]} {display.SUIT_NAMES[lang][s]} "
        f"({display.TYPED_SUITS[lang][s]})"
        for s in "SHDC"
    )
    ranks = ", ".join(
        f"{display.RANK_NAMES[lang][r]} {display.TYPED_RANKS[lang][r]}" for r in "AKQJ"
    )
    return _(
        "Cards: rank then suit, like %(examples)s; JK is a joker.\n"
        "Ranks: %(ranks)s, 2-10. Suits: %(suits)s,\n"
        "or the symbols ♠ ♥ ♦ ♣."
    ) % {
        "examples": " ".join(format_card(c, variant, lang) for c in ("7H", "TS", "KD", "AS")),
        "ranks": ranks,
        "suits": suits,
    }


def _rows(variant: str, lang: str, partners: bool = True) -> list[str]:
    def cmd(action: dict[str, Any]) -> str:
        return format_action(action, variant, lang)

    add5 = cmd({"type": "meld", "add": {"5": ["5C"]}})
    add_wild = cmd({"type": "meld", "add": {"K": ["2C"]}})
    rows = [_row(word("draw", lang), _("draw from the stock"))]
    if variant in ("family", "tiles"):
        rows.append(_row(word("take", lang), _("take the discard pile with your natural pair")))
    else:
        rows.append(_row(word("take", lang), _("take the discard pile (onto your meld of its")))
        rows.append(_row("", _("rank, or with your natural pair)")))
    rows += [
        _row(cmd({"type": "pickup", "cards": _PAIR}), _("take the pile with these cards")),
        _row(
            cmd({"type": "pickup", "cards": _PAIR, "melds": [_KINGS]}),
            _("... and lay more melds at once"),
        ),
        _row(cmd({"type": "meld", "melds": [_THREE]}), _("lay a new meld")),
        _row(
            cmd({"type": "meld", "melds": [_KINGS, _FIVES]}),
            _("several melds, separated by commas"),
        ),
        _row(add5, _("add to your side's meld")),
        _row(
            f"{word('add', lang)} {format_card('5C', variant, lang)}",
            _("(to the meld of the same rank)"),
        ),
        _row(add_wild, _("wild cards: say which meld")),
        _row(
            cmd({"type": "meld", "melds": [_THREE], "add": {"5": ["5C"]}}),
            _("melds and additions in one move"),
        ),
    ]
    if variant == "party":
        rows.append(
            _row(
                cmd({"type": "meld", "add": {"W": ["2C"]}}), _("add to your wild-card (joker) meld")
            )
        )
    w = {name: word(name, lang) for name in ("ask", "yes", "no", "status", "help", "resign")}
    return [
        *rows,
        _row(cmd({"type": "discard", "card": "9C"}), _("discard, ending your turn")),
        # Only where there are partners: a two- or three-player table has nobody to ask.
        *(
            [
                _row(w["ask"], _('ask your partner "may I go out?"')),
                _row(f"{w['yes']} / {w['no']}", _('answer your partner\'s "may I go out?"')),
            ]
            if partners
            else []
        ),
        _row(w["status"], _("send me the table again")),
        _row(w["help"], _("send me this help")),
        _row(w["resign"], _("resign the game")),
        _row(_("%(say)s hello all") % {"say": word("say", lang)}, _("say something to the table")),
    ]


def help_text(variant: str = "classic", lang: str | None = None, partners: bool = True) -> str:
    """The plain-text help of the command language in ``lang`` (default: the active one);
    ``partners``: the table has partnerships (four players or more), so "ask" is offered."""
    return _help_text(variant, display.language_code(lang or translation.get_language()), partners)


# Built once per variant, language and table shape: every turn email carries it twice (text and
# HTML), and it depends on nothing else (the catalogues are loaded once per process).
@functools.lru_cache(maxsize=64)
def _help_text(variant: str, lang: str, partners: bool) -> str:
    with translation.override(lang):
        example = "; ".join(
            [
                word("draw", lang),
                format_action({"type": "meld", "melds": [_THREE]}, variant, lang),
                format_action({"type": "discard", "card": "9C"}, variant, lang),
            ]
        )
        lines = [
            _("HOW TO REPLY"),
            _("Write commands at the top of your reply, one per line or separated by ;"),
            _("They are applied in order, all or nothing. Case and spacing do not matter."),
            _("But a draw from the stock stands, as at a real table: if a later command"),
            _("is refused, the draw is kept, and you are told the cards it brought."),
            _cards_explained(variant, lang),
            *(
                [_("English commands work too (draw, take, meld, add, discard ...).")]
                if lang != "en"
                else []
            ),
            "",
            *_rows(variant, lang, partners),
            "",
            _("Example: %(commands)s") % {"commands": example},
            _("Quoted text and your signature are ignored; any other line must be a command."),
        ]
    return "\n".join(lines) + "\n"
