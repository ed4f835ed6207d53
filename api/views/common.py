"""Small helpers the game views share."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.presenters import etag, game_detail
from games.engine import Table
from games.models import Game, Seat
from games.selectors import read_snapshot


def one_snapshot(handler: Callable[..., Response]) -> Callable[..., Response]:
    """A read view whose answer comes from one database snapshot (selectors.read_snapshot):
    never a game row of one moment with seats or moves of the next."""

    @wraps(handler)
    def wrapper(view: APIView, request: Request, *args: Any, **kwargs: Any) -> Response:
        with read_snapshot():
            return handler(view, request, *args, **kwargs)

    return wrapper


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
