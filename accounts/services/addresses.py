"""Verified addresses (docs/accounts.md, "Verified addresses").

A new or changed address is *pending* until its owner opens the confirmation link mailed to
it (a signed token with an expiry, made when the mail is sent). Until then the service sends
it only the confirmation and password reset mails (notifications.services.preferences
.email_skip_reason), and play by email from it is refused (mailplay inbound). A confirmed
address is stored lowercased in NotificationPreference.email_verified, unique: two accounts
cannot share a verified address.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.services.errors import ErrorKind, GameError, refused
from notifications.models import NotificationPreference, Outbox, OutboxKind
from notifications.services.confirmations import address_confirmation_enqueue
from notifications.services.preferences import preference_of

logger = logging.getLogger(__name__)

SALT = "canasta.accounts.confirm-address"
# A confirmation mail at most this often per account (a "send again" button pressed twice).
RESEND_SECONDS = 60
# Address changes per account and day: each one mails an address nobody confirmed yet, so an
# account cannot be used to mail strangers at will.
CHANGES_PER_DAY = 10


def address_normalized(address: str) -> str:
    return (address or "").strip().lower()


def confirm_hours() -> int:
    return int(getattr(settings, "CANASTA_EMAIL_CONFIRM_HOURS", 72))


def confirmation_token(*, user: Any, address: str) -> str:
    """A link token for `user` and `address`: valid for CANASTA_EMAIL_CONFIRM_HOURS."""
    return signing.dumps({"u": user.pk, "a": address_normalized(address)}, salt=SALT)


def _address_refused() -> GameError:
    # One answer for every account that holds the address: it does not tell which one.
    return refused(ErrorKind.CONFLICT, "email_unavailable")


def address_available(*, address: str, user: Any = None) -> bool:
    """Whether no other account has verified `address` (a legacy account without a
    preference row counts as verified for its address)."""
    normalized = address_normalized(address)
    if not normalized:
        return True
    others = NotificationPreference.objects.filter(email_verified=normalized)
    user_model = get_user_model()
    legacy = user_model.objects.filter(email__iexact=normalized, notification_preference=None)
    if user is not None and user.pk is not None:
        others = others.exclude(user_id=user.pk)
        legacy = legacy.exclude(pk=user.pk)
    return not others.exists() and not legacy.exists()


def confirmation_send(*, user: Any, reason: str = "change") -> Outbox | None:
    """Mail a confirmation link to `user`'s address (the link is made when it is sent)."""
    return address_confirmation_enqueue(user=user, reason=reason)


def _refusals_key(user: Any) -> str:
    return f"accounts:address-refused:{user.pk}:{timezone.now().date().isoformat()}"


def _refusal_count(user: Any) -> None:
    """A change refused because another account holds the address counts against the day's
    changes too: otherwise the refusal could be asked for without end (an oracle of which
    addresses have accounts)."""
    key = _refusals_key(user)
    try:
        cache.add(key, 0, timeout=2 * 86400)
        try:
            cache.incr(key)
        except ValueError:  # expired in between
            cache.add(key, 1, timeout=2 * 86400)
    except Exception:  # an unreachable cache: the day's mails still count (logged)
        logger.warning("address refusals are not counted: the cache is unreachable")


def _refusals_today(user: Any) -> int:
    try:
        return int(cache.get(_refusals_key(user)) or 0)
    except Exception:  # an unreachable cache: only the day's mails count (logged)
        logger.warning("address refusals are not read: the cache is unreachable")
        return 0


def _changes_check(user: Any) -> None:
    since = timezone.now() - timedelta(days=1)
    sent = Outbox.objects.filter(recipient=user, kind=OutboxKind.VERIFY_EMAIL, created_at__gt=since)
    refused_today = _refusals_today(user)
    if sent.count() + refused_today >= CHANGES_PER_DAY:
        raise refused(ErrorKind.CONFLICT, "too_many_changes")


@transaction.atomic
def address_set(*, user: Any, address: str, reason: str = "change") -> bool:
    """Give `user` the address `address`: pending until confirmed, and a confirmation mail.

    Returns whether a confirmation was sent (False: the address did not change, or is empty).
    The old verified address is released. Raises email_unavailable when another account has
    verified the address.
    """
    address = (address or "").strip()
    preference, _created = NotificationPreference.objects.select_for_update().get_or_create(
        user_id=user.pk
    )
    unchanged = address_normalized(address) == address_normalized(user.email)
    if unchanged and not preference.email_pending and reason != "signup":
        return False
    # The day's cap first: past it every address gets the same answer, taken or not.
    _changes_check(user)
    if not address_available(address=address, user=user):
        _refusal_count(user)
        raise _address_refused()
    user.email = address
    user.save(update_fields=["email"])
    preference.email_verified = None
    preference.email_pending = bool(address)
    preference.save(update_fields=["email_verified", "email_pending"])
    if not address:
        return False
    confirmation_send(user=user, reason=reason)
    return True


def address_mark_verified(*, user: Any) -> None:
    """`user` proved they read their current address (a confirmation link, an invitation or
    a password reset mailed there)."""
    address = address_normalized(user.email)
    if not address:
        return
    try:
        with transaction.atomic():
            preference, _created = NotificationPreference.objects.select_for_update().get_or_create(
                user_id=user.pk
            )
            if preference.email_verified == address and not preference.email_pending:
                return
            preference.email_verified = address
            preference.email_pending = False
            preference.save(update_fields=["email_verified", "email_pending"])
    except IntegrityError:
        # Another account confirmed it first: the unique constraint decides.
        raise _address_refused() from None


def address_confirm(*, token: str) -> Any:
    """Confirm the address a link was made for; returns its user."""
    try:
        data = signing.loads(token, salt=SALT, max_age=timedelta(hours=confirm_hours()))
    except signing.SignatureExpired:
        raise refused(ErrorKind.INVALID, "link_expired") from None
    except signing.BadSignature:
        raise refused(ErrorKind.INVALID, "link_invalid") from None
    user = get_user_model().objects.filter(pk=data.get("u"), is_active=True).first()
    if user is None or address_normalized(user.email) != data.get("a"):
        raise refused(ErrorKind.INVALID, "link_outdated")
    address_mark_verified(user=user)
    return user


def confirmation_resend(*, user: Any) -> bool:
    """Send the confirmation again, at most once a minute; False when there is nothing to
    confirm or one was just sent."""
    if not user.email or not preference_of(user=user).email_pending:
        return False
    row = address_confirmation_enqueue(
        user=user, reason="resend", unless_within_seconds=RESEND_SECONDS
    )
    return row is not None


def address_state(*, user: Any) -> dict[str, Any]:
    """The account's address as the API and Settings show it."""
    preference = preference_of(user=user)
    return {
        "email": user.email,
        "email_confirmed": bool(user.email) and not preference.email_pending,
    }
