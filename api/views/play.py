"""Playing: the game as my seat sees it, my legal actions, submitting actions, resigning."""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import ApiError
from api.idempotency import idempotent
from api.presenters import etag, viewer_seat
from api.schema import (
    BAD_IDEMPOTENCY_KEY,
    BODY,
    GAME_COMMON,
    IDEMPOTENCY_KEY,
    IF_MATCH,
    IF_NONE_MATCH,
    error,
)
from api.serializers.games import GameDetailSerializer
from api.serializers.play import ActionsInSerializer, ActionsOutSerializer, LegalOutSerializer
from api.views.common import game_response, one_snapshot, seat_for, with_cache_headers
from games import engine, selectors
from games.engine import Table
from games.models import Game, GameStatus
from games.services.common import require_active, require_player
from games.services.moves import game_resign, moves_submit_with_table
from games.services.seats import seat_reclaim
from notifications.services.presence import presence_record

# W/"<game id>-<version>-<seat>" as we send it, the same without W/ or quotes, or a bare number.
_IF_MATCH = re.compile(r'^(?:W/)?"?(?:(?P<game>[0-9a-f-]{36})-)?(?P<version>\d+)(?:-[a-z0-9]+)?"?$')


def _if_none_match(request: Request, tag: str) -> bool:
    given = request.headers.get("If-None-Match")
    if not given:
        return False
    # Weak comparison (RFC 9110 §13.1.2): W/ prefixes do not matter.
    tags = {t.strip().removeprefix("W/") for t in given.split(",")}
    return "*" in tags or tag.removeprefix("W/") in tags


class GameDetailView(APIView):
    @extend_schema(
        operation_id="games_retrieve",
        summary="The game, with the table as your seat sees it",
        description="Spectators of a public game get the spectator view (no hand). The ETag "
        'is W/"<id>-<version>-<seat or spectator>"; send it as If-None-Match to get 304 '
        "while nothing has changed.",
        tags=["play"],
        parameters=[IF_NONE_MATCH],
        responses={
            200: GameDetailSerializer,
            304: None,
            **GAME_COMMON,
        },
    )
    def get(self, request: Request, game_id: UUID) -> Response:
        response = self._read(request, game_id)
        # The game page polls here: its player is looking at the game, so no turn email
        # (notifications/services/presence.py). Written after the read-only snapshot. Only
        # for the browser session: a token client may poll with nobody looking.
        if isinstance(request.successful_authenticator, SessionAuthentication):
            presence_record(user=request.user, game=game_id)
        return response

    @one_snapshot
    def _read(self, request: Request, game_id: UUID) -> Response:
        game, seat = selectors.game_visible_to(game_id=game_id, user=request.user)
        tag = etag(game, seat)
        if _if_none_match(request, tag):
            return with_cache_headers(Response(status=status.HTTP_304_NOT_MODIFIED), tag)
        return game_response(game, seat)


class LegalView(APIView):
    @extend_schema(
        operation_id="games_legal",
        summary="Your legal actions now (empty when it is not your turn)",
        tags=["play"],
        responses={
            200: LegalOutSerializer,
            403: error("You do not play in this game (not_seated)."),
            409: error("The game is not in play (game_not_active)."),
            **GAME_COMMON,
        },
    )
    @one_snapshot
    def get(self, request: Request, game_id: UUID) -> Response:
        game, _ = selectors.game_visible_to(game_id=game_id, user=request.user)
        seat = require_player(game, request.user)
        require_active(game)
        table = engine.from_json(game.state.table)
        assert seat.number is not None  # a player's seat (require_player)
        body = legal_body(game, seat.number, table)
        return with_cache_headers(Response(body), etag(game, seat))


def legal_body(game: Game, seat_number: int, table: Table) -> dict[str, Any]:
    """What GET .../legal/ answers for a seat: the version, the legal actions and concrete
    ones (also the `your_move` of an accepted batch)."""
    legal = engine.legal_actions(table, seat_number)
    return {
        "version": game.version,
        "seat": seat_number,
        "my_turn": table.turn == seat_number and not table.over,
        "phase": table.phase,
        "legal": legal.to_json(),
        "actions": legal.actions(),
    }


def _your_move(game: Game, seat_number: int, table: Table) -> dict[str, Any] | None:
    """The mover's legal actions while the turn is still theirs, for the batch's answer."""
    if game.status != GameStatus.ACTIVE or table.over or table.turn != seat_number:
        return None
    return legal_body(game, seat_number, table)


def _expected_version(request: Request, body_version: int | None, game_id: UUID) -> int:
    header = request.headers.get("If-Match")
    header_version = None
    if header is not None:
        match = _IF_MATCH.match(header.strip())
        if match is None or (match["game"] is not None and match["game"] != str(game_id)):
            raise ApiError(status.HTTP_400_BAD_REQUEST, "if_match_unreadable")
        header_version = int(match["version"])
    if body_version is not None and header_version is not None and body_version != header_version:
        raise ApiError(status.HTTP_400_BAD_REQUEST, "versions_differ")
    version = body_version if body_version is not None else header_version
    if version is None:
        # Every move says which state it was chosen against: no blind moves.
        raise ApiError(status.HTTP_400_BAD_REQUEST, "version_missing")
    return version


class ActionsView(APIView):
    @extend_schema(
        operation_id="games_actions",
        summary="Play actions for your seat, all or nothing (a draw from the stock stands)",
        description="The actions are applied in order; if one is refused, nothing is applied "
        "(422 with the engine's code, details.index and details.applied = 0). Except that a "
        "draw from the stock stands, as at a real table: once the batch has drawn, a refusal "
        "of a later action keeps the actions up to and including the draw (committed: a new "
        "version, the cards in your hand) and refuses the rest. The 422 then says so: "
        "details.applied (how many actions were kept), details.drawn (the cards drawn), "
        "details.version (the new version: GET the game for the table). A malformed action is "
        "refused before anything is applied. So no refusal describes a card you do not hold "
        "(docs/fair-play.md). A hand that ends is scored, its seed revealed and the next hand "
        "dealt in the same step. Answers with the new game.",
        tags=["play"],
        request=ActionsInSerializer,
        parameters=[IF_MATCH, IDEMPOTENCY_KEY],
        responses={
            200: ActionsOutSerializer,
            400: error("Malformed body, or no expected_version/If-Match (invalid_request)."),
            403: error("You do not play in this game (not_seated)."),
            409: error(
                "stale_version (details.version is current), game_not_active, request_in_progress."
            ),
            422: error(
                "The engine refused an action: its code (not_your_turn, wrong_phase, "
                "card_not_in_hand, invalid_action, ...), details.index, details.applied (0, or "
                "the actions kept up to a draw from the stock, with details.drawn and "
                "details.version); or idempotency_key_reused."
            ),
            **BODY,
            **GAME_COMMON,
        },
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        serializer = ActionsInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        version = _expected_version(request, data.get("expected_version"), game_id)
        game, table = moves_submit_with_table(
            game_id=game_id, user=request.user, actions=data["actions"], expected_version=version
        )
        seat = seat_for(game, request.user)
        seat_number = viewer_seat(seat)
        assert seat is not None and seat_number is not None
        # The table the move produced: the snapshot is not parsed again for the answer.
        response = game_response(game, seat, table=table)
        response.data["your_move"] = _your_move(game, seat_number, table)
        return response


class ResignView(APIView):
    @extend_schema(
        operation_id="games_resign",
        summary="Resign: your side loses the match",
        tags=["play"],
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            200: GameDetailSerializer,
            **BAD_IDEMPOTENCY_KEY,
            403: error("You do not play in this game (not_seated)."),
            409: error("game_not_active, request_in_progress."),
            422: error("idempotency_key_reused."),
            **GAME_COMMON,
        },
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        game = game_resign(game_id=game_id, user=request.user)
        return game_response(game, seat_for(game, request.user))


class ReclaimView(APIView):
    @extend_schema(
        operation_id="games_reclaim",
        summary="Take your seat back from the bot standing in for you",
        description="After CANASTA_TIMEOUTS_BEFORE_BOT timeouts in a row a bot plays your seat "
        "(presence away). This call ends that: if it is your turn, the turn starts now with "
        "the table's full time. Answers with the game; a seat that is not away is left as it "
        "is. Playing a move on your turn also takes the seat back.",
        tags=["play"],
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            200: GameDetailSerializer,
            **BAD_IDEMPOTENCY_KEY,
            403: error("You do not play in this game (not_seated)."),
            409: error("game_not_active, request_in_progress."),
            422: error("idempotency_key_reused."),
            **GAME_COMMON,
        },
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        seat_reclaim(game_id=game_id, user=request.user)
        game, seat = selectors.game_visible_to(game_id=game_id, user=request.user)
        return game_response(game, seat)
