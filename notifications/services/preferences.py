"""Email preferences: which kinds of mail a user gets."""

from __future__ import annotations

import functools
import zoneinfo
from datetime import timedelta
from typing import Any

from django.db import transaction

from games.services.errors import ErrorKind, refused
from notifications.models import EmailMode, Language, NotificationPreference, OutboxKind

# What each email mode sends. `digest` replaces the per-turn mails (your turn, reminders) by
# one mail a day, and keeps the rarer ones a player must not miss. Replies to a player's own
# emailed move are answers, not notifications: sent in every mode but `none`.
KINDS_BY_MODE: dict[str, frozenset[str]] = {
    EmailMode.EVERY_TURN: frozenset(
        {
            OutboxKind.YOUR_TURN,
            OutboxKind.REMINDER,
            OutboxKind.TIMEOUT,
            OutboxKind.HAND_OVER,
            OutboxKind.MATCH_OVER,
            OutboxKind.EMAIL_REPLY,
            # About the account's webhooks (one turned off after failures, clients/).
            OutboxKind.WEBHOOK,
        }
    ),
    EmailMode.DIGEST: frozenset(
        {
            OutboxKind.DIGEST,
            OutboxKind.TIMEOUT,
            OutboxKind.MATCH_OVER,
            OutboxKind.EMAIL_REPLY,
            OutboxKind.WEBHOOK,
        }
    ),
    EmailMode.NONE: frozenset(),
}


def preference_of(*, user: Any) -> NotificationPreference:
    """The user's preferences; the defaults (unsaved) for a user who never set any.

    No query when the user was loaded with them (select_related, games.services.common.game_lock).
    """
    descriptor = type(user).__dict__.get("notification_preference")
    if descriptor is not None and descriptor.is_cached(user):
        loaded = descriptor.related.get_cached_value(user)  # None: loaded, and there is no row
        return loaded if loaded is not None else NotificationPreference(user_id=user.pk)
    try:
        return NotificationPreference.objects.get(user_id=user.pk)
    except NotificationPreference.DoesNotExist:
        return NotificationPreference(user_id=user.pk)


def language_of(*, user: Any) -> str:
    """The language code everything written to `user` is in ("en", "de" or "is")."""
    return preference_of(user=user).language


def time_zone_of(*, user: Any) -> str:
    """The IANA time zone `user` reads dates and times in."""
    return preference_of(user=user).time_zone


def zone_named(name: str) -> zoneinfo.ZoneInfo:
    """The zone of this IANA name; UTC for a name the system's database no longer has (a
    zone saved before it was removed, a slim host without the tzdata package)."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


# The kinds that wait for the player's turn_email_delay_minutes before they are sent
# (notifications/services/presence.py, summaries.py).
DELAYED_KINDS = frozenset({OutboxKind.YOUR_TURN, OutboxKind.HAND_OVER})
MAX_TURN_EMAIL_DELAY_MINUTES = 120


def email_delay(*, recipient: Any, kind: str) -> timedelta:
    """How long an email of `kind` to `recipient` waits before it is due."""
    if kind not in DELAYED_KINDS:
        return timedelta(0)
    return timedelta(minutes=preference_of(user=recipient).turn_email_delay_minutes)


# Mails about the account itself: sent whatever the email mode, and to an address that is not
# confirmed yet (the confirmation is how it gets confirmed; a reset must reach a player who
# mistyped nothing but their password).
ACCOUNT_KINDS: frozenset[str] = frozenset({OutboxKind.VERIFY_EMAIL, OutboxKind.PASSWORD_RESET})


def email_skip_reason(*, recipient: Any, kind: str, address: str = "") -> str | None:
    """Why `recipient` (or, without one, `address`) gets no email of `kind` now, or None when
    it should be sent."""
    if recipient is None:
        # A mail to an address without an account: only an invitation, which that address's
        # owner asked nobody for, so it is sent once (the inviter's limit) and nothing more.
        if kind != OutboxKind.INVITATION or not address:
            return "no recipient account and no address for this kind"
        return None
    if not getattr(recipient, "email", ""):
        return "the recipient has no email address"
    if getattr(recipient, "is_active", True) is False:
        return "the account is closed"
    if kind in ACCOUNT_KINDS:
        return None
    preference = preference_of(user=recipient)
    if preference.email_pending:
        return "the email address is not confirmed yet"
    mode = preference.email_mode
    if kind == OutboxKind.INVITATION and mode != EmailMode.NONE:
        # A person asked this player to a table: rare, and in every mode that sends mail.
        return None
    if kind not in KINDS_BY_MODE[mode]:
        return f"email_mode={mode} sends no {kind} email"
    return None


def email_confirmed(*, user: Any) -> bool:
    """Whether `user`'s address may get mail beyond the confirmation and reset mails."""
    return bool(getattr(user, "email", "")) and not preference_of(user=user).email_pending


@functools.cache
def time_zone_names() -> frozenset[str]:
    """The IANA zone names this system knows ("Europe/Berlin", "Atlantic/Reykjavik", "UTC")."""
    return frozenset(zoneinfo.available_timezones()) | {"UTC"}


def time_zone_check(name: str) -> str:
    """`name` as a known IANA zone name; GameError invalid_time_zone otherwise."""
    if name not in time_zone_names():
        raise refused(ErrorKind.INVALID, "invalid_time_zone", {"time_zone": name[:64]})
    return name


def _check(
    email_mode: str | None,
    digest_hour: int | None,
    language: str | None,
    time_zone: str | None,
    delay: int | None,
) -> None:
    if language is not None and language not in Language.values:
        raise refused(ErrorKind.INVALID, "invalid_language", {"choices": list(Language.values)})
    if time_zone is not None:
        time_zone_check(time_zone)
    if email_mode is not None and email_mode not in EmailMode.values:
        raise refused(ErrorKind.INVALID, "invalid_email_mode", {"choices": list(EmailMode.values)})
    if digest_hour is not None and not 0 <= digest_hour <= 23:
        raise refused(ErrorKind.INVALID, "invalid_digest_hour")
    if delay is not None and not 0 <= delay <= MAX_TURN_EMAIL_DELAY_MINUTES:
        raise refused(
            ErrorKind.INVALID, "invalid_turn_email_delay", limit=MAX_TURN_EMAIL_DELAY_MINUTES
        )


def preference_update(
    *,
    user: Any,
    email_mode: str | None = None,
    digest_hour: int | None = None,
    language: str | None = None,
    time_zone: str | None = None,
    turn_email_delay_minutes: int | None = None,
) -> NotificationPreference:
    """Saves the fields given (None: left as it is); nothing is saved when one is invalid."""
    delay = turn_email_delay_minutes
    _check(email_mode, digest_hour, language, time_zone, delay)
    with transaction.atomic():
        preference, _ = NotificationPreference.objects.select_for_update().get_or_create(
            user_id=user.pk
        )
        if email_mode is not None:
            preference.email_mode = email_mode
        if digest_hour is not None:
            preference.digest_hour = digest_hour
        if language is not None:
            preference.language = language
        if time_zone is not None:
            preference.time_zone = time_zone
        if (email_mode, digest_hour, time_zone) != (None, None, None):
            # The digest sweep computes the new due time at its next run.
            preference.digest_due_at = None
        if delay is not None:
            preference.turn_email_delay_minutes = delay
        preference.save()
    return preference
