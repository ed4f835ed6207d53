"""The language of an API error's message (the sentences themselves: games/messages.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.utils.translation import get_language_from_request

from games.messages import cards_text, error_message, general_message, reason_text
from notifications.models import Language
from notifications.services.preferences import language_of

if TYPE_CHECKING:
    from django.contrib.auth.models import User

__all__ = [
    "cards_text",
    "error_message",
    "general_message",
    "reason_text",
    "request_language",
]


def request_language(
    request: HttpRequest, user: User | None = None, *, session: bool = False
) -> str:
    """The language of an API answer (docs/i18n.md, "Which language").

    The site's own pages call the API signed in with the session cookie (`session`): those
    requests follow the user's preference, as the pages do. A program (a token, or no
    credentials) gets what its Accept-Language header asks for; without the header, its
    user's preference; otherwise English.
    """
    signed_in = user is not None and getattr(user, "is_authenticated", False)
    if signed_in and session:
        return language_of(user=user)
    if request.META.get("HTTP_ACCEPT_LANGUAGE"):
        return get_language_from_request(request)
    if signed_in:
        return language_of(user=user)
    return Language.ENGLISH
