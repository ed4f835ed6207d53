"""The Idempotency-Key header for POST views (design.md; as Zulip and Stripe do it)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db import transaction
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import ApiError
from api.renderers import JSONRenderer
from games.models import IdempotencyRecord
from games.services.idempotency import (
    idempotency_claim,
    idempotency_complete,
    idempotency_release,
)

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
_KEPT_HEADERS = ("ETag", "Location")


def _fingerprint(request: Request) -> str:
    data: Any = request.data
    if hasattr(data, "lists"):  # form data: a QueryDict
        data = {key: values for key, values in data.lists()}
    raw = json.dumps(
        {
            "method": request.method,
            "path": request.path,
            "body": data,
            "if_match": request.headers.get("If-Match"),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(raw.encode()).hexdigest()


def idempotent(handler: Callable[..., Response]) -> Callable[..., Response]:
    """Run ``handler`` once per (user, Idempotency-Key); later calls get its first response.

    Errors are responses too (a 409 or 422 is replayed like a 200), except server errors: a
    request that failed unexpectedly keeps no claim, so that the retry runs it again.
    """

    @wraps(handler)
    def wrapper(view: APIView, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        if not key.strip() or len(key) > 255:
            raise ApiError(
                status.HTTP_400_BAD_REQUEST,
                "invalid_request",
                f"{HEADER} must be 1 to 255 characters.",
            )
        fingerprint = _fingerprint(request)
        # One transaction for the claim, the request's own work and the stored answer
        # (docs/move-path-speed.md): the view's transaction becomes a savepoint of it, and one
        # commit makes the effect and its answer durable together. Whatever fails (the view,
        # the rendering, storing the answer) rolls the claim back with it, so a retry runs
        # the request again. A concurrent duplicate waits on the claim's unique key until this
        # commits (PostgreSQL; SQLite has one writer) and then gets the stored answer.
        with transaction.atomic():
            claim = idempotency_claim(user=request.user, key=key, fingerprint=fingerprint)
            if claim.replay:
                return _replayed(claim.record)
            return _first_response(handler, claim.record, view, request, *args, **kwargs)

    return wrapper


def _first_response(
    handler: Callable[..., Response],
    record: IdempotencyRecord,
    view: APIView,
    request: Request,
    *args: Any,
    **kwargs: Any,
) -> Response:
    try:
        response = handler(view, request, *args, **kwargs)
    except Exception as exc:
        # The view's exception handler renders expected errors (raises the rest), so the
        # stored response is exactly what the client would have seen.
        response = view.handle_exception(exc)
    if response.status_code >= 500:
        # Not stored: a retry runs the request again (what the view did stays, as before).
        idempotency_release(record=record)
        return response
    headers = {name: response[name] for name in _KEPT_HEADERS if response.has_header(name)}
    idempotency_complete(
        record=record, status=response.status_code, body=_rendered(response), headers=headers
    )
    return response


def _rendered(response: Response) -> str:
    """The body as JSON text, keys in the order the view wrote them.

    Stored as one JSON string, not as an object: PostgreSQL's jsonb reorders an object's keys
    (shortest first), so a replay rebuilt from it was not the first response byte for byte.
    """
    return JSONRenderer().render(response.data).decode()


def _replayed(record: IdempotencyRecord) -> Response:
    body = record.response_body
    if isinstance(body, str):
        # json.loads keeps the keys' order, so the renderer writes the same bytes again.
        body = json.loads(body) if body else None
    response = Response(body, status=record.response_status)
    for name, value in record.response_headers.items():
        response[name] = value
    response[REPLAYED] = "true"
    return response
