"""Sending one claimed outbox row through Django's email backend.

The Reply-To of an email (play by email: the player's reply address, a credential) is never
stored in a payload, which also feeds the event feed, webhooks and the admin: it is asked for
here, when the row is sent, from the row's recipient, game and kind. mailplay registers the
hook that answers (mailplay/apps.py); without it no email has a Reply-To.

email_row_send is the outbox's sender of the email channel (registered in apps.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError

from notifications.emails import build_message
from notifications.headers import message_headers
from notifications.models import Outbox, OutboxStatus
from notifications.payloads import outbox_payload
from notifications.services.outbox import (
    outbox_mark_failed_attempt,
    outbox_mark_sent,
    outbox_mark_skipped,
)
from notifications.services.preferences import email_skip_reason, language_of, time_zone_of
from notifications.services.presence import turn_email_drop_reason
from notifications.services.summaries import (
    FOLDED_REASON,
    earlier_hands,
    hand_over_held,
    hand_over_hold,
    hand_over_superseded,
)

logger = logging.getLogger(__name__)

# Marking a row sent is retried on a database error: the mail is out, and a row left `sending`
# would be sent again once its visibility timeout ends.
MARK_SENT_TRIES = 3

# Hooks that give a row's email its Reply-To (None: none); the first address wins.
ReplyAddressHook = Callable[[Outbox], str | None]
_reply_address_hooks: list[ReplyAddressHook] = []


def reply_address_hook_register(hook: ReplyAddressHook) -> None:
    """Called once from an app's ready(); registering the same hook twice is harmless."""
    if hook not in _reply_address_hooks:
        _reply_address_hooks.append(hook)


# Hooks that add the secret links of an account mail (a password reset, an address
# confirmation, an invitation) to the payload when the row is sent, by kind: the links are
# credentials, so like the Reply-To they are never stored in a payload (which the admin shows).
SecretLinksHook = Callable[[Outbox], dict[str, str]]
_secret_links_hooks: dict[str, SecretLinksHook] = {}


def secret_links_hook_register(kind: str, hook: SecretLinksHook) -> None:
    """Called once from an app's ready(); one hook per kind."""
    _secret_links_hooks[kind] = hook


def payload_with_links(row: Outbox) -> dict[str, Any]:
    """The row's payload as its email shows it (its event's shared part and the game's facts
    put back, notifications.payloads.outbox_payload) with the secret links added."""
    payload = outbox_payload(row)
    hook = _secret_links_hooks.get(row.kind)
    if hook is None:
        return payload
    return {**payload, **hook(row)}


def row_address(row: Outbox) -> str:
    """Where a row's mail goes: its recipient's address now, or the row's own address."""
    if row.recipient is not None:
        return str(row.recipient.email or "")
    return row.address


def reply_address_for(row: Outbox) -> str | None:
    for hook in _reply_address_hooks:
        address = hook(row)
        if address:
            return address
    return None


def _mark_sent(row: Outbox) -> None:
    for attempt in range(1, MARK_SENT_TRIES + 1):
        try:
            outbox_mark_sent(row)
            return
        except DatabaseError:
            if attempt == MARK_SENT_TRIES:
                raise
            logger.warning("outbox %s: sent, but could not record it; retrying", row.pk)
            time.sleep(0.5 * attempt)


def _not_wanted_now(row: Outbox) -> str | None:
    """A turn email the player no longer needs (they looked, or played), or a hand-over email
    a later one will summarise."""
    if hand_over_superseded(row):
        return FOLDED_REASON
    return turn_email_drop_reason(row)


def _reader_language(row: Outbox) -> str | None:
    """The recipient's language; for a mail to an address without an account (an invitation),
    the language its payload names (the inviter's)."""
    if row.recipient_id is not None:
        return language_of(user=row.recipient)
    return str(row.payload.get("language") or "") or None


def _reader_zone(row: Outbox) -> str | None:
    """The recipient's time zone; for an address without an account, the payload's (the
    inviter's)."""
    if row.recipient_id is not None:
        return time_zone_of(user=row.recipient)
    return str(row.payload.get("time_zone") or "") or None


def email_row_send(row: Outbox) -> str:
    """Send a claimed email row through Django's email backend; returns its new status."""
    reason = email_skip_reason(
        recipient=row.recipient, kind=row.kind, address=row.address
    ) or _not_wanted_now(row)
    if reason:
        outbox_mark_skipped(row, reason=reason, keep_payload=reason == FOLDED_REASON)
        return OutboxStatus.SKIPPED
    if hand_over_held(row):
        hand_over_hold(row)
        return OutboxStatus.PENDING
    # Outside the render check below: a database error here is transient, and the row stays
    # claimed until the sweep tries it again, instead of failing for good.
    reply_to = reply_address_for(row) if row.recipient_id is not None else None
    payload = payload_with_links(row)
    folded = earlier_hands(row)
    if folded:
        payload = {**payload, "earlier_hands": folded}
    try:
        message = build_message(
            kind=row.kind,
            payload=payload,
            to=row_address(row),
            reply_to=reply_to,
            lang=_reader_language(row),
            time_zone=_reader_zone(row),
            headers=message_headers(row, payload=payload),
        )
        # Rendered here, before any connection: a header with a line break (BadHeaderError, a
        # ValueError) or a payload the templates cannot draw is the row's own fault, and no
        # retry would send it, so it fails at once instead of after every backoff.
        message.message()
    except Exception as error:
        logger.error("outbox %s: cannot be rendered: %r", row.pk, error)
        return outbox_mark_failed_attempt(row, error=error, permanent=True)
    try:
        message.send(fail_silently=False)
    except Exception as error:
        logger.warning("outbox %s: attempt %s failed: %r", row.pk, row.attempts, error)
        return outbox_mark_failed_attempt(row, error=error)
    # Right after the backend returned: the window in which a crash sends a mail twice is
    # this one UPDATE.
    _mark_sent(row)
    logger.info("outbox %s: sent %s to user %s", row.pk, row.kind, row.recipient_id)
    return OutboxStatus.SENT
