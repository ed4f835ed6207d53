"""The one application error type (HackSoft styleguide): services raise it, api/errors.py maps
its `kind` to an HTTP status and renders the one JSON error shape."""

from __future__ import annotations

from enum import Enum
from typing import Any

from games.services.reasons import SERVICE_REASONS, english_text


class ErrorKind(Enum):
    INVALID = "invalid"  # the request itself is wrong (400)
    FORBIDDEN = "forbidden"  # the caller may see the game but not do this (403)
    NOT_FOUND = "not_found"  # no such game, or one the caller may not see (404)
    CONFLICT = "conflict"  # the game's state does not allow it now (409)
    ILLEGAL = "illegal"  # the rules refuse it: the engine's codes (422)


# The HTTP status of each kind, for the API (api/errors.py) and the web pages alike.
STATUS_BY_KIND: dict[ErrorKind, int] = {
    ErrorKind.INVALID: 400,
    ErrorKind.FORBIDDEN: 403,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.CONFLICT: 409,
    ErrorKind.ILLEGAL: 422,
}


class GameError(Exception):
    """``reason`` and ``params``: the refusal's reason and its parameters, from which
    games/messages.py writes the sentence for people: an engine refusal's
    (games/engine/errors.py, sentences in games/refusals.py) or a service's own
    (games/services/reasons.py, raised with `refused`). ``message`` is English, for logs."""

    def __init__(
        self,
        kind: ErrorKind,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        *,
        reason: str = "",
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.message = message
        self.details = details or {}
        self.reason = reason
        self.params = params or {}

    def __repr__(self) -> str:
        return f"GameError({self.kind.value}, {self.code!r}, {self.message!r})"


def refused(
    kind: ErrorKind, reason: str, details: dict[str, Any] | None = None, **params: Any
) -> GameError:
    """A service's refusal: ``reason`` a key of SERVICE_REASONS (its code and sentence),
    ``params`` what the sentence names, ``details`` what the API's answer carries."""
    code = SERVICE_REASONS[reason].code
    return GameError(
        kind, code, english_text(reason, params), details, reason=reason, params=params
    )


def not_found() -> GameError:
    # One message for "no such game" and "not yours to see", so a 404 reveals nothing.
    return refused(ErrorKind.NOT_FOUND, "no_such_game")
