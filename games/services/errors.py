"""The one application error type (HackSoft styleguide): services raise it, api/errors.py maps
its `kind` to an HTTP status and renders the one JSON error shape."""

from __future__ import annotations

from enum import Enum
from typing import Any


class ErrorKind(Enum):
    INVALID = "invalid"  # the request itself is wrong (400)
    FORBIDDEN = "forbidden"  # the caller may see the game but not do this (403)
    NOT_FOUND = "not_found"  # no such game, or one the caller may not see (404)
    CONFLICT = "conflict"  # the game's state does not allow it now (409)
    ILLEGAL = "illegal"  # the rules refuse it: the engine's codes (422)


class GameError(Exception):
    def __init__(
        self,
        kind: ErrorKind,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.message = message
        self.details = details or {}

    def __repr__(self) -> str:
        return f"GameError({self.kind.value}, {self.code!r}, {self.message!r})"


def not_found() -> GameError:
    # One message for "no such game" and "not yours to see", so a 404 reveals nothing.
    return GameError(ErrorKind.NOT_FOUND, "not_found", "No such game.")
