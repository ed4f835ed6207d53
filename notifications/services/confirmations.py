"""The mail that confirms an address (docs/accounts.md): until it is opened, the address gets
nothing but this mail and password resets (notifications.services.preferences)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils import timezone

from notifications.models import Outbox, OutboxKind
from notifications.services.outbox import outbox_enqueue

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def address_confirmation_enqueue(*, user: User, reason: str, unless_within_seconds: int = 0) -> Any:
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
