"""The record of a game: its move log and its hands (with their commitments and seeds)."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

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


class MovesView(APIView):
    @extend_schema(
        operation_id="games_moves",
        summary="The move log as your seat may see it",
        description="Moves with seq > after, oldest first, at most `limit`. Other players' "
        "draws show a count, not the cards. Poll with after = the last seq you have.",
        tags=["log"],
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0},
                description="Last seq you have (0).",
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": MOVES_PAGE_MAX},
                description=f"At most this many (1-{MOVES_PAGE_MAX}).",
            ),
        ],
        responses={
            200: MovesOutSerializer,
            400: error("Bad after or limit (invalid_request)."),
            **GAME_COMMON,
        },
    )
    @one_snapshot
    def get(self, request: Request, game_id: UUID) -> Response:
        query = MovesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        game, seat = selectors.game_visible_to(game_id=game_id, user=request.user)
        moves, has_more = selectors.moves_page(
            game=game, after=query.validated_data["after"], limit=query.validated_data["limit"]
        )
        viewer = viewer_seat(seat)
        return Response(
            {
                "version": game.version,
                "last_seq": game.last_seq,
                "has_more": has_more,
                "moves": [move_entry(move, viewer) for move in moves],
            }
        )


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
