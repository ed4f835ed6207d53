"""Helpers for API tests: URLs and the error shape."""

from __future__ import annotations

from typing import Any

from rest_framework.response import Response


def url(game: Any, what: str = "") -> str:
    game_id = game if isinstance(game, str) else game.pk
    return f"/api/v1/games/{game_id}/" + (f"{what}/" if what else "")


def error_of(response: Response, status: int) -> dict[str, Any]:
    """The error object of a response, checked to have the one error shape."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert isinstance(body["error"]["code"], str) and body["error"]["code"]
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body["error"]


def code_of(response: Response, status: int) -> str:
    return error_of(response, status)["code"]
