"""OpenAPI pieces shared by the views: headers, and the error responses in the error shape."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from api.serializers.errors import ErrorSerializer

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    # What api.idempotency accepts: 1 to 255 characters, not only white space.
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"\S"},
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
# Every operation with a request body: a body too large to read, or not JSON (form and
# multipart bodies included; an unreadable one is 400 malformed_request, with the other 400s).
BODY = {
    413: error(
        "The body is larger than DATA_UPLOAD_MAX_MEMORY_SIZE (request_too_large, details.limit)."
    ),
    415: error("Not JSON: the API reads JSON bodies only (unsupported_media_type)."),
}
# Every operation that takes IDEMPOTENCY_KEY (an operation with its own 400 describes it too).
# With a key, even an operation without a request body reads the body (the key's
# fingerprint), so it may also answer 400 malformed_request, 413 and 415.
BAD_IDEMPOTENCY_KEY = {
    400: error(
        "Idempotency-Key empty, blank or longer than 255 characters (invalid_request); a "
        "body that cannot be read (malformed_request)."
    ),
    **BODY,
}
NO_SUCH_PAGE = {404: error("A page past the last one, or not a page number (not_found).")}
GAME_COMMON = {**COMMON, **NOT_FOUND}


# OpenAPI links (OpenAPI 3.0 §4.7.21): how the answer of one operation feeds the next, for
# generated clients and for the stateful fuzzer (tests/fuzz/test_stateful_fuzz.py), which
# follows them: create a game, read it, ask for the legal actions, play the first one.
_GAME_ID_FROM_BODY = {"game_id": "$response.body#/id"}
_SAME_GAME = {"game_id": "$request.path.game_id"}
_LINKS: dict[tuple[str, str], dict[str, dict]] = {
    ("games_create", "201"): {
        "ReadTheGame": {"operationId": "games_retrieve", "parameters": _GAME_ID_FROM_BODY},
        "MyLegalActions": {"operationId": "games_legal", "parameters": _GAME_ID_FROM_BODY},
        "JoinTheGame": {"operationId": "games_join", "parameters": _GAME_ID_FROM_BODY},
        "LeaveTheGame": {"operationId": "games_leave", "parameters": _GAME_ID_FROM_BODY},
        "AbortTheGame": {"operationId": "games_abort", "parameters": _GAME_ID_FROM_BODY},
    },
    ("games_retrieve", "200"): {
        "MyLegalActions": {"operationId": "games_legal", "parameters": _SAME_GAME},
        "TheMoveLog": {"operationId": "games_moves", "parameters": _SAME_GAME},
        "TheHands": {"operationId": "games_hands", "parameters": _SAME_GAME},
    },
    ("games_legal", "200"): {
        "PlayTheFirstLegalAction": {
            "operationId": "games_actions",
            "parameters": _SAME_GAME,
            "requestBody": {
                "actions": ["$response.body#/actions/0"],
                "expected_version": "$response.body#/version",
            },
            # For schemathesis: send this body as it is, not merged into a generated one.
            "x-schemathesis": {"merge_body": False},
        },
    },
    ("games_actions", "200"): {
        "MyLegalActionsNow": {"operationId": "games_legal", "parameters": _SAME_GAME},
        "TheMoveLog": {"operationId": "games_moves", "parameters": _SAME_GAME},
    },
}


def add_links(result: dict, generator: object, request: object, public: bool) -> dict:
    """drf-spectacular postprocessing hook: the links above, on the responses they start from."""
    for methods in result.get("paths", {}).values():
        for operation in methods.values():
            if not isinstance(operation, dict):
                continue
            for code, response in operation.get("responses", {}).items():
                links = _LINKS.get((operation.get("operationId", ""), str(code)))
                if links:
                    response["links"] = links
    return result


def pin_discriminators(result: dict, generator: object, request: object, public: bool) -> dict:
    """drf-spectacular postprocessing hook: each member of a `oneOf` keyed by `type` (actions,
    events; api/serializers/typed.py) gets `enum: [<its value>]` on that property, from the
    discriminator's mapping, so a generated client checks and fills it.

    Done here, after the enum hook, rather than with one-value ChoiceFields: those would all
    be fields named `type` with different choices, which that hook reports as collisions.
    """
    schemas = result.get("components", {}).get("schemas", {})
    for schema in schemas.values():
        discriminator = schema.get("discriminator")
        if not isinstance(discriminator, dict):
            continue
        name = discriminator.get("propertyName")
        for value, ref in discriminator.get("mapping", {}).items():
            member = schemas.get(ref.rsplit("/", 1)[-1], {})
            prop = member.get("properties", {}).get(name)
            if prop is not None:
                prop["enum"] = [value]
    return result
