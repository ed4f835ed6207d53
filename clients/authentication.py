"""`Authorization: Bearer <key>` or `Token <key>` with an API key (clients.ApiToken).

Every key is looked up by its sha256: personal tokens (`cnst_...`, scoped) and account tokens
(`cnsa_...` from POST /auth/token/, and the older 40-hex-digit account keys, moved here by
migration clients 0003). `request.auth` is the ApiToken; clients.permissions limits a personal
token to its scopes, an account token may do what its user may.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from clients.services.tokens import token_authenticate

KEYWORDS = (b"bearer", b"token")


class ApiTokenAuthentication(BaseAuthentication):
    # The challenge stays "Token", as before personal tokens existed.
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                "Invalid Authorization header: expected 'Bearer <key>' or 'Token <key>'."
            )
        try:
            key = parts[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("Invalid characters in the token.") from None
        token = token_authenticate(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        if not token.owner.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.owner, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
