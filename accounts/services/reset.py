"""Password reset by email (docs/accounts.md, "Password reset").

No account enumeration: the web page and the API answer the same whether or not an account
has the address, and both only hand the address to a Celery task (accounts.tasks), so the
answer costs the same time either way. The task writes one outbox row per active account
with that address and a usable password; the link (Django's PasswordResetTokenGenerator:
valid for PASSWORD_RESET_TIMEOUT, spent by a password change or a sign-in) is made when the
row is sent. Setting the new password revokes the account tokens (clients/passwords.py), as
any password change does.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from celery import current_app
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode

from accounts.services.addresses import address_mark_verified
from games.services.errors import ErrorKind, GameError, refused
from notifications.models import Outbox, OutboxKind
from notifications.services.outbox import outbox_enqueue

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

# Reset mails per account and hour, whatever the request rate (the throttles are per client
# address; this bounds the mail an account can be sent by strangers from many addresses).
MAILS_PER_HOUR = 3
# Queued by name: tasks import services, never the reverse (accounts/tasks.py).
RESET_TASK = "accounts.tasks.password_reset_mail"


def reset_request_dispatch(*, email: str) -> None:
    """Hand the address to the task; never tells (or waits to find out) who has it."""
    try:
        current_app.tasks[RESET_TASK].delay(email.strip())
    except Exception:
        # The broker is down: the same answer all the same; the player may ask again.
        logger.warning("password reset: could not queue the request")


def reset_users(*, email: str) -> list[Any]:
    """Active accounts with this address and a usable password (as Django's own form)."""
    user_model = get_user_model()
    email_field = user_model.get_email_field_name()
    users = user_model._default_manager.filter(
        **{f"{email_field}__iexact": email.strip(), "is_active": True}
    )
    return [user for user in users if user.has_usable_password() and email.strip()]


@transaction.atomic
def reset_mail_enqueue(*, email: str) -> int:
    """Write a reset mail for each account with `email`; returns how many were written."""
    written = 0
    since = timezone.now() - timedelta(hours=1)
    for user in reset_users(email=email):
        recent = Outbox.objects.filter(
            recipient=user, kind=OutboxKind.PASSWORD_RESET, created_at__gt=since
        ).count()
        if recent >= MAILS_PER_HOUR:
            continue
        row = outbox_enqueue(
            recipient=user,
            kind=OutboxKind.PASSWORD_RESET,
            payload={"game": None, "seat": None, "username": user.get_username()},
            key=f"password_reset:{user.pk}:{uuid.uuid4().hex}",
        )
        written += row is not None
    return written


def _invalid_link() -> GameError:
    return refused(ErrorKind.INVALID, "invalid_reset_link")


def reset_user_of(*, uid: str, token: str) -> Any:
    """The account a reset link is for, or invalid_token."""
    try:
        pk = force_str(urlsafe_base64_decode(uid))
        user = get_user_model()._default_manager.get(pk=pk, is_active=True)
    except (TypeError, ValueError, OverflowError, get_user_model().DoesNotExist):
        raise _invalid_link() from None
    if not default_token_generator.check_token(user, token):
        raise _invalid_link()
    return user


def reset_confirm(*, uid: str, token: str, new_password: str) -> Any:
    """Set a new password with a reset link's uid and token; returns the user."""
    user = reset_user_of(uid=uid, token=token)
    try:
        password_validation.validate_password(new_password, user=user)
    except ValidationError as error:
        # Django's validators write their own sentences, in the active language.
        raise refused(
            ErrorKind.INVALID,
            "invalid_password",
            {"fields": {"new_password": list(error.messages)}},
            problems=" ".join(error.messages),
        ) from None
    with transaction.atomic():
        user.set_password(new_password)
        # save() calls password_changed(): the account tokens are revoked (clients/passwords).
        user.save()
        reset_address_proved(user=user)
    return user


def reset_address_proved(*, user: User) -> None:
    """The link reached the account's address (the token covers the address): a pending
    address is confirmed, unless another account has verified it meanwhile."""
    with contextlib.suppress(GameError):
        address_mark_verified(user=user)
