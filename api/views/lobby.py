"""The lobby: list and create games, join, leave, call a game off."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.utils.functional import cached_property
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.idempotency import idempotent
from api.paging import (
    Keyset,
    cursor_of,
    cursor_parameter,
    deprecated_parameter,
    keyset_page,
    limit_parameter,
    paging_deprecated,
)
from api.presenters import absences_for, game_summary
from api.schema import (
    BAD_IDEMPOTENCY_KEY,
    BODY,
    COMMON,
    GAME_COMMON,
    IDEMPOTENCY_KEY,
    NO_SUCH_PAGE,
    error,
)
from api.serializers.games import (
    GameCreateInSerializer,
    GameDetailSerializer,
    GamePageSerializer,
    GameSummarySerializer,
)
from api.views.common import game_response, one_snapshot, seat_for
from games import selectors
from games.models import Game, GameStatus
from games.readmodel import GameSummary
from games.services import lobby, profiles

# The games lists (mine, open, the archive): `limit` games a page, 20 by default.
GAMES_PAGE_DEFAULT = 20
GAMES_PAGE_MAX = 100
NEWEST_GAMES = Keyset("games", ("-created_at", "id"), (datetime, UUID))


# The old form reaches the first OLD_FORM_REACH games of a list: its `count` counts that far
# and no further, and a `page` beyond is 404 no_such_page. Past them `next_cursor` goes on.
OLD_FORM_REACH = 10_000


class ReachPaginator(Paginator):
    """Django's paginator with a bounded count: `SELECT COUNT(*)` of at most OLD_FORM_REACH + 1
    rows (a LIMIT in a subquery), so that the first page of the public archive, which grows
    with every match finished, costs the same at a million games as at a thousand, and no
    page number makes an OFFSET longer than the reach."""

    @cached_property
    def count(self) -> int:
        rows: QuerySet[Game] = self.object_list  # type: ignore[assignment]
        return min(rows[: OLD_FORM_REACH + 1].count(), OLD_FORM_REACH)

    @cached_property
    def beyond_reach(self) -> bool:
        """More rows than the old form counts: `next_cursor` goes on past its last page."""
        rows: QuerySet[Game] = self.object_list  # type: ignore[assignment]
        return rows[OLD_FORM_REACH : OLD_FORM_REACH + 1].exists()


class GamePagination(PageNumberPagination):
    """The old form of the games lists (`page`, `page_size`; deprecated, api/paging.py):
    still how a request without `cursor` is answered, with `count`, `next` and `previous`
    (counted to OLD_FORM_REACH)."""

    django_paginator_class = ReachPaginator
    page_size = GAMES_PAGE_DEFAULT
    page_size_query_param = "page_size"
    max_page_size = GAMES_PAGE_MAX

    def get_page_size(self, request: Request) -> int:
        return games_limit(request)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return []  # the parameters are GAMES_PAGING's


def games_limit(request: Request) -> int:
    """`limit` (or the old `page_size`): DRF ignores a page size that is not a positive
    number; say so instead (tests/fuzz)."""
    for name in ("limit", "page_size"):
        raw = request.query_params.get(name, "")
        if raw == "":
            continue
        if not raw.isdecimal() or not 1 <= int(raw) <= 10**6:
            raise serializers.ValidationError(
                {name: [f"A whole number from 1 to {GAMES_PAGE_MAX}."]}
            )
        return min(int(raw), GAMES_PAGE_MAX)
    return GAMES_PAGE_DEFAULT


GAMES_PAGING = [
    cursor_parameter(),
    limit_parameter(GAMES_PAGE_DEFAULT, GAMES_PAGE_MAX),
    deprecated_parameter(
        "page", {"type": "integer", "minimum": 1}, "a page number; send `cursor` instead."
    ),
    deprecated_parameter(
        "page_size",
        {"type": "integer", "minimum": 1, "maximum": GAMES_PAGE_MAX},
        "the same as `limit`.",
    ),
]


class GameListFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=GameStatus.choices, required=False)
    my_turn = serializers.BooleanField(required=False, allow_null=True, default=None)


class OpenGamesFilterSerializer(serializers.Serializer):
    rating_min = serializers.IntegerField(required=False, min_value=-100000, max_value=100000)
    rating_max = serializers.IntegerField(required=False, min_value=-100000, max_value=100000)


class _GameListBase(GenericAPIView):
    pagination_class = GamePagination
    # Only for the browsable API's introspection; the views query through games.selectors.
    queryset = Game.objects.none()

    def _page(
        self, request: Request, games: QuerySet[Game], keyset: Keyset = NEWEST_GAMES
    ) -> Response:
        games = selectors.with_summary_relations(games)
        cursor = cursor_of(request)
        if cursor is not None:
            page = keyset_page(games, keyset, cursor, games_limit(request))
            return Response(
                {"results": self._rows(request, page.rows), "next_cursor": page.next_cursor}
            )
        # Without a cursor, the first page (or the page `page` names, the old form): with the
        # old fields, so that a client that follows `next` still reads every page.
        # GamePagination always pages, so there is always a page (an empty one at worst).
        rows = self.paginate_queryset(games.order_by(*keyset.order)) or []
        old = self.get_paginated_response([]).data
        more = bool(rows) and (old["next"] is not None or self._past_the_old_reach())
        body = {
            "results": self._rows(request, rows),
            "next_cursor": keyset.encode_row(rows[-1]) if more else None,
            "count": old["count"],
            "next": old["next"],
            "previous": old["previous"],
        }
        return paging_deprecated(Response(body))

    def _past_the_old_reach(self) -> bool:
        page = self.paginator.page  # type: ignore[union-attr]
        paginator = page.paginator
        return isinstance(paginator, ReachPaginator) and (
            paginator.count == OLD_FORM_REACH and paginator.beyond_reach
        )

    @staticmethod
    def _rows(request: Request, games: list[Game]) -> list[GameSummary]:
        # One query for the absences of every player on the page.
        absences = absences_for(games)
        return [game_summary(game, seat_for(game, request.user), absences) for game in games]


class GamesView(_GameListBase):
    """GET: the caller's games. POST: a new table."""

    serializer_class = GameCreateInSerializer  # the browsable API's form

    @extend_schema(
        operation_id="games_list",
        summary="My games (playing or invited), newest first",
        tags=["lobby"],
        parameters=[
            *GAMES_PAGING,
            OpenApiParameter("status", OpenApiTypes.STR, enum=GameStatus.values),
            OpenApiParameter(
                "my_turn", OpenApiTypes.BOOL, description="true: only games waiting for me."
            ),
        ],
        responses={
            200: GamePageSerializer,
            400: error("Bad filter or limit (invalid_request); invalid_cursor."),
            **NO_SUCH_PAGE,
            **COMMON,
        },
    )
    @one_snapshot
    def get(self, request: Request) -> Response:
        filters = GameListFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        games = selectors.games_of_user(
            user=request.user,
            status=filters.validated_data.get("status"),
            my_turn=filters.validated_data.get("my_turn"),
        )
        return self._page(request, games)

    @extend_schema(
        operation_id="games_create",
        summary="Create a table; you take a seat, invited players get theirs kept",
        tags=["lobby"],
        request=GameCreateInSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            201: GameDetailSerializer,
            400: error(
                "Invalid table: unknown_variant, invalid_players, invalid_options, "
                "invalid_time_control, invalid_invite, invalid_email, unknown_user, "
                "invalid_bots, invalid_request."
            ),
            409: error("too_many_invitations; request_in_progress (Idempotency-Key)."),
            422: error("idempotency_key_reused."),
            **BODY,
            **COMMON,
        },
    )
    @idempotent
    def post(self, request: Request) -> Response:
        serializer = GameCreateInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        created = lobby.game_create(
            creator=request.user,
            variant=data["variant"],
            players=data["players"],
            options=data["options"],
            is_public=data["public"],
            turn_seconds=data["turn_seconds"],
            timeout_policy=data["timeout_policy"],
            invite=data["invite"],
            bots=data["bots"],
            weekend_pause=data["weekend_pause"],
            invite_emails=data["invite_emails"],
            rated=data["rated"],
        )
        game = selectors.game_with_seats(game_id=created.pk)
        location = request.build_absolute_uri(f"/api/v1/games/{game.pk}/")
        return game_response(
            game,
            seat_for(game, request.user),
            code=status.HTTP_201_CREATED,
            headers={"Location": location},
        )


class OpenGamesView(_GameListBase):
    serializer_class = GameSummarySerializer

    @extend_schema(
        operation_id="games_open",
        summary="Games I can join: my invitations and public tables with a free seat",
        tags=["lobby"],
        parameters=[
            *GAMES_PAGING,
            OpenApiParameter(
                "rating_min",
                OpenApiTypes.INT,
                description="Only tables whose creator's rating in the table's variant is at "
                "least this (a newcomer counts as 1000; docs/ratings.md).",
            ),
            OpenApiParameter("rating_max", OpenApiTypes.INT, description="At most this."),
        ],
        responses={
            200: GamePageSerializer,
            400: error(
                "Bad limit, page_size, rating_min or rating_max (invalid_request); invalid_cursor."
            ),
            **NO_SUCH_PAGE,
            **COMMON,
        },
    )
    @one_snapshot
    def get(self, request: Request) -> Response:
        filters = OpenGamesFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        games = selectors.games_open_to(user=request.user)
        low = filters.validated_data.get("rating_min")
        high = filters.validated_data.get("rating_max")
        if low is not None or high is not None:
            games = profiles.tables_in_rating_range(games, low=low, high=high)
        return self._page(request, games)


def _seat_change_schema(operation_id: str, summary: str, conflicts: str) -> dict:
    return {
        "operation_id": operation_id,
        "summary": summary,
        "tags": ["lobby"],
        "request": None,
        "parameters": [IDEMPOTENCY_KEY],
        "responses": {
            200: GameDetailSerializer,
            **BAD_IDEMPOTENCY_KEY,
            403: error("You have no seat in this game (not_seated, permission_denied)."),
            409: error(conflicts + "; request_in_progress (Idempotency-Key)."),
            422: error("idempotency_key_reused."),
            **GAME_COMMON,
        },
    }


class JoinView(APIView):
    @extend_schema(
        **_seat_change_schema(
            "games_join",
            "Take your invited seat or an open one; the game starts when the last seat fills",
            "already_joined, game_not_open, game_full",
        )
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        game = lobby.game_join(game_id=game_id, user=request.user)
        return game_response(game, seat_for(game, request.user))


class LeaveView(APIView):
    @extend_schema(
        **_seat_change_schema(
            "games_leave",
            "Give up your seat, or decline an invitation, before the game starts",
            "game_not_open (the game has started: resign instead)",
        )
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        game = lobby.game_leave(game_id=game_id, user=request.user)
        return game_response(game, seat_for(game, request.user))


class AbortView(APIView):
    @extend_schema(
        **_seat_change_schema(
            "games_abort",
            "Call the game off: an open table (its creator), or a started game before its "
            "first move (any player); nobody wins",
            "cannot_abort (a move has been played: resign instead)",
        )
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        game = lobby.game_abort(game_id=game_id, user=request.user)
        return game_response(game, seat_for(game, request.user))
