"""How drf-spectacular describes the personal-token authentication in the OpenAPI schema."""

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
            "description": "A personal API token (cnst_...) from POST /api/v1/tokens/, as "
            "`Authorization: Bearer <key>` (or `Token <key>`). Its scopes: `read` for GET, "
            "`play` for every other method.",
        }
