"""Email preferences: which kinds of mail a user gets."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.services.errors import ErrorKind, GameError
from notifications.models import EmailMode, NotificationPreference, Outbox, OutboxKind
from notifications.services.outbox import outbox_enqueue

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


def address_confirmation_enqueue(*, user: Any, reason: str, unless_within_seconds: int = 0) -> Any:
    """Mail `user` a link to confirm their address (the link is made when the mail is sent:
    accounts/links.py); None when none was written (no address, or one went out within
    `unless_within_seconds`)."""
    if not getattr(user, "email", ""):
        return None
    if unless_within_seconds:
        since = timezone.now() - timedelta(seconds=unless_within_seconds)
        recent = Outbox.objects.filter(
            recipient=user, kind=OutboxKind.VERIFY_EMAIL, created_at__gt=since
        )
        if recent.exists():
            return None
    payload = {
        "game": None,
        "seat": None,
        "username": user.get_username(),
        "address": user.email,
        "reason": reason,
        "valid_hours": int(getattr(settings, "CANASTA_EMAIL_CONFIRM_HOURS", 72)),
    }
    return outbox_enqueue(
        recipient=user,
        kind=OutboxKind.VERIFY_EMAIL,
        payload=payload,
        key=f"verify_email:{user.pk}:{uuid.uuid4().hex}",
    )


def preference_update(
    *, user: Any, email_mode: str | None = None, digest_hour: int | None = None
) -> NotificationPreference:
    if email_mode is not None and email_mode not in EmailMode.values:
        raise GameError(
            ErrorKind.INVALID,
            "invalid_email_mode",
            f"email_mode must be one of {', '.join(EmailMode.values)}.",
            {"choices": list(EmailMode.values)},
        )
    if digest_hour is not None and not 0 <= digest_hour <= 23:
        raise GameError(
            ErrorKind.INVALID, "invalid_digest_hour", "digest_hour is a UTC hour from 0 to 23."
        )
    with transaction.atomic():
        preference, _ = NotificationPreference.objects.select_for_update().get_or_create(
            user_id=user.pk
        )
        if email_mode is not None:
            preference.email_mode = email_mode
        if digest_hour is not None:
            preference.digest_hour = digest_hour
        preference.save()
    return preference
