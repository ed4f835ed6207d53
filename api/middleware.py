"""Over-long URLs, and the RateLimit headers.

Over-long URLs: 414 in the one error shape (api/errors.py) under /api/.

gunicorn refused request lines over 4094 bytes itself, with an HTML page. gunicorn.conf.py
now lets them through (up to its 1 MiB buffer) and this middleware, first in the chain,
refuses a URL over MAX_URL_LENGTH before any other work: JSON under /api/, plain text
elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
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
