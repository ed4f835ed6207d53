"""Reply addresses: ``<local>+<token>@<domain>``, one live token per player and game.

The token is 20 random bytes (160 bits) in lowercase base32: 32 characters of ``a-z2-7``.
Lowercase because mail systems may change the case of an address's local part; base32 so the
address needs no quoting and holds no ``:`` (mailbox names) — ``play+<token>`` is 37 of the 64
characters a local part allows. Revoking a token makes the next turn email carry a new one.
"""

from __future__ import annotations

import base64
import re
import secrets
from typing import Any

from django.conf import settings
from django.utils import timezone

from mailplay.models import ReplyToken

TOKEN_BYTES = 20
TOKEN_LENGTH = 32
_TOKEN_CHARS = "a-z2-7"
# Anything that looks like a reply address's token, for redacting text before it is logged.
_ANY_TOKEN = re.compile(rf"\+[{_TOKEN_CHARS}]{{{TOKEN_LENGTH}}}(?=@)", re.IGNORECASE)


def new_token() -> str:
    return base64.b32encode(secrets.token_bytes(TOKEN_BYTES)).decode("ascii").lower()


def local_part() -> str:
    return settings.CANASTA_MAIL_LOCAL_PART


def reply_address(token: str) -> str:
    return f"{local_part()}+{token}@{settings.CANASTA_MAIL_DOMAIN}"


def redact(text: str) -> str:
    """``text`` with every reply-address token replaced (for logs and error messages)."""
    return _ANY_TOKEN.sub("+<token>", text)


def token_in_address(address: str) -> str | None:
    """The token of one of our reply addresses, or None (another address, another domain)."""
    local, _, domain = address.strip().rpartition("@")
    if domain.lower().rstrip(".") != settings.CANASTA_MAIL_DOMAIN.lower():
        return None
    prefix, plus, token = local.partition("+")
    if not plus or prefix.lower() != local_part().lower():
        return None
    token = token.lower()
    if len(token) != TOKEN_LENGTH or not re.fullmatch(f"[{_TOKEN_CHARS}]+", token):
        return None
    return token


def reply_token_for(*, game: Any, user: Any, seat_number: int) -> ReplyToken:
    """The player's live token in this game, created on first use.

    Always two queries (an INSERT that does nothing when a live token exists, then a SELECT),
    so a move's query count does not depend on whether this player had a token yet.
    """
    ReplyToken.objects.bulk_create(
        [ReplyToken(game=game, user=user, seat_number=seat_number, token=new_token())],
        ignore_conflicts=True,
    )
    return ReplyToken.objects.get(game=game, user=user, revoked_at__isnull=True)


def reply_address_for_seat(*, game: Any, seat: int | None) -> str | None:
    """The Reply-To for the human player in ``seat`` of ``game`` (its prefetched seats)."""
    if seat is None:
        return None
    for row in game.seats.all():
        if row.number == seat and row.kind == "human" and row.user_id is not None:
            return reply_address(reply_token_for(game=game, user=row.user, seat_number=seat).token)
    return None


def reply_token_revoke(*, game: Any, user: Any) -> int:
    """Revoke the player's live token in the game (a leaked address); returns how many."""
    return ReplyToken.objects.filter(game=game, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
