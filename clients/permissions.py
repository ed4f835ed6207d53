"""Scopes of delegated credentials: personal API tokens and OAuth 2 access tokens of apps.

A personal token (request.auth a personal ApiToken) has two scopes: reading needs `read`,
anything that changes state `play`. An OAuth token has the finer scopes of clients/scopes.py,
as its view names them (`oauth_scopes`). A session or an account token (POST /auth/token/) may
do everything its user may.

A token lacking a scope is refused with 403 `insufficient_scope`, naming the scope it needs
(details.required) and those it has (details.granted).
"""

from __future__ import annotations

from typing import Any

from oauth2_provider.models import AccessToken
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from clients.models import ApiToken, TokenScope
from clients.scopes import ACCOUNT, PLAY, READ
from games.services.reasons import english_text


class PermissionRefused(PermissionDenied):
    """A 403 with its reason and parameters (games/services/reasons.py): api/errors.py builds
    its sentence in the caller's language from them, and answers with the reason's code."""

    def __init__(self, reason: str, details: dict[str, Any] | None = None, **params: Any) -> None:
        super().__init__(detail=english_text(reason, params))
        self.reason = reason
        self.params = params
        self.details = details or {}


class InsufficientScope(PermissionRefused):
    """403 `insufficient_scope` (the RFC 6750 error's name): which scope, and what it has."""

    def __init__(self, required: str, granted: list[str]) -> None:
        super().__init__(
            "insufficient_scope",
            {"required": required, "granted": granted},
            required=required,
            granted=", ".join(granted) or "-",
        )


def personal_token(request: Request) -> ApiToken | None:
    """The personal token the request was made with, or None (session, account token, app)."""
    token = request.auth
    return token if isinstance(token, ApiToken) and token.is_personal else None


def app_token(request: Request) -> AccessToken | None:
    """The OAuth 2 access token of a third-party app the request was made with, or None."""
    token = request.auth
    return token if isinstance(token, AccessToken) else None


def required_scope(request: Request) -> str:
    """A personal token's scope for this request (and the rate limit it counts against)."""
    return TokenScope.READ.value if request.method in SAFE_METHODS else TokenScope.PLAY.value


def oauth_scope_for(method: str, view: Any) -> str:
    """The OAuth scope a request with `method` needs at `view`: what the view names for safe
    methods ("read") or the others ("write"), else `read` for a safe method and `play` for the
    others. The schema's security requirements are read from here too (clients/schema.py)."""
    safe = method.upper() in SAFE_METHODS
    declared = getattr(view, "oauth_scopes", None) or {}
    return str(declared.get("read" if safe else "write", READ if safe else PLAY))


def oauth_scope(request: Request, view: Any) -> str:
    return oauth_scope_for(request.method or "GET", view)


def granted_scopes(token: AccessToken) -> list[str]:
    return sorted(token.scope.split()) if token.scope else []


def app_allows(token: AccessToken, scope: str) -> bool:
    """The toolkit's own check: the token is live and holds `scope`."""
    return bool(token.is_valid([scope]))


class TokenScopes(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        app = app_token(request)
        if app is not None:
            scope = oauth_scope(request, view)
            if not app_allows(app, scope):
                raise InsufficientScope(scope, granted_scopes(app))
            return True
        token = personal_token(request)
        if token is None:
            return True
        scope = required_scope(request)
        if not token.allows(scope):
            raise InsufficientScope(scope, list(token.scopes))
        return True


class NotWithPersonalToken(BasePermission):
    """Managing tokens needs the account itself (a session or the account token) or an app
    the player gave the `account` scope (TokenScopes checks it): a leaked personal token must
    not be able to mint or revoke others."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS or personal_token(request) is None:
            return True
        raise PermissionRefused("personal_token_manages")


class NotWithAppToken(BasePermission):
    """What only the account holder does (a new password, deleting the account, signing every
    program out, the data export): never through an app, whatever its scopes."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if app_token(request) is None:
            return True
        raise PermissionRefused("not_with_app_token")


class AccountOnly(BasePermission):
    """The account's own data (its address, the export with token names and webhook URLs):
    never through a personal token, not even a `read` one (docs/clients.md: a personal token
    plays and reads games, it does not read the account); through an app's OAuth token only
    with the `account` scope."""

    def has_permission(self, request: Request, view: Any) -> bool:
        app = app_token(request)
        if app is not None:
            if not app_allows(app, ACCOUNT):
                raise InsufficientScope(ACCOUNT, granted_scopes(app))
            return True
        if personal_token(request) is None:
            return True
        raise PermissionRefused("account_only")


class AppsReadOnly(BasePermission):
    """An app reads here, never writes: a new address (which could take the account over by
    a password reset) or a new personal token (which would outlive the app's revoked access)
    is the account holder's own act."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS or app_token(request) is None:
            return True
        raise PermissionRefused("not_with_app_token")
