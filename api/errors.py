"""One JSON error shape everywhere under /api/:

    {"error": {"code": "...", "message": "...", "details": {...}}}

DRF exceptions, Django's Http404/PermissionDenied and the domain's GameError all pass through
`exception_handler`; unknown URLs and server errors under /api/ get the same shape from
`api_not_found` and `server_error`.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.utils import translation
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from api.messages import error_message, general_message, reason_text, request_language
from games.models import Game
from games.services.errors import STATUS_BY_KIND, ErrorKind, GameError
from games.services.reasons import SERVICE_REASONS, english_text

logger = logging.getLogger(__name__)

# DRF's own exceptions, by class, to our codes (DRF's default_code where it is already good).
_CODES: list[tuple[type[exceptions.APIException], str]] = [
    (exceptions.ValidationError, "invalid_request"),
    (exceptions.ParseError, "malformed_request"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "authentication_failed"),
    (exceptions.PermissionDenied, "permission_denied"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.Throttled, "throttled"),
]


class ApiError(exceptions.APIException):
    """An error the API layer itself raises (bad headers, bad credentials): ``reason`` a key
    of games/services/reasons.py (its code and sentence), ``params`` what the sentence names."""

    def __init__(
        self,
        status_code: int,
        reason: str,
        details: dict[str, Any] | None = None,
        **params: Any,
    ) -> None:
        code = SERVICE_REASONS[reason].code
        super().__init__(detail=english_text(reason, params), code=code)
        self.status_code = status_code
        self.error_code = code
        self.reason = reason
        self.params = params
        self.details = details or {}


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


# The engine's messages name the input they refuse; a card code of 200 KB was echoed whole.
MAX_MESSAGE = 500


def _shortened(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


# DRF's own exceptions whose code has one sentence of ours, whatever DRF's detail says.
_REASON_BY_CODE = {
    "invalid_request": "invalid_request",
    "not_authenticated": "not_authenticated",
    "throttled": "throttled",
    "not_found": "no_such_resource",
}


def _describe(exc: exceptions.APIException) -> tuple[str, str, dict[str, Any]]:
    """The code, the sentence for people and the details of a DRF exception."""
    if isinstance(exc, ApiError):
        return exc.error_code, reason_text(exc.reason, exc.params), exc.details
    code = next((c for cls, c in _CODES if isinstance(exc, cls)), None) or str(exc.default_code)
    # A permission's own refusal (clients/permissions.py) carries its reason, whose code it
    # answers with (insufficient_scope), and its details (the scope required, those granted).
    own_reason = str(getattr(exc, "reason", "") or "")
    if own_reason:
        code = SERVICE_REASONS[own_reason].code
    reason = own_reason or _REASON_BY_CODE.get(code, "")
    details: dict[str, Any] = dict(getattr(exc, "details", None) or {})
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail
        details = {"fields": detail} if isinstance(detail, dict) else {"errors": detail}
    elif isinstance(exc, exceptions.Throttled):
        # DRF sets `wait` in Throttled.__init__; the stub does not declare it.
        raw_wait = getattr(exc, "wait", None)
        details = {"retry_after": int(raw_wait) if raw_wait is not None else None}
    if reason:
        return code, reason_text(reason, getattr(exc, "params", {})), details
    return code, general_message(code, str(exc.detail)), details


# A lost or refused database connection (failover, restart, network cut): the transaction was
# rolled back, so nothing was applied, and the request may be sent again as it was (with its
# Idempotency-Key, a move is applied once). The next request gets a new connection
# (CONN_HEALTH_CHECKS).
DATABASE_RETRY_AFTER_SECONDS = 5


def _database_unavailable(exc: Exception) -> Response:
    logger.error("database unavailable: %s", type(exc).__name__, exc_info=exc)
    return Response(
        error_body(
            "service_unavailable",
            reason_text("service_unavailable", {}),
            {"retry_after": DATABASE_RETRY_AFTER_SECONDS},
        ),
        status=status.HTTP_503_SERVICE_UNAVAILABLE,
        headers={"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)},
    )


def _caller_language(context: dict[str, Any]) -> str:
    """The language of the error's message: api.messages.request_language."""
    request = context.get("request")
    if request is None:
        return translation.get_language() or settings.LANGUAGE_CODE
    try:
        user = request.user
        session = isinstance(request.successful_authenticator, SessionAuthentication)
    except exceptions.APIException:  # the credentials themselves were refused
        user, session = None, False
    return request_language(getattr(request, "_request", request), user, session=session)


def _variant(context: dict[str, Any]) -> str:
    """The game's variant, so that a refusal names its cards (or tiles) as the game does."""
    game_id = (context.get("kwargs") or {}).get("game_id")
    if game_id is None:
        return "classic"
    variant = Game.objects.filter(pk=game_id).values_list("variant", flat=True).first()
    return variant or "classic"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every API error in the one shape; its `message` in the caller's language (the code
    and the details stay as they are: programs read those)."""
    if isinstance(exc, (OperationalError, InterfaceError)):
        return _database_unavailable(exc)
    with translation.override(_caller_language(context)):
        response = _error_response(exc, context)
        if response is not None:
            response["Content-Language"] = translation.get_language()
        return response


def _error_response(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, GameError):
        variant = _variant(context) if exc.kind is ErrorKind.ILLEGAL else "classic"
        return Response(
            error_body(exc.code, _shortened(error_message(exc, variant)), exc.details),
            status=STATUS_BY_KIND[exc.kind],
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound("No such resource.")
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    else:
        exc = _unreadable_request(exc) or exc
    # DRF's handler sets the headers that belong to the status (WWW-Authenticate, Retry-After).
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a bug: Django's handler500 (server_error below) answers
    assert isinstance(exc, exceptions.APIException)
    code, message, details = _describe(exc)
    response.data = error_body(code, _shortened(message), details)
    return response


def _unreadable_request(exc: Exception) -> exceptions.APIException | None:
    """Errors of reading a hostile body, raised while DRF parses it (tests/fuzz): without this
    they were Django's HTML 400 page or, for deep JSON, a 500."""
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return ApiError(
            status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            "request_too_large",
            {"limit": limit},
            limit=limit,
        )
    if isinstance(exc, (TooManyFieldsSent, TooManyFilesSent)):
        return exceptions.ParseError("The request has too many fields.")
    if isinstance(exc, RecursionError):
        # json.loads (and json.dumps of what it returned) recurse once per level of nesting;
        # no request of ours nests more than a few levels.
        return exceptions.ParseError("The request body is nested too deeply.")
    return None


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


# Exempt: otherwise a POST with a session cookie to an unknown API URL got Django's HTML
# "403 CSRF" page instead of this 404 (found by tests/fuzz). It changes nothing, so there is
# nothing for a forged request to do.
@csrf_exempt
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """The catch-all for unknown URLs under /api/ (also with DEBUG on)."""
    details: dict[str, Any] = {"path": request.path}
    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not api_not_found:
            details["hint"] = "API paths end with a slash: " + request.path + "/"
    message = reason_text("no_such_endpoint", {})
    return JsonResponse(error_body("not_found", message, details), status=404)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return api_not_found(request)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        body = error_body("server_error", reason_text("server_error", {}))
        return JsonResponse(body, status=500)
    return defaults.server_error(request)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A request Django refused before any view (a host not in ALLOWED_HOSTS, an unreadable
    body): the one error shape under /api/, Django's page elsewhere. It names nothing of what
    was sent (a disallowed host is logged by Django's security logger)."""
    if _is_api(request):
        body = error_body("bad_request", "The request could not be accepted.")
        return JsonResponse(body, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        message = reason_text("not_allowed", {})
        return JsonResponse(error_body("permission_denied", message), status=403)
    return defaults.permission_denied(request, exception)
