"""Mail one person's action sends to another, capped per sender (docs/notifications.md).

An invitation (by username, by address, a rematch offer) mails someone who did not ask for
it. Creating and calling off tables, or offering rematches, could otherwise mail a victim
without end (issue 26: 51 invitation mails in 34 s). So, per sender and UTC day, at most
CANASTA_SENDER_MAILS_PER_RECIPIENT (3) such mails reach one person or address and at most
CANASTA_SENDER_MAILS_PER_DAY (20) go out in all. Past that the row is written skipped, with
the reason (the seat is still kept: the invitee sees it in the lobby). The counts live in
the shared cache (Redis in production); when it is unreachable the mail goes out.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

log = logging.getLogger(__name__)

KEEP_SECONDS = 2 * 86400


def _limits() -> tuple[int, int]:
    return (
        int(getattr(settings, "CANASTA_SENDER_MAILS_PER_RECIPIENT", 3)),
        int(getattr(settings, "CANASTA_SENDER_MAILS_PER_DAY", 20)),
    )


def _count(key: str) -> int:
    cache.add(key, 0, timeout=KEEP_SECONDS)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired in between
        cache.add(key, 1, timeout=KEEP_SECONDS)
        return 1


def sender_mail_skip_reason(*, sender: Any, recipient: str, now: datetime | None = None) -> str:
    """Count one mail from `sender` to `recipient` (a user id or an address); the reason it
    is not sent, or "" when it may go."""
    day = (now or timezone.now()).date().isoformat()
    per_recipient, per_day = _limits()
    try:
        to_one = _count(f"sender-mails:{sender.pk}:{day}:{recipient.strip().lower()}")
        in_all = _count(f"sender-mails:{sender.pk}:{day}")
    except Exception as error:  # the cache is down: the mail goes out (logged)
        log.warning("sender mail caps are off: the cache is unreachable (%s)", error)
        return ""
    if to_one > per_recipient:
        return f"the sender's {per_recipient} mails a day to this person are used up"
    if in_all > per_day:
        return f"the sender's {per_day} mails a day to other people are used up"
    return ""
