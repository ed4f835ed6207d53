"""Table talk: reading and writing the table's chat, muting a player, reporting a line
(docs/table-talk.md)."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.idempotency import idempotent
from api.paging import (
    Keyset,
    cursor_of,
    cursor_parameter,
    deprecated_parameter,
    limit_parameter,
    paging_deprecated,
)
from api.schema import BODY, GAME_COMMON, error
from api.serializers.chat import (
    ChatInSerializer,
    ChatLineSerializer,
    ChatMuteInSerializer,
    ChatOutSerializer,
    ChatReportInSerializer,
    ChatReportOutSerializer,
)
from clients.scopes import CHAT_SCOPES
from games.selectors import game_with_seats
from games.services.chat import chat_lines, chat_mute, chat_muted_seats, chat_post, chat_report
from games.services.errors import ErrorKind, refused

NOT_SEATED = {403: error("Only the players at the table read and write its chat (not_seated).")}


# The chat grows at its end: its cursor is the id of the last line given.
CHAT_LINES = Keyset("chat", ("id",), (int,))
CHAT_PAGE_DEFAULT = 50
CHAT_PAGE_MAX = 200


def _chat(game_id: UUID, request: Request, limit: int = CHAT_PAGE_DEFAULT) -> Response:
    cursor = cursor_of(request)
    after = CHAT_LINES.decode(cursor)[0] if cursor else _after(request)
    game = game_with_seats(game_id=game_id)
    lines = chat_lines(game_id=game_id, user=request.user, game=game, limit=limit, after_id=after)
    results = [line.as_json() for line in lines]
    body = {
        "results": results,
        "next_cursor": CHAT_LINES.encode([lines[-1].id if lines else after or 0]),
        "muted_seats": sorted(chat_muted_seats(game=game, user=request.user)),
    }
    if cursor:
        return Response(body)
    # Without `cursor`, the old name of the list too (deprecated; api/paging.py).
    return paging_deprecated(Response({**body, "lines": results}))


def _after(request: Request) -> int | None:
    """``?after=<line id>``: only newer lines. Not a number is a clear 400, never a 500."""
    raw = request.query_params.get("after")
    if raw is None:
        return None
    if not raw.isdigit() or len(raw) > 18:
        raise refused(
            ErrorKind.INVALID, "chat_after_not_number", {"fields": {"after": ["A whole number."]}}
        )
    return int(raw)


def _limit(request: Request) -> int:
    try:
        return max(1, min(CHAT_PAGE_MAX, int(request.query_params.get("limit", CHAT_PAGE_DEFAULT))))
    except ValueError:
        return CHAT_PAGE_DEFAULT


class ChatView(APIView):
    oauth_scopes = CHAT_SCOPES

    @extend_schema(
        operation_id="games_chat_list",
        summary="The table's chat (players only)",
        tags=["chat"],
        description="Without `cursor`, the latest `limit` lines; with it, the lines after "
        "the cursor's, oldest first, at most `limit` of them: ask again with `next_cursor` to "
        "catch up.",
        parameters=[
            cursor_parameter(growing=True),
            limit_parameter(CHAT_PAGE_DEFAULT, CHAT_PAGE_MAX),
            deprecated_parameter(
                "after",
                {"type": "integer", "minimum": 0},
                "only the lines after the line with this id; use cursor.",
            ),
        ],
        responses={
            200: ChatOutSerializer,
            400: error("invalid_request: after is not a line id; invalid_cursor."),
            **NOT_SEATED,
            **GAME_COMMON,
        },
    )
    def get(self, request: Request, game_id: UUID) -> Response:
        return _chat(game_id, request, _limit(request))

    @extend_schema(
        operation_id="games_chat_create",
        summary="Say something to the whole table",
        description="Public to everyone at the table. At most 500 characters and 10 lines a "
        "minute per player and table.",
        tags=["chat"],
        request=ChatInSerializer,
        responses={
            201: ChatLineSerializer,
            400: error("chat_empty, chat_too_long; invalid_request."),
            409: error("chat_rate_limited (details.limit, details.window_seconds)."),
            **NOT_SEATED,
            **BODY,
            **GAME_COMMON,
        },
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        data = ChatInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        line = chat_post(
            game_id=game_id, user=request.user, text=data.validated_data["text"], source="api"
        )
        return Response(line.as_json(), status=status.HTTP_201_CREATED)


class ChatMuteView(APIView):
    oauth_scopes = CHAT_SCOPES

    @extend_schema(
        operation_id="games_chat_mute",
        summary="Mute (or unmute) a player: their lines are hidden for you, at every table",
        tags=["chat"],
        request=ChatMuteInSerializer,
        responses={
            200: ChatOutSerializer,
            400: error("chat_no_such_player, chat_mute_self; invalid_request."),
            **NOT_SEATED,
            **BODY,
            **GAME_COMMON,
        },
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        data = ChatMuteInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        chat_mute(
            game_id=game_id,
            user=request.user,
            seat=data.validated_data["seat"],
            muted=data.validated_data["muted"],
        )
        return _chat(game_id, request)


class ChatReportView(APIView):
    oauth_scopes = CHAT_SCOPES

    @extend_schema(
        operation_id="games_chat_report",
        summary="Report a line to the operators",
        tags=["chat"],
        request=ChatReportInSerializer,
        responses={
            200: ChatReportOutSerializer,
            400: error("chat_report_self; invalid_request."),
            **NOT_SEATED,
            **BODY,
            **GAME_COMMON,
        },
    )
    @idempotent
    def post(self, request: Request, game_id: UUID, message_id: int) -> Response:
        data = ChatReportInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        chat_report(
            game_id=game_id,
            user=request.user,
            message_id=message_id,
            reason=data.validated_data["reason"],
        )
        return Response({"reported": True})
