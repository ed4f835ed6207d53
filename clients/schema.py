"""How drf-spectacular describes API-key authentication (personal and account tokens) in the
OpenAPI schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


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
