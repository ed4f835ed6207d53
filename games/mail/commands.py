"""The command language of email replies (and of any text box that wants it).

`parse_commands(text, view, lang=...)` turns a reply into engine actions (docs/formats.md#actions) and service commands (module `parsing`); `format_action(action, variant, lang)`
writes an action back as the command that produces it (module `formatting`);
`help_text(variant, lang)` is the plain-text help that every turn email carries (module
`help`). This module is their public face and the reference of the grammar below.

Languages: a reply is read in the player's language (English, German or Icelandic) and in
English; the words of each language are in `vocabulary`, the card letters in
`games.display`, and the reference for players is docs/play-by-email-commands.md. The
grammar below is written with the English words; German and Icelandic have the same
structure ("nehmen mit 7h 7ka und auslegen Kh Kka 2kr", "bæta 5l við fimmur").

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

from .formatting import format_action, format_actions, format_card
from .help import help_text
from .parsing import (
    MAX_COMMANDS,
    MAX_LINE_LENGTH,
    MAX_TEXT_LENGTH,
    SERVICE_COMMANDS,
    ActionJSON,
    Command,
    CommandError,
    ParsedCommands,
    is_command_line,
    parse_commands,
)

__all__ = [
    "MAX_COMMANDS",
    "MAX_LINE_LENGTH",
    "MAX_TEXT_LENGTH",
    "SERVICE_COMMANDS",
    "ActionJSON",
    "Command",
    "CommandError",
    "ParsedCommands",
    "format_action",
    "format_actions",
    "format_card",
    "help_text",
    "is_command_line",
    "parse_commands",
]
