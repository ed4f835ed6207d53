"""The edge: requests refused before any other work, in the one error shape (api/errors.py)
under /api/ and as plain text elsewhere.

Over-long URLs: 414. Every response of a rate-limited request: the RateLimit headers.

gunicorn refused request lines over 4094 bytes itself, with an HTML page. gunicorn.conf.py
now lets them through (up to its 1 MiB buffer) and this middleware, first in the chain,
refuses a URL over MAX_URL_LENGTH before any other work: JSON under /api/, plain text
elsewhere.

Characters PostgreSQL cannot store (NUL, lone surrogates) anywhere a view could pass them to
a query: 400 malformed_request (unstorable_middleware).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.http.request import RawPostDataException
from django.utils.decorators import sync_and_async_middleware

from api.errors import error_body
from api.throttles import Decision

# What gunicorn accepted before (its default limit_request_line): a URL that worked still works.
MAX_URL_LENGTH = 4094


def _url_length(request: HttpRequest) -> int:
    # The URL as sent (gunicorn's RAW_URI), else what Django rebuilds from the WSGI variables.
    raw = request.META.get("RAW_URI")
    return len(raw) if isinstance(raw, str) else len(request.get_full_path())


def _too_long(request: HttpRequest) -> HttpResponse | None:
    if _url_length(request) <= MAX_URL_LENGTH:
        return None
    if request.path.startswith("/api/"):
        body = error_body(
            "uri_too_long",
            f"The URL is longer than {MAX_URL_LENGTH} characters.",
            {"limit": MAX_URL_LENGTH},
        )
        return JsonResponse(body, status=414)
    return HttpResponse(
        "The URL is too long.", status=414, content_type="text/plain; charset=utf-8"
    )


@sync_and_async_middleware
def url_length_middleware(get_response: Callable[[HttpRequest], Any]) -> Callable[..., Any]:
    # Both kinds: a synchronous-only middleware would make Django run every request under
    # ASGI (the Procfile's web process) in a thread, open event feeds included
    # (docs/event-streams.md).
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponseBase:
            return _too_long(request) or await get_response(request)

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponseBase:
        return _too_long(request) or get_response(request)

    return middleware


# --- characters PostgreSQL cannot store ----------------------------------------------------

# NUL (PostgreSQL's text types refuse it) and lone UTF-16 surrogates (not encodable as UTF-8:
# a JSON "\ud800" decodes to one): either reaching a query was a 500.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
# A body Django cannot read (too large, too many fields, broken multipart, cut short): the
# view's own 4xx answers it; this check lets it through.
UNREADABLE = (SuspiciousOperation, MultiPartParserError, RawPostDataException, OSError, ValueError)


def _strings(value: Any) -> Iterator[str]:
    """Every string in a decoded JSON document, keys too (no recursion: nesting is free)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _pairs_unstorable(pairs: Iterable[tuple[str, list[Any]]]) -> bool:
    for key, values in pairs:
        if UNSTORABLE.search(key):
            return True
        if any(isinstance(v, str) and UNSTORABLE.search(v) for v in values):
            return True
    return False


def _json_unstorable(body: bytes) -> bool:
    # Inside a JSON string NUL and surrogates can only come as \u escapes (a raw control
    # character is malformed JSON, refused by the parser): no escape, nothing to decode.
    if b"\\u" not in body:
        return False
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return False  # malformed or too deep: the API's parser answers that itself
    return any(UNSTORABLE.search(text) for text in _strings(document))


def _body_unstorable(request: HttpRequest) -> bool:
    content_type = request.content_type or ""
    if content_type.startswith(FORM_TYPES):
        try:
            # The body first: kept whole, so the views still read it (the API's idempotency
            # fingerprint, its own parser); the form is parsed from a copy.
            request.body  # noqa: B018
            fields = request.POST
        except UNREADABLE:
            return False  # the view's own 4xx follows (Django raises it again there)
        return _pairs_unstorable(fields.lists())
    if "json" in content_type:
        try:
            return _json_unstorable(request.body)
        except UNREADABLE:
            return False
    return False


def unstorable_part(request: HttpRequest) -> str | None:
    """Where the request holds a character no database column can store, or None."""
    if UNSTORABLE.search(request.path):
        return "path"
    if _pairs_unstorable(request.GET.lists()):
        return "query"
    for key, value in request.META.items():
        if key.startswith("HTTP_") and isinstance(value, str) and UNSTORABLE.search(value):
            return "header"
    if request.method in ("POST", "PUT", "PATCH", "DELETE") and _body_unstorable(request):
        return "body"
    return None


def _refused(request: HttpRequest) -> HttpResponse | None:
    part = unstorable_part(request)
    if part is None:
        return None
    message = (
        f"The request's {part} holds a character that cannot be stored (NUL or a lone surrogate)."
    )
    if request.path.startswith("/api/"):
        body = error_body("malformed_request", message, {"part": part})
        return JsonResponse(body, status=400)
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")


@sync_and_async_middleware
def unstorable_middleware(get_response: Callable[[HttpRequest], Any]) -> Callable[..., Any]:
    """400 for a NUL or a lone surrogate anywhere a view could pass it to the database (path,
    query, headers, JSON and form bodies), on every route, before any other work."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponseBase:
            return _refused(request) or await get_response(request)

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponseBase:
        return _refused(request) or get_response(request)

    return middleware


# --- The RateLimit headers (issue 29) ----------------------------------------------------------


def _policy(decision: Decision) -> str:
    return f'"{decision.scope}";q={decision.limit};w={decision.window}'


def _left(decision: Decision) -> str:
    return f'"{decision.scope}";r={decision.remaining};t={math.ceil(decision.reset)}'


def _with_rate_limits(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    decisions = getattr(request, "rate_limits", None)
    if decisions:
        # IETF draft-ietf-httpapi-ratelimit-headers: one list item per limit this request was
        # counted against (usually one: the user's read or play scope, or the address's).
        response["RateLimit-Policy"] = ", ".join(_policy(d) for d in decisions)
        response["RateLimit"] = ", ".join(_left(d) for d in decisions)
    return response


@sync_and_async_middleware
def rate_limit_headers_middleware(
    get_response: Callable[[HttpRequest], Any],
) -> Callable[..., Any]:
    """Every response of a limited request says what is left (api.throttles keeps each
    verdict on the request): a client paces itself instead of meeting a 429."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponseBase:
            return _with_rate_limits(request, await get_response(request))

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponseBase:
        return _with_rate_limits(request, get_response(request))

    return middleware
