"""Small helpers the game views share."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.response import Response

from api.presenters import etag, game_detail
from games.engine import Table
from games.models import Game, Seat


def game_response(
    game: Game,
    seat: Seat | None,
    *,
    code: int = status.HTTP_200_OK,
    table: Table | None = None,
    headers: dict[str, Any] | None = None,
) -> Response:
    response = Response(game_detail(game, seat, table), status=code, headers=headers)
    return with_cache_headers(response, etag(game, seat))


def with_cache_headers(response: Response, tag: str) -> Response:
    response["ETag"] = tag
    # The body depends on who asks (their seat's cards): never for a shared cache.
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Accept, Authorization, Cookie"
    return response


def seat_for(game: Game, user: Any) -> Seat | None:
    for seat in game.seats.all():
        if seat.user_id == user.pk:
            return seat
    return None
