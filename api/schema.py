"""OpenAPI pieces shared by the views: headers, and the error responses in the error shape."""

from __future__ import annotations

from typing import Any

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


# --- What every operation can answer, by construction (issue 29) ----------------------------
#
# The statuses below do not depend on what a view does but on what stands around it: the
# middleware (414), the authentication and permission classes (401, 403), the throttles (429),
# the URL's parameters (404), a request body (400, 413, 415) and the error handler (500). The
# hook reads them from each view class and adds whatever an operation does not document
# itself, so a new view cannot forget them. The views keep their own, more precise wording.

_ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
_STRING = {"type": "string"}
_INTEGER = {"type": "integer", "minimum": 0}
_SAFE_METHODS = {"get", "head", "options"}
RATE_LIMIT_HEADERS = {
    "RateLimit": {
        "description": "What is left of this request's limit (IETF draft-ietf-httpapi-"
        'ratelimit-headers): `"<scope>";r=<requests left>;t=<seconds until one is free '
        "again>`. Absent when the request is not limited (or the limit store is down).",
        "schema": _STRING,
    },
    "RateLimit-Policy": {
        "description": 'The limit: `"<scope>";q=<requests>;w=<window in seconds>` (a sliding '
        "window: no reset on the clock minute).",
        "schema": _STRING,
    },
}
RETRY_AFTER = {
    "description": "Seconds to wait before the next request that can succeed.",
    "required": True,
    "schema": _INTEGER,
}
ETAG = {
    "description": 'The game as your seat saw it: W/"<game>-<version>-<seat>". Send it as '
    "If-Match with a move or If-None-Match with a read.",
    "required": True,
    "schema": _STRING,
}
# Answers that are a game or a seat's legal actions carry the game's ETag (api.views.common).
_GAME_SCHEMAS = ("/GameDetail", "/LegalOut", "/ActionsOut")
LOCATION = {"description": "The new game's URL.", "required": True, "schema": _STRING}
IDEMPOTENT_REPLAYED = {
    "description": "true: this is the stored first answer to this Idempotency-Key, replayed; "
    "nothing was done again.",
    "schema": {"type": "string", "enum": ["true"]},
}
_GENERAL_ERRORS = {
    "400": "A malformed request: an unknown Host, an unreadable query (invalid_request, "
    "malformed_request).",
    "414": "The URL is longer than 4,094 characters (uri_too_long, details.limit).",
    "500": "An unexpected failure (server_error); the error is logged.",
    "503": "The database is unavailable (service_unavailable): nothing was changed; send the "
    "same request again after Retry-After seconds.",
}


def _view_classes(generator: Any) -> dict[tuple[str, str], type]:
    classes: dict[tuple[str, str], type] = {}
    for path, _regex, method, callback in getattr(generator, "endpoints", None) or []:
        view_class = getattr(callback, "cls", None)
        if view_class is not None:
            classes[path, method.lower()] = view_class
    return classes


def _statuses_for(view_class: type, path: str, method: str, operation: dict) -> dict[str, str]:
    """The statuses the machinery around `view_class` can answer, with why."""
    statuses = dict(_GENERAL_ERRORS)
    authenticates = bool(getattr(view_class, "authentication_classes", []))
    permissions = {cls.__name__ for cls in getattr(view_class, "permission_classes", [])}
    if authenticates:
        statuses["401"] = (
            "Credentials sent but not valid: unknown, revoked or expired token "
            "(not_authenticated); or none where they are needed."
        )
        if method not in _SAFE_METHODS or permissions - {"AllowAny", "IsAuthenticated"}:
            statuses["403"] = (
                "Not allowed: a personal or OAuth token without the scope this needs "
                "(insufficient_scope), a session request without its CSRF token, or the "
                "operation's own refusal (permission_denied)."
            )
    if getattr(view_class, "throttle_classes", None):
        statuses["429"] = "Too many requests (throttled); wait Retry-After seconds."
    if "{" in path:
        statuses["404"] = "Nothing at this URL for you (not_found)."
    if "requestBody" in operation or method == "post":
        statuses["413"] = (
            "The body is larger than DATA_UPLOAD_MAX_MEMORY_SIZE (request_too_large, "
            "details.limit)."
        )
        statuses["415"] = "Not JSON: the API reads JSON bodies only (unsupported_media_type)."
    return statuses


def _takes_idempotency_key(operation: dict) -> bool:
    return any(p.get("name") == "Idempotency-Key" for p in operation.get("parameters", []))


_IDEMPOTENCY_PARAMETER = {
    "in": "header",
    "name": IDEMPOTENCY_KEY.name,
    "schema": IDEMPOTENCY_KEY.type,
    "description": IDEMPOTENCY_KEY.description,
}
_IDEMPOTENCY_ERRORS = {
    "409": "request_in_progress: the first request with this Idempotency-Key is still running.",
    "422": "idempotency_key_reused: this Idempotency-Key came with another body.",
}


def _document_idempotency(view_class: type, method: str, operation: dict) -> None:
    """Every operation whose handler is wrapped by api.idempotency.idempotent lists the
    header, and the two refusals it adds, whether or not the view remembered to."""
    handler = getattr(view_class, method, None)
    if not getattr(handler, "honours_idempotency_key", False):
        return
    if not _takes_idempotency_key(operation):
        operation.setdefault("parameters", []).append(dict(_IDEMPOTENCY_PARAMETER))
    for code, why in _IDEMPOTENCY_ERRORS.items():
        operation["responses"].setdefault(code, {"description": why, "content": _ERROR_CONTENT})


DEPRECATION_HEADERS = {
    "Deprecation": {
        "description": "RFC 9745: `@<unix seconds>`, since when a field of this answer (marked "
        "deprecated) is deprecated (docs/api-changelog.md).",
        "required": True,
        "schema": {"type": "string", "pattern": r"^@\d+$"},
    },
    "Sunset": {
        "description": "RFC 8594: the HTTP date after which the deprecated fields may go.",
        "required": True,
        "schema": _STRING,
    },
    "Link": {
        "description": 'RFC 9745 §3: `</api/docs/>; rel="deprecation"`, where to read what '
        "is deprecated and what to use instead.",
        "required": True,
        "schema": _STRING,
    },
}


def _deprecated_fields(schema: dict, components: dict) -> tuple[bool, bool]:
    """Whether the answer's schema has deprecated fields, and whether one of them is always
    there (then so are the headers; an optional one, as the old paging fields, comes with
    its headers only when it is sent)."""
    name = schema.get("$ref", "").rsplit("/", 1)[-1]
    component = components.get(name, {})
    deprecated = [
        n for n, prop in component.get("properties", {}).items() if prop.get("deprecated")
    ]
    return bool(deprecated), any(n in component.get("required", []) for n in deprecated)


def _deprecation_headers(always: bool) -> dict:
    return {name: {**header, "required": always} for name, header in DEPRECATION_HEADERS.items()}


def _declare_headers(operation: dict, throttled: bool, components: dict) -> None:
    replays = _takes_idempotency_key(operation)
    for code, response in operation.get("responses", {}).items():
        headers = response.setdefault("headers", {})
        if throttled:
            headers.update(RATE_LIMIT_HEADERS)
        schema = response.get("content", {}).get("application/json", {}).get("schema", {})
        if code == "429" or (
            code == "503" and schema == _ERROR_CONTENT["application/json"]["schema"]
        ):
            headers["Retry-After"] = RETRY_AFTER
        if code == "304" or schema.get("$ref", "").endswith(_GAME_SCHEMAS):
            headers["ETag"] = ETAG
        if code == "201" and operation.get("operationId") == "games_create":
            headers["Location"] = LOCATION
        if replays and code.startswith("2"):
            headers["Idempotent-Replayed"] = IDEMPOTENT_REPLAYED
        deprecated, always = _deprecated_fields(schema, components)
        old_parameters = any(p.get("deprecated") for p in operation.get("parameters", []))
        if deprecated or old_parameters:
            headers.update(_deprecation_headers(always))
        if not headers:
            del response["headers"]


def complete_responses(result: dict, generator: Any, request: object, public: bool) -> dict:
    """drf-spectacular postprocessing hook: every status an operation can answer, in the error
    shape, and the response headers (RateLimit, Retry-After, ETag, Location,
    Idempotent-Replayed) where they are sent."""
    classes = _view_classes(generator)
    for path, methods in result.get("paths", {}).items():
        for method, operation in methods.items():
            view_class = classes.get((path, method))
            if view_class is None or not isinstance(operation, dict):
                continue
            responses = operation.setdefault("responses", {})
            for code, why in _statuses_for(view_class, path, method, operation).items():
                responses.setdefault(code, {"description": why, "content": _ERROR_CONTENT})
            _document_idempotency(view_class, method, operation)
            operation["responses"] = dict(sorted(operation["responses"].items()))
            throttled = bool(getattr(view_class, "throttle_classes", None))
            _declare_headers(operation, throttled, result.get("components", {}).get("schemas", {}))
    return result


def _null_as_type(node: Any) -> None:
    if isinstance(node, dict):
        if node.pop("nullable", False) is True and isinstance(node.get("type"), str):
            node["type"] = [node["type"], "null"]
        for value in node.values():
            _null_as_type(value)
    elif isinstance(node, list):
        for value in node:
            _null_as_type(value)


def null_as_type(result: dict, generator: object, request: object, public: bool) -> dict:
    """drf-spectacular postprocessing hook: OpenAPI 3.1 has no `nullable`; a schema written
    with it by hand (DRF's paginator: `next`, `previous`) gets `type: [..., "null"]`."""
    _null_as_type(result)
    return result
