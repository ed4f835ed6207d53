"""The services' own refusals: each has a *reason*, its stable `code` and its sentence
(docs/i18n.md, "Error messages").

A service raises `refused(kind, reason, details, **params)`: the reason names the sentence
below, the parameters fill its `%(name)s` placeholders. The sentence is built from the reason
and the parameters in the reader's language (games/messages.py), never parsed back from
English. `GameError.message` is the same sentence in English, for logs and programs.

The engine's own refusals have their table in games/engine/errors.py (`REASONS`) and their
sentences in games/refusals.py; the parameters are read the same way (figures as the reader
writes them, lists as alternatives).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from games.refusals import words


@dataclass(frozen=True)
class Refusal:
    code: str  # what programs compare (the API's error code): never translated
    text: Promise | str  # the sentence, a template over the parameters
    count: str = ""  # for a sentence with a plural: the parameter that chooses the form


R = Refusal

SERVICE_REASONS: Mapping[str, Refusal] = {
    # --- games and seats (games/services/common.py, lobby.py) ---
    "no_such_game": R("not_found", _("No such game.")),
    "not_seated": R("not_seated", _("You do not play in this game.")),
    "account_closed": R("account_closed", _("This account is closed.")),
    "game_not_active": R(
        "game_not_active", _("This game is not in play: nothing can be played in it.")
    ),
    "stale_version": R(
        "stale_version",
        _("The table changed since you loaded it (another player moved): reload it."),
    ),
    "already_joined": R("already_joined", _("You already have a seat at this table.")),
    "seats_closed": R("game_not_open", _("This table has started or ended: its seats are closed.")),
    "cannot_leave": R(
        "game_not_open",
        _("The game has started: you can no longer leave the table, only resign."),
    ),
    "game_full": R("game_full", _("Every seat is taken or kept for an invited player.")),
    "only_creator_calls_off": R(
        "permission_denied",
        _("Only the player who created the table can call it off (leave it instead)."),
    ),
    "cannot_abort": R(
        "cannot_abort", _("Only a game without any move can be called off (resign instead).")
    ),
    "record_not_ready": R(
        "game_not_finished", _("The record of a match is available once the match is over.")
    ),
    # --- a new table (games/services/lobby.py) ---
    "unknown_variant": R("unknown_variant", _("There is no such variant of Canasta here.")),
    "invalid_players": R("invalid_players", _("This variant is played by %(counts)s players.")),
    "invited_twice": R("invalid_invite", _("A player is invited twice.")),
    "address_invited_twice": R("invalid_invite", _("An address is invited twice.")),
    "invited_self": R(
        "invalid_invite", _("You take a seat yourself: please do not invite yourself.")
    ),
    "invite_seats_left": R(
        "invalid_invite",
        ngettext_lazy(
            "Only %(count)d seat is left to invite to.",
            "Only %(count)d seats are left to invite to.",
            "count",
        ),
        count="count",
    ),
    "unknown_user": R("unknown_user", _("There is no player with the username %(names)s.")),
    "invalid_email": R("invalid_email", _("%(address)s is not an email address.")),
    "too_many_invitations": R(
        "too_many_invitations",
        _("You sent many invitations today; please wait until tomorrow for more."),
    ),
    "turn_seconds_range": R(
        "invalid_time_control",
        _("The time per turn must be from %(low)s to %(high)s seconds, or no limit."),
    ),
    "unknown_timeout_policy": R(
        "invalid_time_control", _("There is no such rule for when the time runs out.")
    ),
    "unknown_bot_level": R("invalid_bots", _("There is no such bot level.")),
    "too_many_bots": R("invalid_bots", _("Not enough seats are left for that many bots.")),
    "bots_unavailable": R("bots_unavailable", _("Bot seats are not available on this server yet.")),
    # --- invitations (games/services/invitations.py) ---
    "invite_not_seated": R("not_seated", _("Only the table's players can invite.")),
    "already_invited": R("already_invited", _("This player has a seat already.")),
    "invitation_unknown": R(
        "invitation_unknown",
        _("This invitation link is not valid. Copy the whole link from the email."),
    ),
    "invitation_used": R(
        "invitation_used", _("This invitation was accepted already: the seat is taken.")
    ),
    "invitation_withdrawn": R(
        "invitation_withdrawn",
        _(
            "This invitation was withdrawn by the table. Ask the player who invited you for a "
            "new one."
        ),
    ),
    "invitation_declined": R("invitation_declined", _("This invitation was declined.")),
    "invitation_expired": R(
        "invitation_expired",
        _("This invitation has expired. Ask the player who invited you for a new one."),
    ),
    "invitation_closed": R(
        "invitation_closed",
        _("This table no longer waits for players: it has started or was called off."),
    ),
    "already_seated": R("already_seated", _("You have a seat at this table already.")),
    "no_such_invitation": R("not_found", _("No such invitation of yours.")),
    "invitation_not_found": R("invalid_request", _("No such invitation.")),
    "invitee_missing": R("invalid_request", _("Enter an address or a username.")),
    # --- rematches, records, profiles ---
    "rematch_not_seated": R("not_seated", _("Only the match's players can offer a rematch.")),
    "rematch_not_finished": R(
        "game_not_finished", _("A rematch can be offered once the match is over.")
    ),
    "no_partners": R("no_partners", _("This table has no partnerships to swap.")),
    "no_such_player": R("not_found", _("No such player.")),
    "no_such_variant": R("not_found", _("No such variant.")),
    # --- moves (games/services/moves.py, idempotency.py) ---
    "no_actions": R("invalid_request", _("Send at least one move.")),
    "too_many_actions": R("invalid_request", _("At most %(count)s moves per request.")),
    "idempotency_key_reused": R(
        "idempotency_key_reused", _("This Idempotency-Key was used for a different request.")
    ),
    "request_in_progress": R(
        "request_in_progress",
        _("A request with this Idempotency-Key is still being processed; retry shortly."),
    ),
    # --- table talk (games/services/chat.py) ---
    "chat_empty": R("chat_empty", _("Write something to say.")),
    "chat_too_long": R(
        "chat_too_long",
        _("A message can be at most %(limit)s characters long (yours has %(length)s)."),
    ),
    "chat_rate_limited": R(
        "chat_rate_limited",
        _("You can send at most %(limit)s messages a minute at one table; please wait a moment."),
    ),
    "chat_no_such_player": R("chat_no_such_player", _("There is no player in that seat.")),
    "chat_mute_self": R("chat_mute_self", _("You cannot mute yourself.")),
    "chat_report_self": R("chat_report_self", _("You cannot report your own message.")),
    # --- accounts (accounts/services/) ---
    "invalid_reset_link": R(
        "invalid_token",
        _("This password reset link is invalid or has expired. Ask for a new one."),
    ),
    "invalid_password": R("invalid_password", "%(problems)s"),
    "wrong_password": R(
        "wrong_password", _("The password is not right: the account was not deleted.")
    ),
    "email_unavailable": R(
        "email_unavailable",
        _(
            "This email address cannot be used for this account. If it is yours, sign in "
            "with the account that uses it or reset that account's password."
        ),
    ),
    "too_many_changes": R(
        "too_many_changes",
        _("You changed your address many times today; please try again tomorrow."),
    ),
    "link_expired": R(
        "link_expired", _("This confirmation link has expired. Ask for a new one in Settings.")
    ),
    "link_invalid": R(
        "link_invalid",
        _("This confirmation link is not valid. Copy the whole link from the email."),
    ),
    "link_outdated": R(
        "link_outdated",
        _(
            "This link was for an address the account no longer uses. Ask for a new one in Settings."
        ),
    ),
    # --- personal tokens and webhooks (clients/) ---
    "invalid_scopes": R("invalid_scopes", _("Choose what the token may do: read, play, or both.")),
    "token_needs_name": R("invalid_request", _("A token needs a name.")),
    "too_many_tokens": R(
        "too_many_tokens", _("At most %(limit)s tokens per account: please revoke one first.")
    ),
    "no_such_token": R("not_found", _("No such token.")),
    "no_such_webhook": R("not_found", _("No such webhook.")),
    # --- OAuth apps (clients/services/oauth.py) ---
    "redirect_uri_unsafe": R(
        "invalid_redirect_uri",
        _(
            "A redirect address must be https://…, or http://127.0.0.1… for a program on your "
            "own computer, without a #fragment."
        ),
    ),
    "redirect_uris_count": R(
        "invalid_redirect_uri", _("Give between 1 and %(limit)s redirect addresses.")
    ),
    "redirect_uri_too_long": R(
        "invalid_redirect_uri",
        _("A redirect address is too long (at most %(limit)s characters)."),
    ),
    "app_needs_name": R("invalid_request", _("An app needs a name.")),
    "too_many_apps": R(
        "too_many_apps", _("At most %(limit)s apps per account: please delete one first.")
    ),
    "app_invalid": R("invalid_request", "%(problems)s"),
    "no_such_app": R("not_found", _("No such app.")),
    "invalid_kinds": R("invalid_kinds", _("Choose at least one kind of event.")),
    "unsafe_url": R("unsafe_url", _("This address cannot receive webhooks from this server.")),
    "unsafe_url_host": R("unsafe_url", _("%(host)s cannot receive webhooks from this server.")),
    "too_many_webhooks": R("too_many_webhooks", _("At most %(limit)s webhooks per account.")),
    "insufficient_scope": R(
        "insufficient_scope",
        _("This token may not do this: it needs the scope %(required)s (it has: %(granted)s)."),
    ),
    "not_with_app_token": R(
        "permission_denied",
        _("An app may not do this for you: use your session or account token."),
    ),
    "personal_token_manages": R(
        "permission_denied",
        _("Manage tokens with your session or account token, not a personal token."),
    ),
    "account_only": R(
        "permission_denied", _("Not with a personal token: use your session or account token.")
    ),
    # --- vacations and settings (notifications/services/) ---
    "absence_needs_time_zone": R("invalid_absence", _("starts_at and ends_at need a time zone.")),
    "absence_in_the_past": R("absence_in_the_past", _("A vacation cannot start in the past.")),
    "absence_ends_before_start": R("invalid_absence", _("A vacation must end after it starts.")),
    "absence_too_far": R(
        "invalid_absence", _("A vacation must end within %(days)s days from now.")
    ),
    "absence_overlaps": R(
        "absence_overlaps", _("This vacation overlaps one you have already planned.")
    ),
    "absence_limit": R(
        "absence_limit",
        _(
            "At most %(limit)s days of vacation a year: %(used)s are already planned for "
            "%(year)s, and this one adds %(wanted)s."
        ),
    ),
    "no_such_absence": R("not_found", _("No such vacation.")),
    "absence_over": R("absence_over", _("This vacation is over and stays on record.")),
    "invalid_time_zone": R(
        "invalid_time_zone", _("Not a time zone name this server knows (e.g. Europe/Berlin).")
    ),
    "invalid_language": R("invalid_language", _("This language is not offered.")),
    "invalid_email_mode": R("invalid_email_mode", _("There is no such way of sending emails.")),
    "invalid_digest_hour": R(
        "invalid_digest_hour", _("The hour of the digest is from 0 to 23, in your time zone.")
    ),
    "invalid_turn_email_delay": R(
        "invalid_turn_email_delay",
        _("The delay of a turn email is a number of minutes from 0 to %(limit)s."),
    ),
    "push_off": R("push_off", _("Push notifications are not set up.")),
    "subscription_incomplete": R("invalid_subscription", _("The subscription is incomplete.")),
    "push_service_refused": R(
        "invalid_subscription", _("This browser's push service is not one we send to.")
    ),
    # --- play by email (mailplay/) ---
    "invalid_auto_draw": R("invalid_request", _("There is no such setting for the forced draw.")),
    "not_an_email_player": R(
        "not_an_email_player",
        _("This setting is for players who play by email: answer a turn email first."),
    ),
    # --- the API's own refusals (api/) ---
    "invalid_request": R("invalid_request", _("The request is invalid: see details.")),
    "malformed_request": R("malformed_request", _("The request could not be read.")),
    "invalid_cursor": R(
        "invalid_cursor",
        _("This cursor cannot be read: send a next_cursor of this list as it was given."),
    ),
    "chat_after_not_number": R(
        "invalid_request", _("after must be the id of a chat line (a whole number).")
    ),
    "if_match_unreadable": R(
        "invalid_request", _("If-Match must be this game's ETag or a version number.")
    ),
    "versions_differ": R(
        "invalid_request", _("expected_version and If-Match name different versions.")
    ),
    "version_missing": R(
        "invalid_request", _("Send expected_version in the body or the game's ETag as If-Match.")
    ),
    "idempotency_key_length": R(
        "invalid_request", _("Idempotency-Key must be 1 to %(limit)s characters.")
    ),
    "too_many_open_feeds": R(
        "too_many_open_feeds",
        _(
            "You already have %(limit)s event streams or waiting requests open. Close one, "
            "or wait for one to end, before opening another."
        ),
    ),
    "request_too_large": R(
        "request_too_large", _("The request body is larger than %(limit)s bytes.")
    ),
    "wrong_credentials": R("invalid_credentials", _("Unknown username or wrong password.")),
    "old_password_wrong": R("invalid_credentials", _("The old password is wrong.")),
    "throttled": R("throttled", _("Too many requests; please retry after the time given.")),
    "not_authenticated": R("not_authenticated", _("Please sign in: no credentials were given.")),
    "authentication_failed": R("authentication_failed", _("The credentials were not accepted.")),
    "not_allowed": R("permission_denied", _("Not allowed.")),
    "no_such_resource": R("not_found", _("No such resource.")),
    "no_such_endpoint": R("not_found", _("No such API endpoint.")),
    "service_unavailable": R(
        "service_unavailable",
        _("The database is unavailable; nothing was changed. Retry after the time given."),
    ),
    "server_error": R("server_error", _("The server failed to answer; the error is logged.")),
}


def service_text(reason: str, params: Mapping[str, Any]) -> str:
    """The sentence of a service's refusal ``reason`` with its ``params``, in the active
    language."""
    entry = SERVICE_REASONS[reason]
    shown = words(params, "classic")
    if entry.count:
        # ngettext_lazy chooses the form by the figure itself, not by its words.
        shown[entry.count] = int(params[entry.count])
    return str(entry.text % shown) if params else str(entry.text)


def english_text(reason: str, params: Mapping[str, Any]) -> str:
    """The sentence in English (GameError.message: logs, programs)."""
    with translation.override("en"):
        return service_text(reason, params)
