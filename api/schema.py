"""OpenAPI pieces shared by the views: headers, and the error responses in the error shape."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from api.serializers.errors import ErrorSerializer

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (e.g. a UUID), at most 255 characters. A retry with the "
    "same key and body gets the first response again (header Idempotent-Replayed: true); "
    "the same key with another body is 422 idempotency_key_reused; while the first request "
    "is still running, 409 request_in_progress.",
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="The ETag of the game as you saw it (or its bare version number), instead "
    "of expected_version.",
)
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="An ETag from an earlier response: 304 Not Modified if the game has not changed.",
)


def error(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


UNAUTHENTICATED = {401: error("No or invalid credentials (not_authenticated).")}
NOT_FOUND = {404: error("No such game, or one you may not see (not_found).")}
THROTTLED = {429: error("Too many requests (throttled); see the Retry-After header.")}
COMMON = {**UNAUTHENTICATED, **THROTTLED}
GAME_COMMON = {**COMMON, **NOT_FOUND}
