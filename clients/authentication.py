"""`Authorization: Bearer <key>` or `Token <key>` with a personal API token (clients.ApiToken).

DRF's own TokenAuthentication keeps working: a `Token <key>` header whose key is not a
personal one (no "cnst_" prefix) is left to it, and `Bearer` accepts an account token too.
For a personal token, `request.auth` is the ApiToken, whose scopes clients.permissions checks.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import (
    BaseAuthentication,
    TokenAuthentication,
    get_authorization_header,
)
from rest_framework.request import Request

from clients.services.tokens import is_personal_key, token_authenticate

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
        if not is_personal_key(key):
            if parts[0].lower() == b"bearer":
                return TokenAuthentication().authenticate_credentials(key)
            return None  # an account token: DRF's TokenAuthentication, next in the list
        token = token_authenticate(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        if not token.owner.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.owner, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
