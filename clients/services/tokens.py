"""API tokens: personal ones (created with a name and scopes) and account tokens (given for a
username and password, POST /auth/token/); listed, revoked.

The key is shown once, at creation; only its sha256 is stored (a leaked database does not leak
working keys), plus its first characters so that the owner can tell tokens apart. A key is
long and random, so a plain hash (not a slow password hash) is enough.

Account tokens: every sign-in gets a new one (a stored hash cannot give back an old key); a
user keeps at most CANASTA_ACCOUNT_TOKENS_PER_USER live ones (the oldest are revoked). A
password change revokes them all (clients/passwords.py), and their owner can revoke them.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from clients.models import ApiToken, TokenKind, TokenScope
from games.services.compiled import SENTINEL_TEXT, compiled_run
from games.services.errors import ErrorKind, refused

KEY_PREFIX = "cnst_"
ACCOUNT_KEY_PREFIX = "cnsa_"
ACCOUNT_TOKEN_NAME = "account token"
SHOWN_PREFIX_LENGTH = 12
# last_used_at is written at most this often per token, not on every request.
LAST_USED_PRECISION = timedelta(minutes=1)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _checked_scopes(scopes: Iterable[str] | None) -> list[str]:
    chosen = list(dict.fromkeys(scopes if scopes is not None else [TokenScope.READ]))
    if not chosen or any(scope not in TokenScope.values for scope in chosen):
        raise refused(ErrorKind.INVALID, "invalid_scopes", {"choices": list(TokenScope.values)})
    return chosen


def token_create(
    *, owner: Any, name: str, scopes: Iterable[str] | None = None
) -> tuple[ApiToken, str]:
    """A new token and its key (the only time the key exists outside the client)."""
    name = name.strip()
    if not name:
        raise refused(ErrorKind.INVALID, "token_needs_name")
    live = ApiToken.objects.filter(
        owner=owner, kind=TokenKind.PERSONAL, revoked_at__isnull=True
    ).count()
    if live >= settings.CANASTA_API_TOKENS_PER_USER:
        limit = settings.CANASTA_API_TOKENS_PER_USER
        raise refused(ErrorKind.INVALID, "too_many_tokens", {"limit": limit}, limit=limit)
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        owner=owner,
        name=name[:100],
        scopes=_checked_scopes(scopes),
        key_hash=key_hash(key),
        prefix=key[:SHOWN_PREFIX_LENGTH],
    )
    return token, key


def account_token_create(*, owner: Any) -> tuple[ApiToken, str]:
    """A new account token for a user who proved their password, and its key (shown once).

    Beyond CANASTA_ACCOUNT_TOKENS_PER_USER live account tokens, the oldest are revoked: signing
    in never fails, and the table does not grow with every sign-in.
    """
    key = ACCOUNT_KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        owner=owner,
        kind=TokenKind.ACCOUNT,
        name=ACCOUNT_TOKEN_NAME,
        scopes=list(TokenScope.values),
        key_hash=key_hash(key),
        prefix=key[:SHOWN_PREFIX_LENGTH],
        # Signing in with the password is its first use.
        last_used_at=timezone.now(),
    )
    live = ApiToken.objects.filter(owner=owner, kind=TokenKind.ACCOUNT, revoked_at__isnull=True)
    keep = live.order_by("-created_at", "-id").values_list("pk", flat=True)[
        : settings.CANASTA_ACCOUNT_TOKENS_PER_USER
    ]
    live.exclude(pk__in=list(keep)).update(revoked_at=timezone.now())
    return token, key


def account_tokens_revoke(*, owner: Any) -> int:
    """Revoke every live account token of `owner` (a password change, "sign out every
    client"); returns how many. Personal tokens are not touched: each is revoked on its own."""
    return ApiToken.objects.filter(
        owner=owner, kind=TokenKind.ACCOUNT, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())


def token_revoke(*, owner: Any, token_id: int) -> ApiToken:
    """Revoke a token of `owner`, personal or account (at once: the next request with it is
    refused)."""
    token = ApiToken.objects.filter(pk=token_id, owner=owner).first()
    if token is None:
        raise refused(ErrorKind.NOT_FOUND, "no_such_token")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def _token_query() -> QuerySet[ApiToken]:
    """token_authenticate's statement (as .first() builds it), a sentinel for the hash."""
    live = ApiToken.objects.filter(key_hash=SENTINEL_TEXT, revoked_at__isnull=True)
    return live.select_related("owner").order_by("pk")[:1]


def token_authenticate(key: str) -> ApiToken | None:
    """The live token with this key (its owner loaded), or None.

    Every API request runs this lookup: its SQL is compiled once per database
    (games.services.compiled), building it cost more than running it."""
    found = compiled_run(
        shape="api_token",
        model=ApiToken,
        build=_token_query,
        values={"hash": (SENTINEL_TEXT, key_hash(key), ApiToken._meta.get_field("key_hash"))},
    )
    if not found:
        return None
    token = found[0]
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
