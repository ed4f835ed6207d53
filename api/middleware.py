"""Over-long URLs: 414 in the one error shape (api/errors.py) under /api/.

gunicorn refused request lines over 4094 bytes itself, with an HTML page. gunicorn.conf.py
now lets them through (up to its 1 MiB buffer) and this middleware, first in the chain,
refuses a URL over MAX_URL_LENGTH before any other work: JSON under /api/, plain text
elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from api.errors import error_body

# What gunicorn accepted before (its default limit_request_line): a URL that worked still works.
MAX_URL_LENGTH = 4094


def _url_length(request: HttpRequest) -> int:
    # The URL as sent (gunicorn's RAW_URI), else what Django rebuilds from the WSGI variables.
    raw = request.META.get("RAW_URI")
    return len(raw) if isinstance(raw, str) else len(request.get_full_path())


def url_length_middleware(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    def middleware(request: HttpRequest) -> HttpResponse:
        length = _url_length(request)
        if length <= MAX_URL_LENGTH:
            return get_response(request)
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

    return middleware
