"""The Idempotency-Key header for POST views (docs/api.md, "Idempotency-Key"; as Zulip and Stripe do it)."""

from __future__ import annotations

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
from api.renderers import JSONRenderer, prerendered
from games.fields import digest
from games.models import IdempotencyRecord
from games.services.idempotency import (
    IdempotencyKeyTaken,
    idempotency_in_progress,
    idempotency_recorded,
    idempotency_store,
    record_answer,
)

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
_KEPT_HEADERS = ("ETag", "Location")
# Runs of a request whose key turned out to be free after all (its record vanished, or was an
# abandoned open claim): then 409, retry later.
ATTEMPTS = 3


def _fingerprint(request: Request) -> bytes:
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
    # What records before issue 25 kept as 64 hex digits, its first 16 bytes (games.fields).
    return digest(raw)


def idempotent(handler: Callable[..., Response]) -> Callable[..., Response]:
    """Run ``handler`` once per (user, Idempotency-Key); later calls get its first response.

    Errors are responses too (a 409 or 422 is replayed like a 200), except server errors: a
    request that failed unexpectedly stores no answer, so that the retry runs it again.
    """

    @wraps(handler)
    def wrapper(view: APIView, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        if not key.strip() or len(key) > 255:
            raise ApiError(status.HTTP_400_BAD_REQUEST, "idempotency_key_length", limit=255)
        fingerprint = _fingerprint(request)
        # The request's work and its stored answer are one transaction, the answer written
        # at its end in one statement (docs/move-path-speed.md). A key that has a record
        # already (a retry, a concurrent duplicate, which on PostgreSQL waits for the first
        # to commit) fails that INSERT: everything this run did is rolled back and the stored
        # answer is sent instead. Whatever else fails rolls the work back too.
        for _ in range(ATTEMPTS):
            try:
                with transaction.atomic():
                    return _first_response(
                        handler, key, fingerprint, view, request, *args, **kwargs
                    )
            except IdempotencyKeyTaken:
                pass
            record = idempotency_recorded(user=request.user, key=key, fingerprint=fingerprint)
            if record is not None:
                return _replayed(record)
        raise idempotency_in_progress()

    # api.schema.complete_responses documents the header on every operation marked so.
    wrapper.honours_idempotency_key = True  # type: ignore[attr-defined]
    return wrapper


def _first_response(
    handler: Callable[..., Response],
    key: str,
    fingerprint: bytes,
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
        return response
    headers = {name: response[name] for name in _KEPT_HEADERS if response.has_header(name)}
    idempotency_store(
        user=request.user,
        key=key,
        fingerprint=fingerprint,
        status=response.status_code,
        body=_rendered(response),
        headers=headers,
    )
    return response


def _rendered(response: Response) -> str:
    """The body as JSON text, keys in the order the view wrote them.

    Stored as one JSON string, not as an object: PostgreSQL's jsonb reorders an object's keys
    (shortest first), so a replay rebuilt from it was not the first response byte for byte.
    The bytes are kept on the response, so that the API's renderer sends them instead of
    rendering the same data a second time (api.renderers.JSONRenderer).
    """
    body = JSONRenderer().render(response.data)
    prerendered(response, body)
    return body.decode()


def _replayed(record: IdempotencyRecord) -> Response:
    body, headers = record_answer(record)
    if isinstance(body, str):
        # json.loads keeps the keys' order, so the renderer writes the same bytes again.
        body = json.loads(body) if body else None
    response = Response(body, status=record.response_status)
    for name, value in headers.items():
        response[name] = value
    response[REPLAYED] = "true"
    return response
