"""Helpers the web views share: the services' errors as pages."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _

from games import selectors
from games.messages import error_message
from games.models import Game, Seat
from games.services.errors import STATUS_BY_KIND as STATUS_BY_KIND  # the web views import it here
from games.services.errors import ErrorKind, GameError


def signed_in_user(request: HttpRequest) -> User:
    """The signed-in user of a view behind login_required, typed as the user model."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied
    return user


def visible_game(game_id: UUID | str, user: Any) -> tuple[Game, Seat | None]:
    """The game and the user's seat; a 404 page for a game they may not see."""
    try:
        return selectors.game_visible_to(game_id=game_id, user=user)
    except GameError as error:
        if error.kind is ErrorKind.NOT_FOUND:
            raise Http404(_("No such game.")) from None
        raise


def error_context(
    error: GameError | None = None, *, variant: str = "classic", **kw: Any
) -> dict[str, Any]:
    """A refusal for a page: its code, and its message in the reader's language."""
    if error is None:
        return {"code": kw.get("code", "invalid_selection"), "message": kw["message"]}
    return {"code": error.code, "message": error_message(error, variant)}
