"""Error messages in the reader's language (docs/i18n.md).

The engine and the services stay English and stable: every refusal carries a `code` (never
translated: programs compare it), an English `message` and `details`. This module writes the
message a person reads, in the active language, from the code and the English message's
parts: each known message has a pattern here whose named groups fill the translated
sentence's named placeholders. Card codes in a message ("QS QD") are named as people name
cards ("the Q♠ and Q♦"). A message without a pattern stays as it is in English, and gets the
code's general sentence in another language, so no page mixes two languages.

The API's error renderer (api/errors.py), the web pages (web/views/common.py) and the answers to
emailed moves (mailplay/services/play.py) all use `error_message`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import (
    get_language,
    gettext,
    ngettext,
    pgettext,
)
from django.utils.translation import gettext_lazy as _

# The one place card codes become words for people. games/display.py (helper i18nmail) will
# hold the per-language card names: repoint this import there when it is merged.
from games import l10n
from games.mail.text import card_label
from games.services.errors import ErrorKind, GameError

# games.services.moves.DRAW_STANDS: a refusal after a draw from the stock, which stands.
DRAW_STANDS_PREFIX = "Your draw from the stock stands (a draw cannot be taken back)"
_CARD = re.compile(r"^(?:10|[2-9TJQKA])[SHDC]$|^(?:JK|RJ|BJ|\*)$", re.IGNORECASE)


@dataclass(frozen=True)
class Pattern:
    code: str
    regex: re.Pattern[str]
    text: Callable[[dict[str, Any]], str]


def _card(code: str, variant: str) -> str:
    try:
        return card_label(code, variant)
    except (IndexError, KeyError, TypeError, ValueError):
        return code


def cards_text(codes: Sequence[str], variant: str = "classic") -> str:
    """ "Q♠", "Q♠ and Q♦", "Q♠, Q♦ and 2♣" in the active language."""
    labels = [_card(c, variant) for c in codes]
    if not labels:
        return ""
    if len(labels) == 1:
        return labels[0]
    return gettext("%(first)s and %(last)s") % {"first": ", ".join(labels[:-1]), "last": labels[-1]}


def rank_text(key: str) -> str:
    """A meld's rank as people say it: "10", "Q", the twos, the black threes."""
    names = {
        "T": "10",
        "2": gettext("twos"),
        "W": gettext("wild cards"),
        "3": gettext("black threes"),
    }
    return names.get(key.upper(), key.upper())


def _p(code: str, regex: str, text: Callable[[dict[str, Any]], str]) -> Pattern:
    return Pattern(code, re.compile(f"^{regex}$", re.DOTALL), text)


def _fmt(message: Any, **names: str) -> Callable[[dict[str, Any]], str]:
    """A sentence whose placeholders are filled from the match (cards and ranks as words)."""

    def text(parts: dict[str, Any]) -> str:
        values = {name: parts[source] for name, source in names.items()}
        return str(message) % values if values else str(message)

    return text


def _too_few(parts: dict[str, Any]) -> str:
    # Fewer than three cards: one or two (none is refused before as an empty meld).
    count = len(parts["codes"])
    if count == 0:
        return gettext("A meld needs at least three cards.")
    if count == 1:
        return gettext("The %(card)s alone is no meld: a meld needs at least three cards.") % {
            "card": parts["cards"]
        }
    return gettext("The %(cards)s are only two cards: a meld needs at least three.") % {
        "cards": parts["cards"]
    }


def _sizes_text(sizes: str) -> str:
    """ "3 or 4" (the engine's English) in the active language."""
    numbers = sizes.split(" or ")
    if len(numbers) == 1:
        return numbers[0]
    return gettext("%(first)s or %(last)s") % {
        "first": ", ".join(numbers[:-1]),
        "last": numbers[-1],
    }


def _going_out(parts: dict[str, Any]) -> str:
    need = int(parts["need"])
    return ngettext(
        "Going out needs %(need)s canasta; your side has %(have)s.",
        "Going out needs %(need)s canastas; your side has %(have)s.",
        need,
    ) % {"need": need, "have": parts["have"]}


# (code, the English message as the engine or service writes it, the sentence for people).
# Groups named `cards` hold card codes separated by spaces, `card` one code, `rank` a meld key.
PATTERNS: list[Pattern] = [
    # --- the engine's refusals (games/engine) ---
    _p("not_your_turn", r"it is seat \d+'s turn, not seat \d+'s", _fmt(_("It is not your turn."))),
    _p("hand_over", r"the hand is over", _fmt(_("The hand is over."))),
    _p(
        "card_not_in_hand",
        r"not in hand \(or not often enough\): (?P<cards>.+)",
        _fmt(_("You do not hold %(cards)s (or not that many)."), cards="cards"),
    ),
    _p(
        "wrong_phase",
        r"phase is draw; this action needs phase .+",
        _fmt(_("Draw first: from the stock, or take the discard pile.")),
    ),
    _p(
        "wrong_phase",
        r"phase is answer; this action needs phase .+",
        _fmt(_("Your partner has not answered yet.")),
    ),
    _p(
        "wrong_phase",
        r"phase is \w+; this action needs phase draw",
        _fmt(_("You have already drawn this turn.")),
    ),
    _p(
        "wrong_phase",
        r"phase is \w+; this action needs phase .+",
        _fmt(_("That is not possible at this point of the turn.")),
    ),
    _p(
        "wrong_phase",
        r"you have already asked your partner this turn",
        _fmt(_("You have already asked your partner this turn.")),
    ),
    _p(
        "wrong_phase",
        r"ask before you are down to your last card",
        _fmt(_("Ask your partner before you are down to your last card.")),
    ),
    _p(
        "stock_empty",
        r"the stock is empty and the top card fits a meld: take the pile",
        _fmt(_("The stock is empty and the top card of the pile fits a meld: take the pile.")),
    ),
    _p("pile_empty", r"the discard pile is empty", _fmt(_("The discard pile is empty."))),
    _p(
        "pile_blocked",
        r"(?P<card>\S+) on top of the pile blocks it",
        _fmt(_("The %(card)s on top of the pile blocks it: draw from the stock."), card="card"),
    ),
    _p(
        "pile_frozen",
        r"the pile is frozen: take it with a natural pair of (?P<rank>\S+)",
        _fmt(_("The pile is frozen: take it with a natural pair of %(rank)s."), rank="rank"),
    ),
    _p(
        "pile_frozen",
        r"the pile is frozen: you need a natural pair of (?P<rank>\S+) \((?P<card>\S+)\)",
        _fmt(
            _("The pile is frozen: you need a natural pair to go with the %(card)s."),
            card="card",
        ),
    ),
    _p(
        "pile_frozen",
        r"a frozen pile may be taken only by starting a new meld with the top card",
        _fmt(_("A frozen pile may be taken only by starting a new meld with its top card.")),
    ),
    _p(
        "cannot_take_pile",
        r"your side must make its initial meld before taking the pile",
        _fmt(_("Your side must make its first meld before it may take the pile.")),
    ),
    _p(
        "cannot_take_pile",
        r"the stock is exhausted: the round is over \(draw to end it\)",
        _fmt(_("The stock is used up and the round is over: draw to end it.")),
    ),
    _p(
        "cannot_take_pile",
        r"with one card in hand you may not take a pile of one card",
        _fmt(_("With one card in your hand you may not take a pile of one card.")),
    ),
    _p(
        "cannot_take_pile",
        r"(?P<card>\S+) alone may not take the pile; meld it with two cards",
        _fmt(
            _("The %(card)s alone may not take the pile: meld it with two cards from your hand."),
            card="card",
        ),
    ),
    _p(
        "cannot_take_pile",
        r"taking the pile needs a natural pair of (?P<rank>\S+) \((?P<card>\S+)\)",
        _fmt(_("To take the pile you need a natural pair to go with the %(card)s."), card="card"),
    ),
    _p(
        "cannot_take_pile",
        r"take (?P<card>\S+) with two natural cards or one natural and one wild",
        _fmt(
            _("Take the %(card)s with two natural cards, or one natural card and one wild card."),
            card="card",
        ),
    ),
    _p(
        "no_such_meld",
        r"your side has no (?P<rank>\S+) meld to add (?P<cards>.+) to",
        _fmt(
            _("Your side has no meld of %(rank)s to add the %(cards)s to."),
            rank="rank",
            cards="cards",
        ),
    ),
    _p(
        "invalid_meld",
        r"your side already has a (?P<rank>\S+) meld: add (?P<cards>.+) to it",
        _fmt(
            _("Your side already has a meld of %(rank)s: add the %(cards)s to it."),
            rank="rank",
            cards="cards",
        ),
    ),
    _p(
        "invalid_meld",
        r"(?P<cards>.+) do not belong to the (?P<rank>\S+) meld",
        _fmt(_("The %(cards)s do not belong to the meld of %(rank)s."), cards="cards", rank="rank"),
    ),
    _p(
        "invalid_meld",
        r"(?P<cards>.*) do not meld with (?P<card>\S+)",
        _fmt(_("The %(cards)s do not meld with the %(card)s."), cards="cards", card="card"),
    ),
    _p(
        "invalid_meld",
        r"red threes are never melded: .*",
        _fmt(_("Red threes are never melded: they are laid out by themselves.")),
    ),
    _p(
        "invalid_meld",
        r"threes never form melds in .+: .*",
        _fmt(_("Threes never form melds in this game.")),
    ),
    _p(
        "invalid_meld",
        r"black threes meld only with black threes, no wild cards: .*",
        _fmt(_("Black threes meld only with black threes, without wild cards.")),
    ),
    _p(
        "invalid_meld",
        r"a meld needs natural cards: (?P<cards>.*)",
        _fmt(_("The %(cards)s are no meld: a meld needs natural cards."), cards="cards"),
    ),
    _p(
        "invalid_meld",
        r"mixed ranks in one meld: (?P<cards>.*)",
        _fmt(_("The %(cards)s are of different ranks: a meld is of one rank."), cards="cards"),
    ),
    _p("invalid_meld", r"a meld needs at least 3 cards: (?P<cards>.*)", _too_few),
    _p(
        "invalid_meld",
        r"not a black-three meld: .*",
        _fmt(_("Only black threes go into a meld of black threes.")),
    ),
    _p(
        "invalid_meld",
        r"black threes meld only as (?P<sizes>.+) black threes: .*",
        _fmt(_("Black threes may be melded only as %(sizes)s of them."), sizes="sizes_text"),
    ),
    _p(
        "invalid_meld",
        r"black threes may be melded only when going out: .*",
        _fmt(_("Black threes may be melded only when you go out.")),
    ),
    _p(
        "invalid_meld",
        r"a joker meld holds only wild cards: .*",
        _fmt(_("A meld of wild cards holds only jokers and twos.")),
    ),
    _p(
        "invalid_meld",
        r"a twos meld holds only 2s and jokers: .*",
        _fmt(_("A meld of twos holds only twos and jokers.")),
    ),
    _p(
        "invalid_meld",
        r"a twos meld has at most 2 jokers, always fewer than 2s: .*",
        _fmt(_("A meld of twos has at most two jokers, and always fewer jokers than twos.")),
    ),
    _p(
        "invalid_meld",
        r"(?P<rank>\S+) is not a meld rank",
        _fmt(_("There are no melds of %(rank)s."), rank="rank"),
    ),
    _p(
        "invalid_meld",
        r"cards of another rank in the (?P<rank>\S+) meld: (?P<cards>.*)",
        _fmt(
            _("The %(cards)s do not all belong to the meld of %(rank)s."),
            cards="cards",
            rank="rank",
        ),
    ),
    _p(
        "invalid_meld",
        r"a meld needs at least 2 natural cards: (?P<cards>.*)",
        _fmt(
            _("The %(cards)s are no meld: a meld needs at least two natural cards."),
            cards="cards",
        ),
    ),
    _p(
        "invalid_meld",
        r"too many wild cards for (?P<naturals>\d+) natural cards: (?P<cards>.*)",
        _fmt(_("The %(cards)s hold too many wild cards for their natural cards."), cards="cards"),
    ),
    _p(
        "initial_meld_too_low",
        r"your side's first meld must be worth (?P<need>\d+); these cards are worth (?P<worth>\d+)",
        _fmt(
            _(
                "Your side's first meld must be worth %(need)s points; these cards are worth %(worth)s."
            ),
            need="need",
            worth="worth",
        ),
    ),
    _p(
        "cannot_go_out",
        r"your partner said no: you may not go out this turn",
        _fmt(_("Your partner said no: you may not go out this turn.")),
    ),
    _p(
        "cannot_go_out",
        r"going out needs (?P<need>\d+) canastas?; your side has (?P<have>\d+)",
        _going_out,
    ),
    _p(
        "cannot_go_out",
        r"in .+ you must go out with a discard",
        _fmt(_("In this game you must go out with a discard: keep one card to discard.")),
    ),
    _p(
        "cannot_go_out",
        r"ask only when you can go out this turn",
        _fmt(_("Ask your partner only when you can go out this turn.")),
    ),
    _p(
        "must_keep_card",
        r"you may not go out, so keep two cards: one to discard, one to keep",
        _fmt(_("You may not go out yet, so keep two cards: one to discard and one to keep.")),
    ),
    _p(
        "must_go_out",
        r"your partner said yes: (?:this would leave you unable to go out|you must go out this turn)",
        _fmt(_("Your partner said yes: you must go out this turn.")),
    ),
    _p(
        "invalid_action",
        r"this table does not use the ask_partner option",
        _fmt(_("At this table you do not ask your partner before going out.")),
    ),
    _p("invalid_action", r"you have no partner to ask", _fmt(_("You have no partner to ask."))),
    # --- the services' refusals ---
    _p("not_found", r"No such game\.", _fmt(_("No such game."))),
    _p("not_found", r"No such absence\.", _fmt(_("No such vacation."))),
    _p("not_found", r"No such token\.", _fmt(_("No such token."))),
    _p("not_found", r"No such webhook\.", _fmt(_("No such webhook."))),
    _p("not_found", r"No such resource\.", _fmt(_("No such resource."))),
    _p("not_found", r"No such API endpoint\.", _fmt(_("No such API endpoint."))),
    _p("not_seated", r".*", _fmt(_("You do not play in this game."))),
    _p(
        "game_not_active",
        r"The game is \w+: nothing can be played in it\.",
        _fmt(_("This game is not in play: nothing can be played in it.")),
    ),
    _p(
        "stale_version",
        r"The game is at version \d+, not \d+: reload it\.",
        _fmt(_("The table changed since you loaded it (another player moved): reload it.")),
    ),
    _p(
        "already_joined",
        r"You already have a seat here\.",
        _fmt(_("You already have a seat at this table.")),
    ),
    _p(
        "game_not_open",
        r"The game is \w+: seats are closed\.",
        _fmt(_("This table has started or ended: its seats are closed.")),
    ),
    _p(
        "game_not_open",
        r"The game is \w+: seats can no longer be left \(resign instead\)\.",
        _fmt(_("The game has started: you can no longer leave the table, only resign.")),
    ),
    _p(
        "game_full",
        r".*",
        _fmt(_("Every seat is taken or kept for an invited player.")),
    ),
    _p(
        "permission_denied",
        r"Only the table's creator can call it off.*",
        _fmt(_("Only the player who created the table can call it off (leave it instead).")),
    ),
    _p(
        "cannot_abort",
        r".*",
        _fmt(_("Only a game without any move can be called off (resign instead).")),
    ),
    _p(
        "invalid_invite",
        r"A player is invited twice\.",
        _fmt(_("A player is invited twice.")),
    ),
    _p(
        "invalid_invite",
        r"You take a seat yourself; do not invite yourself\.",
        _fmt(_("You take a seat yourself: please do not invite yourself.")),
    ),
    _p(
        "invalid_invite",
        r"Only (?P<free>\d+) seats are left to invite to\.",
        _fmt(_("Only %(free)s seats are left to invite players to."), free="free"),
    ),
    _p(
        "unknown_user",
        r"No such user: (?P<names>.+)",
        _fmt(_("There is no player with the username %(names)s."), names="names"),
    ),
    _p(
        "invalid_bots",
        r"Only (?P<free>-?\d+) seats are left for bots\.",
        _fmt(
            _("Not enough seats are left for that many bots."),
        ),
    ),
    _p("bots_unavailable", r".*", _fmt(_("Bot seats are not available on this server yet."))),
    _p(
        "invalid_time_control",
        r"turn_seconds must be from (?P<low>\d+) to (?P<high>\d+), or null\.",
        _fmt(
            _("The time per turn must be from %(low)s to %(high)s seconds, or no limit."),
            low="low",
            high="high",
        ),
    ),
    _p(
        "absence_in_the_past",
        r".*",
        _fmt(_("A vacation cannot start in the past.")),
    ),
    _p(
        "invalid_absence",
        r"An absence must end after it starts\.",
        _fmt(_("A vacation must end after it starts.")),
    ),
    _p(
        "invalid_absence",
        r"An absence must end within (?P<days>\d+) days from now\.",
        _fmt(_("A vacation must end within %(days)s days from now."), days="days"),
    ),
    _p(
        "absence_overlaps",
        r".*",
        _fmt(_("This vacation overlaps one you have already planned.")),
    ),
    _p(
        "absence_limit",
        r"At most (?P<limit>\d+) days of absence per year: (?P<used>[\d.]+) already declared "
        r"for (?P<year>\d+), this one adds (?P<wanted>[\d.]+)\.",
        _fmt(
            _(
                "At most %(limit)s days of vacation a year: %(used)s are already planned for "
                "%(year)s, and this one adds %(wanted)s."
            ),
            limit="limit",
            used="used",
            year="year",
            wanted="wanted",
        ),
    ),
    _p("absence_over", r".*", _fmt(_("This vacation is over and stays on record."))),
    _p(
        "not_an_email_player",
        r".*",
        _fmt(_("This setting is for players who play by email: answer a turn email first.")),
    ),
    _p(
        "too_many_tokens",
        r"At most (?P<limit>\d+) live tokens per account; revoke one first\.",
        _fmt(_("At most %(limit)s tokens per account: please revoke one first."), limit="limit"),
    ),
    _p("invalid_request", r"A token needs a name\.", _fmt(_("A token needs a name."))),
    _p(
        "invalid_request",
        r"The request is invalid: see details\.",
        _fmt(_("The request is invalid: see details.")),
    ),
    _p(
        "invalid_request",
        r"Send expected_version in the body or the game's ETag as If-Match\.",
        _fmt(_("Send expected_version in the body or the game's ETag as If-Match.")),
    ),
    _p(
        "invalid_request",
        r"expected_version and If-Match name different versions\.",
        _fmt(_("expected_version and If-Match name different versions.")),
    ),
    _p(
        "invalid_request",
        r"If-Match must be this game's ETag or a version number\.",
        _fmt(_("If-Match must be this game's ETag or a version number.")),
    ),
    _p(
        "unknown_variant",
        r"Unknown variant .*",
        _fmt(_("There is no such variant of Canasta here.")),
    ),
    _p(
        "invalid_players",
        r"(?P<title>.+) is played by (?P<counts>[\d, ]+) players\.",
        _fmt(_("This variant is played by %(counts)s players."), counts="counts"),
    ),
    _p(
        "invalid_time_control",
        r"Unknown timeout policy .*",
        _fmt(_("There is no such rule for when the time runs out.")),
    ),
    _p("invalid_bots", r"Unknown bot level .*", _fmt(_("There is no such bot level."))),
    _p("invalid_request", r"actions must not be empty\.", _fmt(_("Send at least one move."))),
    _p(
        "invalid_request",
        r"At most (?P<count>\d+) actions per request\.",
        _fmt(_("At most %(count)s moves per request."), count="count"),
    ),
    _p(
        "idempotency_key_reused",
        r".*",
        _fmt(_("This Idempotency-Key was used for a different request.")),
    ),
    _p(
        "request_in_progress",
        r".*",
        _fmt(_("A request with this Idempotency-Key is still being processed; retry shortly.")),
    ),
    _p(
        "invalid_absence",
        r"starts_at and ends_at need a time zone\.",
        _fmt(_("starts_at and ends_at need a time zone.")),
    ),
    _p(
        "invalid_scopes",
        r".*",
        _fmt(_("Choose what the token may do: read, play, or both.")),
    ),
    _p(
        "request_too_large",
        r"The request body is larger than (?P<limit>\d+) bytes\.",
        _fmt(_("The request body is larger than %(limit)s bytes."), limit="limit"),
    ),
    _p(
        "invalid_time_zone",
        r".*",
        _fmt(_("Not a time zone name this server knows (e.g. Europe/Berlin).")),
    ),
    _p("invalid_language", r".*", _fmt(_("This language is not offered."))),
    _p(
        "invalid_credentials",
        r"Unknown username or wrong password\.",
        _fmt(_("Unknown username or wrong password.")),
    ),
    _p(
        "invalid_credentials",
        r"The old password is wrong\.",
        _fmt(_("The old password is wrong.")),
    ),
    _p(
        "throttled",
        r"Too many requests; retry after the time given\.",
        _fmt(_("Too many requests; please retry after the time given.")),
    ),
    _p(
        "service_unavailable",
        r".*",
        _fmt(_("The database is unavailable; nothing was changed. Retry after the time given.")),
    ),
    _p(
        "server_error",
        r".*",
        _fmt(_("The server failed to answer; the error is logged.")),
    ),
    _p("not_authenticated", r".*", _fmt(_("Please sign in: no credentials were given."))),
    _p("permission_denied", r"Not allowed\.", _fmt(_("Not allowed."))),
    _p(
        "permission_denied",
        r"This token lacks the '(?P<scope>\w+)' scope \(it has: (?P<scopes>.*)\)\.",
        _fmt(
            _("This token lacks the '%(scope)s' scope (it has: %(scopes)s)."),
            scope="scope",
            scopes="scopes",
        ),
    ),
    _p(
        "permission_denied",
        r"Manage tokens with your session or account token, not a personal token\.",
        _fmt(_("Manage tokens with your session or account token, not a personal token.")),
    ),
    # --- third-party clients (clients/): webhooks and event feeds ---
    _p(
        "too_many_webhooks",
        r"At most (?P<limit>\d+) webhooks per account\.",
        _fmt(_("At most %(limit)s webhooks per account."), limit="limit"),
    ),
    # --- table talk (games/services/chat.py) ---
    _p("chat_empty", r".*", _fmt(_("Write something to say."))),
    _p(
        "chat_too_long",
        r"A message can be at most (?P<limit>\d+) characters long \(yours has (?P<length>\d+)\)\.",
        _fmt(
            _("A message can be at most %(limit)s characters long (yours has %(length)s)."),
            limit="limit",
            length="length",
        ),
    ),
    _p(
        "chat_rate_limited",
        r"You can send at most (?P<limit>\d+) messages a minute.*",
        _fmt(
            _(
                "You can send at most %(limit)s messages a minute at one table; please wait a "
                "moment."
            ),
            limit="limit",
        ),
    ),
    _p("chat_no_such_player", r".*", _fmt(_("There is no player in that seat."))),
    _p("chat_mute_self", r".*", _fmt(_("You cannot mute yourself."))),
    _p("chat_report_self", r".*", _fmt(_("You cannot report your own message."))),
    _p(
        "too_many_open_feeds",
        r"You already have (?P<limit>\d+) event streams.*",
        _fmt(
            _(
                "You already have %(limit)s event streams or waiting requests open. Close one, "
                "or wait for one to end, before opening another."
            ),
            limit="limit",
        ),
    ),
]

# For a message without a pattern, in a language other than English: what its kind of error
# means, so that a page never mixes English into German or Icelandic.
GENERAL = {
    ErrorKind.INVALID: _("The request is invalid."),
    ErrorKind.FORBIDDEN: _("You may not do this."),
    ErrorKind.NOT_FOUND: _("Not found."),
    ErrorKind.CONFLICT: _("This is not possible in the game's present state."),
    ErrorKind.ILLEGAL: _("The rules do not allow this move."),
}
GENERAL_BY_CODE = {
    "invalid_action": _("This move could not be read."),
    "invalid_meld": _("These cards do not make a meld."),
    "cannot_take_pile": _("You may not take the pile now."),
    "pile_frozen": _("The pile is frozen: take it with a natural pair of the top card's rank."),
    "wrong_phase": _("That is not possible at this point of the turn."),
    "cannot_go_out": _("You may not go out now."),
    "card_not_in_hand": _("You do not hold these cards."),
    "invalid_kinds": _("Choose at least one kind of event."),
    "authentication_failed": _("The credentials were not accepted."),
    "unsafe_url": _("This address cannot receive webhooks from this server."),
    "invalid_request": _("The request is invalid: see details."),
    "malformed_request": _("The request could not be read."),
}


def _parts(match: re.Match[str], variant: str) -> dict[str, Any]:
    parts: dict[str, Any] = {}
    for name, value in match.groupdict().items():
        value = value or ""
        if name == "cards":
            codes = value.split()
            parts["codes"] = codes
            parts["cards"] = cards_text(codes, variant)
        elif name == "card":
            parts["card"] = _card(value, variant) if _CARD.match(value) else value
        elif name == "rank":
            parts["rank"] = rank_text(value)
        elif name == "sizes":
            parts["sizes_text"] = _sizes_text(value)
        elif value.isdigit():
            parts[name] = l10n.number(int(value))  # "1.500 Punkte" in German (games/l10n.py)
        else:
            parts[name] = value
    return parts


def _sentence(message: str) -> str:
    """An English engine message as a sentence: capital first letter, final full stop."""
    text = message.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ")")) else text + "."


def message_for(
    code: str,
    message: str,
    *,
    kind: ErrorKind | None = None,
    variant: str = "classic",
) -> str:
    """The English `message` of refusal `code`, for people, in the active language."""
    if message.startswith(DRAW_STANDS_PREFIX) and "Refused: " in message:
        refusal = message_for(code, message.split("Refused: ", 1)[1], kind=kind, variant=variant)
        return gettext(
            "Your draw from the stock stands (a draw cannot be taken back): the cards are in "
            "your hand, and the moves after the draw were not played. %(refusal)s"
        ) % {"refusal": refusal}
    for pattern in PATTERNS:
        if pattern.code != code:
            continue
        match = pattern.regex.match(message)
        if match is not None:
            return pattern.text(_parts(match, variant))
    if (get_language() or "en").split("-")[0] == "en":
        return _sentence(message) if kind is ErrorKind.ILLEGAL else message
    if code in GENERAL_BY_CODE:
        return str(GENERAL_BY_CODE[code])
    if kind is not None:
        return str(GENERAL[kind])
    return pgettext("error", "The request could not be carried out.")


def error_message(error: GameError, variant: str = "classic") -> str:
    """A service's refusal, for people, in the active language."""
    return message_for(error.code, error.message, kind=error.kind, variant=variant)
