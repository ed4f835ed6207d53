"""The Idempotency-Key header for POST views (design.md; as Zulip and Stripe do it)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import ApiError
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
    request that failed unexpectedly releases its key so that the retry runs it again.
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
        claim = idempotency_claim(user=request.user, key=key, fingerprint=_fingerprint(request))
        record = claim.record
        if claim.replay:
            response = Response(record.response_body, status=record.response_status)
            for name, value in record.response_headers.items():
                response[name] = value
            response[REPLAYED] = "true"
            return response
        try:
            try:
                response = handler(view, request, *args, **kwargs)
            except Exception as exc:
                # The view's exception handler renders expected errors (raises the rest), so
                # the stored response is exactly what the client would have seen.
                response = view.handle_exception(exc)
        except BaseException:
            idempotency_release(record=record)
            raise
        if response.status_code >= 500:
            idempotency_release(record=record)
            return response
        headers = {name: response[name] for name in _KEPT_HEADERS if response.has_header(name)}
        idempotency_complete(
            record=record, status=response.status_code, body=response.data, headers=headers
        )
        return response

    return wrapper
