"""The caller's event feed: `GET /events/?after=ID&wait=S` (long poll) and
`GET /events/stream/` (server-sent events).

Under the ASGI server of the Procfile (docs/event-streams.md) a waiting request holds no
thread and no database connection while it waits: the long poll is an async view and the
stream an async iterator, both in the event loop, and each look at the feed (one indexed query,
every CANASTA_EVENTS_POLL_SECONDS) borrows a thread and a pooled connection for its query only.
Each user may have CANASTA_EVENTS_OPEN_PER_USER of them open at once, across every process (429
beyond), and each ends within CANASTA_EVENTS_AUTH_CHECK_SECONDS once its credentials do
(api/clients/streams.py). Under a WSGI server (runserver, the test client) the same views wait
in their thread, as before.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.conf import settings
from django.http import HttpRequest, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.clients.presenters import event_entry
from api.clients.serializers import EventsOutSerializer, EventsQuerySerializer
from api.clients.streams import FeedWatch, feed_slot_take, serves_asynchronously
from api.errors import error_body
from api.paging import (
    Keyset,
    cursor_of,
    cursor_parameter,
    limit_parameter,
    paging_deprecated,
)
from api.schema import COMMON, error
from api.users import request_user
from clients.models import Event
from clients.selectors import EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX, last_event_id

# The same pattern as EventsQuerySerializer.after; empty is "not given" (0), as for any
# optional field in DRF's query parsing.
AFTER = OpenApiParameter(
    "after",
    {"type": "string", "pattern": r"^(\d{1,18}|latest)?$"},
    description="An event id, or `latest`.",
)

# The feed grows at its end: its cursor is the id of the last event given, as `after` is.
EVENT_FEED = Keyset("events", ("id",), (int,))

# A comment line every so often keeps proxies from closing an idle stream.
KEEPALIVE_SECONDS = 15


def _after(value: str, user: Any) -> int:
    return last_event_id(user=user) if value == "latest" else int(value)


def _wait(query: EventsQuerySerializer) -> float:
    wait = query.validated_data.get("wait")
    if wait is None:
        wait = settings.CANASTA_EVENTS_WAIT_SECONDS
    return min(float(wait), settings.CANASTA_EVENTS_MAX_WAIT_SECONDS)


# The pause between two looks at the feed (tests replace it to act between looks).
_nap = asyncio.sleep


class AsyncAPIView(APIView):
    """DRF's dispatch with an async handler: DRF's own steps (authentication, permissions,
    throttles, the error shape, rendering) run as usual, in a thread through sync_to_async, and
    the handler itself is awaited in the event loop, so it can wait without holding a thread.
    Django serves such a view natively under ASGI and through async_to_sync under WSGI."""

    async def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.args, self.kwargs = args, kwargs
        drf_request = self.initialize_request(request, *args, **kwargs)
        self.request = drf_request
        self.headers = self.default_response_headers
        try:
            await sync_to_async(self.initial)(drf_request, *args, **kwargs)
            method = (drf_request.method or "get").lower()
            handler = (
                getattr(self, method, self.http_method_not_allowed)
                if method in self.http_method_names
                else self.http_method_not_allowed
            )
            if iscoroutinefunction(handler):
                response = await handler(drf_request, *args, **kwargs)
            else:
                response = await sync_to_async(handler)(drf_request, *args, **kwargs)
        except Exception as exc:
            response = await sync_to_async(self.handle_exception)(exc)
        self.response = await sync_to_async(self.finalize_response)(
            drf_request, response, *args, **kwargs
        )
        return self.response


async def _events_wait(watch: FeedWatch, wait: float) -> list[Event]:
    """Looks at the feed every CANASTA_EVENTS_POLL_SECONDS until an event comes or `wait`
    seconds have passed; between looks only a timer is pending."""
    deadline = time.monotonic() + wait
    while (remaining := deadline - time.monotonic()) > 0:
        await _nap(min(settings.CANASTA_EVENTS_POLL_SECONDS, remaining))
        events = await watch.look_async()
        if events:
            return events
    return []


class EventsView(AsyncAPIView):
    @extend_schema(
        operation_id="events_list",
        summary="My events after an id; waits for the next one when there is none (long poll)",
        description="Events of every game you play, oldest first: move (each accepted batch, "
        "as your seat sees it), your_turn, hand_over, match_over, timeout. With nothing newer "
        "than `after`, the answer waits up to `wait` seconds (default "
        "CANASTA_EVENTS_WAIT_SECONDS, at most CANASTA_EVENTS_MAX_WAIT_SECONDS) and returns "
        "as soon as an event arrives, or with an empty list. Loop: send `next_cursor` back "
        "as `cursor` (or, as the stream does, `last_id` as `after`). A personal token needs "
        "the `read` scope.",
        tags=["events"],
        parameters=[
            cursor_parameter(growing=True),
            AFTER,
            OpenApiParameter(
                "wait", {"type": "number", "minimum": 0}, description="Seconds (0: at once)."
            ),
            limit_parameter(EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX),
        ],
        responses={
            200: EventsOutSerializer,
            400: error("Bad after, wait or limit (invalid_request); invalid_cursor."),
            403: error("A personal token without the read scope (permission_denied)."),
            **COMMON,
            429: error(
                "Too many requests (throttled, details.retry_after), or, for a request that "
                "would wait, all of your CANASTA_EVENTS_OPEN_PER_USER streams and waiting "
                "requests already open (too_many_open_feeds, details.limit)."
            ),
        },
    )
    async def get(self, request: Request) -> Response:
        query = EventsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        cursor = cursor_of(request)
        if cursor:
            after = EVENT_FEED.decode(cursor)[0]
        else:
            after = await sync_to_async(_after)(query.validated_data["after"], request.user)
        watch = FeedWatch(
            request,
            self,
            after,
            limit=query.validated_data["limit"],
            asynchronous=serves_asynchronously(request),
        )
        events = await watch.look_async()
        wait = _wait(query)
        if not events and wait > 0:
            # Only a request that does wait counts among the user's open feeds.
            watch.slot = await watch.call(feed_slot_take, request.user.pk)
            try:
                events = await _events_wait(watch, wait)
            finally:
                await watch.call(watch.close)
        return _feed_page(events, after, old_form=not cursor)


def _feed_page(events: list[Event], after: int, *, old_form: bool) -> Response:
    last_id = events[-1].pk if events else after
    results = [event_entry(e) for e in events]
    body = {"results": results, "next_cursor": EVENT_FEED.encode([last_id]), "last_id": last_id}
    # Without `cursor`, the old name of the list too (deprecated; api/paging.py).
    response = Response({**body, "events": results} if old_form else body)
    response["Cache-Control"] = "private, no-store"
    return paging_deprecated(response) if old_form else response


class EventStreamRenderer(BaseRenderer):
    """Lets `Accept: text/event-stream` through content negotiation; errors still render as
    JSON text."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> bytes:
        return json.dumps(data).encode() if data is not None else b""


def _sse(event: Any) -> str:
    data = json.dumps(event_entry(event), separators=(",", ":"))
    return f"id: {event.pk}\nevent: {event.kind}\ndata: {data}\n\n"


def _ended(exc: exceptions.APIException) -> str:
    """The last message of a stream whose credentials ended (revoked token, deactivated user,
    session over): the error a new request would get; EventSource's reconnection then gets it
    as a 401 or 403 and stops."""
    body = error_body(str(exc.default_code), str(exc.detail))
    return f"event: error\ndata: {json.dumps(body, separators=(',', ':'))}\n\n"


def _ndjson(event: Any) -> str:
    return json.dumps(event_entry(event), separators=(",", ":")) + "\n"


def _ndjson_ended(exc: exceptions.APIException) -> str:
    body = error_body(str(exc.default_code), str(exc.detail))
    return json.dumps(body, separators=(",", ":")) + "\n"


@dataclass(frozen=True)
class Framing:
    """How the stream writes what it sends: server-sent events, or NDJSON (one event's JSON
    per line, an empty line as keep-alive, as lichess's streams do; the last line is the error
    shape when the credentials end)."""

    media_type: str
    opening: str
    event: Callable[[Any], str]
    keepalive: str
    ended: Callable[[exceptions.APIException], str]


SSE = Framing("text/event-stream", "retry: 3000\n\n", _sse, ": keep-alive\n\n", _ended)
NDJSON = Framing("application/x-ndjson", "", _ndjson, "\n", _ndjson_ended)


def _next_chunk(events: list[Any], quiet: float, framing: Framing) -> tuple[str, float]:
    """What the stream sends after a look (the events, a keep-alive after a quiet spell, or
    nothing) and when it last sent something."""
    now = time.monotonic()
    if events:
        return "".join(framing.event(event) for event in events), now
    if now - quiet >= KEEPALIVE_SECONDS:
        return framing.keepalive, now
    return "", quiet


def _stream(watch: FeedWatch, seconds: float, framing: Framing = SSE) -> Iterator[str]:
    """The stream under a WSGI server: it waits in its thread."""
    try:
        if framing.opening:
            yield framing.opening
        ends = quiet = time.monotonic()
        ends += seconds
        while (remaining := ends - time.monotonic()) > 0:
            try:
                events = watch.look()
            except exceptions.APIException as exc:
                yield framing.ended(exc)
                return
            chunk, quiet = _next_chunk(events, quiet, framing)
            if chunk:
                yield chunk
            time.sleep(min(settings.CANASTA_EVENTS_POLL_SECONDS, remaining))
    finally:
        watch.close()


async def _stream_async(
    watch: FeedWatch, seconds: float, framing: Framing = SSE
) -> AsyncIterator[str]:
    """The stream under ASGI: between looks it is a pending timer in the event loop."""
    try:
        if framing.opening:
            yield framing.opening
        ends = quiet = time.monotonic()
        ends += seconds
        while (remaining := ends - time.monotonic()) > 0:
            try:
                events = await watch.look_async()
            except exceptions.APIException as exc:
                yield framing.ended(exc)
                return
            chunk, quiet = _next_chunk(events, quiet, framing)
            if chunk:
                yield chunk
            await _nap(min(settings.CANASTA_EVENTS_POLL_SECONDS, remaining))
    finally:
        # Also when the client went away (the task is cancelled): one quick Redis command.
        watch.close()


class NdjsonRenderer(EventStreamRenderer):
    """Lets `Accept: application/x-ndjson` (or `?format=ndjson`) choose the NDJSON framing."""

    media_type = NDJSON.media_type
    format = "ndjson"


# The stream's 200 in the schema: the framing and each message's data (the Event schema),
# so a generated client knows what it reads (issue 29).
SSE_DESCRIPTION = (
    "Server-sent events (text/event-stream, the WHATWG HTML framing): first `retry: 3000`, "
    "then per event a message `id: <event id>`, `event: <kind>` (move, your_turn, hand_over, "
    "match_over, timeout), `data: <one line of JSON: the Event schema>`, and a blank line; a "
    "comment line `: keep-alive` after 15 quiet seconds. When the credentials end, a last "
    "message `event: error` whose data is the Error schema. Reconnect with Last-Event-ID."
)
NDJSON_DESCRIPTION = (
    "The same feed as NDJSON (`Accept: application/x-ndjson`, `?format=ndjson` or "
    "`?format=json`): one Event per line, an empty line as keep-alive after 15 quiet seconds; "
    "when the credentials end, a last line in the Error shape. Resume with `?after=<last id>`."
)


# Each message's data: `x-item-schema` (the convention of OpenAPI 3.2's itemSchema for
# sequential media types, as an extension keyword of 3.1's JSON Schema).
STREAM_ITEMS = {"type": "string", "x-item-schema": {"$ref": "#/components/schemas/Event"}}


class EventStreamView(APIView):
    # The first is the default (no Accept, or */*): the stream stays server-sent events.
    renderer_classes = [EventStreamRenderer, NdjsonRenderer, JSONRenderer]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        # A refusal (401, 429, ...) is JSON in the error shape and says so: labelled
        # text/event-stream, as negotiated, an EventSource or a generated client misread it.
        if isinstance(response, Response) and response.status_code >= 400:
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        operation_id="events_stream",
        summary="My events as a server-sent-events stream",
        description="`text/event-stream`: one message per event (`id:` its id, `event:` its "
        "kind, `data:` the same JSON as the feed's entries), a comment every 15 s. The stream "
        "ends after CANASTA_EVENTS_STREAM_SECONDS; reconnect with `Last-Event-ID` (EventSource "
        "does this by itself) or `?after=`. At most CANASTA_EVENTS_OPEN_PER_USER streams and "
        "waiting requests per user are open at once. When the token is revoked, the session "
        "ends or the account is deactivated, the stream sends an `error` message (the error "
        "shape as `data`) within CANASTA_EVENTS_AUTH_CHECK_SECONDS and ends.",
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
                {**STREAM_ITEMS, "contentMediaType": "text/event-stream"},
                description=f"{SSE_DESCRIPTION} {NDJSON_DESCRIPTION}",
            ),
            (200, "application/x-ndjson"): OpenApiResponse(
                {**STREAM_ITEMS, "contentMediaType": "application/x-ndjson"},
                description=f"{SSE_DESCRIPTION} {NDJSON_DESCRIPTION}",
            ),
            400: error("Bad after (invalid_request)."),
            404: error("A `format` other than sse, ndjson or json (not_found)."),
            **COMMON,
            429: error(
                "Too many requests (throttled, details.retry_after), or all of your "
                "CANASTA_EVENTS_OPEN_PER_USER streams and waiting requests already open "
                "(too_many_open_feeds, details.limit)."
            ),
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
        asynchronous = serves_asynchronously(request)
        watch = FeedWatch(
            request,
            self,
            after,
            slot=feed_slot_take(request_user(request).pk),
            asynchronous=asynchronous,
        )
        seconds = settings.CANASTA_EVENTS_STREAM_SECONDS
        framing = SSE if request.accepted_renderer.format == "sse" else NDJSON
        response = StreamingHttpResponse(
            _stream_async(watch, seconds, framing)
            if asynchronous
            else _stream(watch, seconds, framing),
            content_type=f"{framing.media_type}; charset=utf-8",
        )
        response["Cache-Control"] = "no-cache"
        # nginx: pass each message on at once instead of buffering the stream.
        response["X-Accel-Buffering"] = "no"
        return response
