"""`Authorization: Bearer <key>` or `Token <key>` with an API key (clients.ApiToken).

Every key is looked up by its sha256: personal tokens (`cnst_...`, scoped) and account tokens
(`cnsa_...` from POST /auth/token/, and the older 40-hex-digit account keys, moved here by
migration clients 0003). `request.auth` is the ApiToken; clients.permissions limits a personal
token to its scopes, an account token may do what its user may.

OAuth 2 access tokens of third-party apps (`cnso_...`, clients/scopes.py) are checked by
django-oauth-toolkit instead (OAuthTokenAuthentication): `request.auth` is then its
AccessToken, limited to the scopes the player granted.
"""

from __future__ import annotations

from typing import Any

from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from clients.scopes import ACCESS_PREFIX
from clients.services.tokens import token_authenticate

KEYWORDS = (b"bearer", b"token")


def _sent_key(request: Request) -> str | None:
    """The key of an `Authorization: Bearer|Token <key>` header, or None without one."""
    parts = get_authorization_header(request).split()
    if not parts or parts[0].lower() not in KEYWORDS:
        return None
    if len(parts) != 2:
        raise exceptions.AuthenticationFailed(
            "Invalid Authorization header: expected 'Bearer <key>' or 'Token <key>'."
        )
    try:
        return parts[1].decode()
    except UnicodeError:
        raise exceptions.AuthenticationFailed("Invalid characters in the token.") from None


class ApiTokenAuthentication(BaseAuthentication):
    # The challenge stays "Token", as before personal tokens existed.
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        key = _sent_key(request)
        if key is None or key.startswith(ACCESS_PREFIX):
            return None
        token = token_authenticate(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        if not token.owner.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.owner, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class OAuthTokenAuthentication(OAuth2Authentication):
    """An OAuth 2 access token (`Authorization: Bearer cnso_...`), checked by the toolkit: known,
    not expired, not revoked. A token it refuses is a 401 (not the next authenticator's turn:
    the key says what it is)."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        key = _sent_key(request)
        if key is None or not key.startswith(ACCESS_PREFIX):
            return None
        found = super().authenticate(request)
        if found is None:
            raise exceptions.AuthenticationFailed("Invalid, expired or revoked OAuth token.")
        user, token = found
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, token
