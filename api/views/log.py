"""The record of a game: its move log and its hands (with their commitments and seeds)."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.paging import (
    Keyset,
    cursor_of,
    cursor_parameter,
    deprecated_parameter,
    limit_parameter,
    paging_deprecated,
)
from api.presenters import hand_entry, move_entry, viewer_seat
from api.schema import GAME_COMMON, error
from api.serializers.play import HandsOutSerializer, MovesOutSerializer
from api.views.common import one_snapshot
from games import selectors
from games.selectors import MOVES_PAGE_DEFAULT, MOVES_PAGE_MAX


class MovesQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(min_value=0, required=False, default=0)
    limit = serializers.IntegerField(
        min_value=1, max_value=MOVES_PAGE_MAX, required=False, default=MOVES_PAGE_DEFAULT
    )


# The move log grows at its end: its cursor is the seq of the last move given.
MOVE_LOG = Keyset("moves", ("seq",), (int,))


class MovesView(APIView):
    @extend_schema(
        operation_id="games_moves",
        summary="The move log as your seat may see it",
        description="Moves after the cursor, oldest first, at most `limit`. Other players' "
        "draws show a count, not the cards. Poll with the `next_cursor` you were given: an "
        "empty `results` means you have every move (`last_seq` is the last one's seq).",
        tags=["log"],
        parameters=[
            cursor_parameter(growing=True),
            limit_parameter(MOVES_PAGE_DEFAULT, MOVES_PAGE_MAX),
            deprecated_parameter(
                "after", {"type": "integer", "minimum": 0}, "the last seq you have; use cursor."
            ),
        ],
        responses={
            200: MovesOutSerializer,
            400: error("Bad after or limit (invalid_request); invalid_cursor."),
            **GAME_COMMON,
        },
    )
    @one_snapshot
    def get(self, request: Request, game_id: UUID) -> Response:
        query = MovesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        cursor = cursor_of(request)
        after = MOVE_LOG.decode(cursor)[0] if cursor else query.validated_data["after"]
        game, seat = selectors.game_visible_to(game_id=game_id, user=request.user)
        moves, has_more = selectors.moves_page(
            game=game, after=after, limit=query.validated_data["limit"]
        )
        viewer = viewer_seat(seat)
        results = [move_entry(move, viewer) for move in moves]
        body = {
            "results": results,
            "next_cursor": MOVE_LOG.encode([moves[-1].seq if moves else after]),
            "version": game.version,
            "last_seq": game.last_seq,
        }
        if cursor:
            return Response(body)
        return paging_deprecated(Response({**body, "has_more": has_more, "moves": results}))


class HandsView(APIView):
    @extend_schema(
        operation_id="games_hands",
        summary="Every hand: commitment, the seed once the hand is over, scores, how it ended",
        description="Check a hand: sha256(bytes.fromhex(seed)) == commitment, and dealing "
        "from the seed (docs/fair-shuffle.md) gives the cards you were dealt.",
        tags=["log"],
        responses={200: HandsOutSerializer, **GAME_COMMON},
    )
    @one_snapshot
    def get(self, request: Request, game_id: UUID) -> Response:
        game, _ = selectors.game_visible_to(game_id=game_id, user=request.user)
        return Response({"hands": [hand_entry(hand) for hand in selectors.hands_of(game=game)]})
