"""How drf-spectacular describes API-key authentication (personal and account tokens) and
OAuth 2 access tokens of apps in the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.permissions import SAFE_METHODS

from clients.permissions import AppsReadOnly, NotWithAppToken, oauth_scope_for
from clients.scopes import SCOPES


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "clients.authentication.ApiTokenAuthentication"
    name = "personalToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key as `Authorization: Bearer <key>` (or `Token <key>`): "
            "an account token (cnsa_...) from POST /api/v1/auth/token/, which may do "
            "everything its account may, or a personal token (cnst_...) from POST "
            "/api/v1/tokens/, limited to its scopes: `read` for GET, `play` for every other "
            "method.",
        }


class OAuthTokenScheme(OpenApiAuthenticationExtension):
    """OAuth 2 (authorization code with PKCE): the endpoints, the scopes, and for each
    operation the scope it needs (clients.permissions.oauth_scope_for); an operation an app
    may never call (a new password, deleting the account) does not list the scheme."""

    target_class = "clients.authentication.OAuthTokenAuthentication"
    name = "oauth2"

    def get_security_requirement(
        self, auto_schema: Any
    ) -> dict[str, list[Any]] | list[dict[str, list[Any]]]:
        view, method = auto_schema.view, auto_schema.method
        permissions = {type(permission) for permission in view.get_permissions()}
        refused = AppsReadOnly in permissions and method.upper() not in SAFE_METHODS
        if NotWithAppToken in permissions or refused:
            return []  # no requirement: the scheme is not offered for this operation
        return {self.name: [oauth_scope_for(method, view)]}

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "oauth2",
            "description": "OAuth 2 for third-party apps: the authorization code grant with "
            "PKCE (S256) required; the access token (cnso_...) as `Authorization: Bearer "
            "<token>`. A token without the scope an operation needs: 403 insufficient_scope "
            '(docs/clients.md, "OAuth 2").',
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "/oauth/authorize/",
                    "tokenUrl": "/oauth/token/",
                    "refreshUrl": "/oauth/token/",
                    "scopes": {name: str(words) for name, words in SCOPES.items()},
                }
            },
        }
