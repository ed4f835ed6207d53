"""Scopes of personal API tokens: reading needs `read`, anything that changes state `play`.

Only requests authenticated with a personal token (request.auth is a personal ApiToken) are
limited; a session or an account token (POST /auth/token/) may do everything its user may.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from clients.models import ApiToken, TokenScope
from games.services.reasons import english_text


class PermissionRefused(PermissionDenied):
    """A 403 with its reason and parameters (games/services/reasons.py): api/errors.py builds
    its sentence in the caller's language from them."""

    def __init__(self, reason: str, **params: Any) -> None:
        super().__init__(detail=english_text(reason, params))
        self.reason = reason
        self.params = params


def personal_token(request: Request) -> ApiToken | None:
    """The personal token the request was made with, or None (session, account token)."""
    token = request.auth
    return token if isinstance(token, ApiToken) and token.is_personal else None


def required_scope(request: Request) -> str:
    return TokenScope.READ.value if request.method in SAFE_METHODS else TokenScope.PLAY.value


class TokenScopes(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        token = personal_token(request)
        if token is None:
            return True
        scope = required_scope(request)
        if token.allows(scope):
            return True
        raise PermissionRefused("token_lacks_scope", scope=scope, scopes=", ".join(token.scopes))


class NotWithPersonalToken(BasePermission):
    """Managing tokens needs the account itself (a session or the account token): a leaked
    personal token must not be able to mint or revoke others."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS or personal_token(request) is None:
            return True
        raise PermissionRefused("personal_token_manages")


class AccountOnly(BasePermission):
    """The account's own data (its address, the export with token names and webhook URLs):
    never through a personal token, not even a `read` one (docs/clients.md: a personal token
    plays and reads games, it does not read the account)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if personal_token(request) is None:
            return True
        raise PermissionRefused("account_only")
