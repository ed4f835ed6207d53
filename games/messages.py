"""Error messages in the reader's language (docs/i18n.md).

The engine and the services stay English and stable: every refusal carries a `code` (never
translated: programs compare it), an English `message` and `details`. An engine refusal also
carries its reason and parameters, and games/refusals.py writes its sentence from them. The
services' own refusals are matched here by code and English message (a pattern per message,
whose named groups fill the translated sentence's placeholders). A message without a pattern
stays as it is in English, and gets the code's general sentence in another language, so no
page mixes two languages.

The API's error renderer (api/errors.py), the web pages (web/views/common.py) and the answers to
emailed moves (mailplay/services/play.py) all use `error_message`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import (
    get_language,
    gettext,
    pgettext,
)
from django.utils.translation import gettext_lazy as _

from games import l10n
from games.engine.errors import REASONS
from games.refusals import cards_text, rank_text, refusal_text
from games.services.errors import ErrorKind, GameError

__all__ = ["cards_text", "error_message", "message_for", "rank_text", "refusal_message"]


@dataclass(frozen=True)
class Pattern:
    code: str
    regex: re.Pattern[str]
    text: Callable[[dict[str, Any]], str]


def _p(code: str, regex: str, text: Callable[[dict[str, Any]], str]) -> Pattern:
    return Pattern(code, re.compile(f"^{regex}$", re.DOTALL), text)


def _fmt(message: Any, **names: str) -> Callable[[dict[str, Any]], str]:
    """A sentence whose placeholders are filled from the match (cards and ranks as words)."""

    def text(parts: dict[str, Any]) -> str:
        values = {name: parts[source] for name, source in names.items()}
        return str(message) % values if values else str(message)

    return text


# (code, the English message as a service writes it, the sentence for people).
PATTERNS: list[Pattern] = [
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
    "insufficient_scope": _("This token may not do this: it lacks the scope it needs."),
    "unsafe_url": _("This address cannot receive webhooks from this server."),
    "invalid_redirect_uri": _(
        "A redirect address must be https://…, or http://127.0.0.1… for a program on your "
        "own computer, without a #fragment; between 1 and 5 of them."
    ),
    "too_many_apps": _("You have as many apps as an account may have: delete one first."),
    "invalid_request": _("The request is invalid: see details."),
    "malformed_request": _("The request could not be read."),
    "invalid_cursor": _(
        "This cursor cannot be read: send a next_cursor of this list as it was given."
    ),
}


def _parts(match: re.Match[str]) -> dict[str, Any]:
    # Figures as the reader writes them: "1.500 Punkte" in German (games/l10n.py).
    return {
        name: l10n.number(int(value)) if value and value.isdigit() else value or ""
        for name, value in match.groupdict().items()
    }


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
    for pattern in PATTERNS:
        if pattern.code != code:
            continue
        match = pattern.regex.match(message)
        if match is not None:
            return pattern.text(_parts(match))
    if (get_language() or "en").split("-")[0] == "en":
        return _sentence(message) if kind is ErrorKind.ILLEGAL else message
    if code in GENERAL_BY_CODE:
        return str(GENERAL_BY_CODE[code])
    if kind is not None:
        return str(GENERAL[kind])
    return pgettext("error", "The request could not be carried out.")


def refusal_message(error: GameError, variant: str = "classic") -> str:
    """An engine refusal's own sentence (without what a draw from the stock kept)."""
    if error.reason in REASONS:
        return refusal_text(error.reason, error.params, variant)
    return message_for(error.code, error.message, kind=error.kind, variant=variant)


def error_message(error: GameError, variant: str = "classic") -> str:
    """A service's refusal, for people, in the active language."""
    refusal = refusal_message(error, variant)
    if error.details.get("applied"):
        return gettext(
            "Your draw from the stock stands (a draw cannot be taken back): the cards are in "
            "your hand, and the moves after the draw were not played. %(refusal)s"
        ) % {"refusal": refusal}
    return refusal
