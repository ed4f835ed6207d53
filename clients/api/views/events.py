"""The caller's event feed: `GET /events/?after=ID&wait=S` (long poll) and
`GET /events/stream/` (server-sent events).

A waiting request holds its worker thread (and a database connection) for up to `wait`
seconds: run the web process threaded (runserver is; gunicorn with `--worker-class gthread
--threads N`), with N above the number of clients that wait at once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import COMMON, error
from clients.api.presenters import event_entry
from clients.api.serializers import EventsOutSerializer, EventsQuerySerializer
from clients.selectors import EVENTS_PAGE_MAX, events_wait, last_event_id

# The same pattern as EventsQuerySerializer.after; empty is "not given" (0), as for any
# optional field in DRF's query parsing.
AFTER = OpenApiParameter(
    "after",
    {"type": "string", "pattern": r"^(\d{1,18}|latest)?$"},
    description="An event id, or `latest`.",
)

# A comment line every so often keeps proxies from closing an idle stream.
KEEPALIVE_SECONDS = 15


def _after(value: str, user: Any) -> int:
    return last_event_id(user=user) if value == "latest" else int(value)


def _wait(query: EventsQuerySerializer) -> float:
    wait = query.validated_data.get("wait")
    if wait is None:
        wait = settings.CANASTA_EVENTS_WAIT_SECONDS
    return min(float(wait), settings.CANASTA_EVENTS_MAX_WAIT_SECONDS)


class EventsView(APIView):
    @extend_schema(
        operation_id="events_list",
        summary="My events after an id; waits for the next one when there is none (long poll)",
        description="Events of every game you play, oldest first: move (each accepted batch, "
        "as your seat sees it), your_turn, hand_over, match_over, timeout. With nothing newer "
        "than `after`, the answer waits up to `wait` seconds (default "
        "CANASTA_EVENTS_WAIT_SECONDS, at most CANASTA_EVENTS_MAX_WAIT_SECONDS) and returns "
        "as soon as an event arrives, or with an empty list. Loop: send `last_id` back as "
        "`after`. A personal token needs the `read` scope.",
        tags=["events"],
        parameters=[
            AFTER,
            OpenApiParameter(
                "wait", {"type": "number", "minimum": 0}, description="Seconds (0: at once)."
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": EVENTS_PAGE_MAX},
                description=f"At most this many (1-{EVENTS_PAGE_MAX}).",
            ),
        ],
        responses={
            200: EventsOutSerializer,
            400: error("Bad after, wait or limit (invalid_request)."),
            403: error("A personal token without the read scope (permission_denied)."),
            **COMMON,
        },
    )
    def get(self, request: Request) -> Response:
        query = EventsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after = _after(query.validated_data["after"], request.user)
        events = events_wait(
            user=request.user,
            after=after,
            wait=_wait(query),
            limit=query.validated_data["limit"],
        )
        last_id = events[-1].pk if events else after
        response = Response({"events": [event_entry(e) for e in events], "last_id": last_id})
        response["Cache-Control"] = "private, no-store"
        return response


class EventStreamRenderer(BaseRenderer):
    """Lets `Accept: text/event-stream` through content negotiation; errors still render as
    JSON text."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None):
        return json.dumps(data).encode() if data is not None else b""


def _sse(event: Any) -> str:
    data = json.dumps(event_entry(event), separators=(",", ":"))
    return f"id: {event.pk}\nevent: {event.kind}\ndata: {data}\n\n"


def _stream(user: Any, after: int, seconds: float) -> Iterator[str]:
    yield "retry: 3000\n\n"
    ends = time.monotonic() + seconds
    while (remaining := ends - time.monotonic()) > 0:
        events = events_wait(user=user, after=after, wait=min(KEEPALIVE_SECONDS, remaining))
        if not events:
            yield ": keep-alive\n\n"
            continue
        for event in events:
            yield _sse(event)
        after = events[-1].pk


class EventStreamView(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(
        operation_id="events_stream",
        summary="My events as a server-sent-events stream",
        description="`text/event-stream`: one message per event (`id:` its id, `event:` its "
        "kind, `data:` the same JSON as the feed's entries), a comment every 15 s. The stream "
        "ends after CANASTA_EVENTS_STREAM_SECONDS; reconnect with `Last-Event-ID` (EventSource "
        "does this by itself) or `?after=`.",
        tags=["events"],
        parameters=[
            AFTER,
            OpenApiParameter(
                "Last-Event-ID",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="Set by EventSource on reconnection; wins over `after`.",
            ),
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                OpenApiTypes.STR, description="The stream."
            ),
            400: error("Bad after (invalid_request)."),
            404: error("A `format` other than json or sse (not_found)."),
            **COMMON,
        },
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        params = request.query_params.copy()
        last_seen = request.headers.get("Last-Event-ID")
        if last_seen:
            params["after"] = last_seen.strip()
        query = EventsQuerySerializer(data=params)
        query.is_valid(raise_exception=True)
        after = _after(query.validated_data["after"], request.user)
        response = StreamingHttpResponse(
            _stream(request.user, after, settings.CANASTA_EVENTS_STREAM_SECONDS),
            content_type="text/event-stream; charset=utf-8",
        )
        response["Cache-Control"] = "no-cache"
        # nginx: pass each message on at once instead of buffering the stream.
        response["X-Accel-Buffering"] = "no"
        return response
