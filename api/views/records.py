"""Records, profiles and leaderboards: the export of a finished match, a player's ratings and
results, the best players of a variant (docs/record-format.md, docs/ratings.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.paging import Keyset
from api.schema import COMMON, GAME_COMMON, NO_SUCH_PAGE, error
from api.serializers.games import GamePageSerializer, GameSummarySerializer
from api.serializers.records import LeaderboardSerializer, ProfileSerializer, RecordSerializer
from api.views.common import one_snapshot
from api.views.lobby import GAMES_PAGING, _GameListBase
from games.readmodel import iso
from games.services import profiles, records
from games.services.ratings import (
    LEADERBOARD_MIN_MATCHES,
    LEADERBOARD_MIN_OPPONENTS,
    rating_label,
    rating_margin,
)


class RecordView(APIView):
    @extend_schema(
        operation_id="games_record",
        summary="The whole record of a finished match, to keep or to verify",
        description="One JSON document (docs/record-format.md): every hand's seed and "
        "commitment, its Table JSON at the deal and at the end, the move log and the final "
        "result. `python -m games.engine.verify record.json` re-checks it with the rules engine "
        "alone. For the match's players, and anyone for a public table; once the match is over.",
        tags=["log"],
        responses={
            200: RecordSerializer,
            409: error("The match is not over (game_not_finished)."),
            **GAME_COMMON,
        },
    )
    @one_snapshot
    def get(self, request: Request, game_id: UUID) -> Response:
        game = records.finished_match(game_id=game_id, user=request.user)
        response = Response(records.record_export(game=game))
        response["Content-Disposition"] = f'inline; filename="canasta-{game.pk}.json"'
        return response


# Finished matches, the last finished first (a finished match always has finished_at).
LAST_FINISHED = Keyset("archive", ("-finished_at", "id"), (datetime, UUID))


class ArchiveFilterSerializer(serializers.Serializer):
    scope = serializers.ChoiceField(choices=["mine", "public"], required=False, default="mine")


class ArchiveView(_GameListBase):
    serializer_class = GameSummarySerializer

    @extend_schema(
        operation_id="games_archive",
        summary="Finished matches to replay: mine, or every public one",
        description="Newest first. Each one's record: GET /api/v1/games/{id}/record/.",
        tags=["log"],
        parameters=[
            *GAMES_PAGING,
            OpenApiParameter(
                "scope",
                OpenApiTypes.STR,
                enum=["mine", "public"],
                description="mine (default): matches I played; public: matches at public tables.",
            ),
        ],
        responses={
            200: GamePageSerializer,
            400: error("Bad scope or limit (invalid_request); invalid_cursor."),
            **NO_SUCH_PAGE,
            **COMMON,
        },
    )
    @one_snapshot
    def get(self, request: Request) -> Response:
        query = ArchiveFilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        if query.validated_data["scope"] == "public":
            return self._page(request, records.archive_public(), LAST_FINISHED)
        return self._page(request, records.archive_of(user=request.user), LAST_FINISHED)


def profile_body(profile: profiles.Profile) -> dict[str, Any]:
    return {
        "username": profile.user.get_username(),
        "played": profile.played,
        "won": profile.won,
        "ratings": [
            {
                "family": card.family,
                "rating": card.display,
                "label": card.label,
                "provisional": card.provisional,
                "uncertainty": card.margin,
                "mu": card.mu,
                "sigma": card.sigma,
                "matches": card.matches,
                "history": [
                    {
                        "game": profiles.shown_game_id(change),
                        "at": iso(change.created_at),
                        "mu": change.mu,
                        "sigma": change.sigma,
                        "rating": change.display,
                        "label": rating_label(change.display, change.sigma),
                        "change": change.display - change.display_before,
                        "rank": change.rank,
                    }
                    for change in card.history
                ],
            }
            for card in profile.ratings
        ],
        "variants": [
            {
                "variant": v.variant,
                "played": v.played,
                "won": v.won,
                "win_rate": v.win_rate,
                "average_hand_score": v.average_hand_score,
            }
            for v in profile.variants
        ],
    }


class PlayerView(APIView):
    @extend_schema(
        operation_id="players_profile",
        summary="A player's ratings (with uncertainty and history) and results per variant",
        tags=["players"],
        responses={200: ProfileSerializer, 404: error("No such player (not_found)."), **COMMON},
    )
    @one_snapshot
    def get(self, request: Request, username: str) -> Response:
        user = profiles.player_by_name(username)
        return Response(profile_body(profiles.profile_of(user)))


class LeaderboardView(APIView):
    @extend_schema(
        operation_id="players_leaderboard",
        summary="The best rated players of a variant",
        description=f"Only players with at least {LEADERBOARD_MIN_MATCHES} rated matches in "
        f"the variant against at least {LEADERBOARD_MIN_OPPONENTS} different opponents, whose "
        "rating is no longer provisional; ordered by the displayed (conservative) rating.",
        tags=["players"],
        responses={
            200: LeaderboardSerializer,
            404: error("No such variant (not_found)."),
            **COMMON,
        },
    )
    @one_snapshot
    def get(self, request: Request, family: str) -> Response:
        rows = profiles.leaderboard(family=family)
        return Response(
            {
                "family": family,
                "minimum_matches": LEADERBOARD_MIN_MATCHES,
                "minimum_opponents": LEADERBOARD_MIN_OPPONENTS,
                "players": [
                    {
                        "position": position,
                        "username": row.user.get_username(),
                        "rating": row.display,
                        "label": rating_label(row.display, row.sigma),
                        "uncertainty": rating_margin(row.sigma),
                        "matches": row.matches,
                    }
                    for position, row in enumerate(rows, start=1)
                ],
            }
        )
