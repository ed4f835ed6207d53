"""The secret links of account mails, made when the mail is sent (never stored in a payload,
which the admin shows): a password reset link (Django's PasswordResetTokenGenerator), an
address confirmation link (a signed token with an expiry), an invitation's link (its token).
canasta_site/wiring.py registers them per outbox kind.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.services.addresses import confirmation_token
from games.models import Invitation
from notifications.models import Outbox


def site_url(path: str) -> str:
    return f"{settings.CANASTA_SITE_URL}{path}"


def reset_uid(user: Any) -> str:
    return urlsafe_base64_encode(force_bytes(user.pk))


def reset_link(user: Any) -> dict[str, str]:
    token = default_token_generator.make_token(user)
    return {"link": site_url(f"/password/reset/{reset_uid(user)}/{token}/")}


def reset_links(row: Outbox) -> dict[str, str]:
    return reset_link(row.recipient) if row.recipient_id else {}


def confirm_links(row: Outbox) -> dict[str, str]:
    recipient = row.recipient
    if recipient is None:
        return {}
    token = confirmation_token(user=recipient, address=recipient.email)
    return {"link": site_url(f"/account/confirm/{token}/"), "address": recipient.email}


def invitation_link(invitation: Invitation) -> str:
    return site_url(f"/invitations/{invitation.token}/")


def invitation_links(row: Outbox) -> dict[str, str]:
    invitation_id = row.payload.get("invitation_id")
    if invitation_id is None:
        return {}
    invitation = Invitation.objects.filter(pk=invitation_id).first()
    return {"link": invitation_link(invitation)} if invitation is not None else {}
