"""Plain dicts for responses: the game's read model (games/readmodel.py), which the web pages
share. The serializers in api/serializers/ describe these shapes for the OpenAPI schema."""

from __future__ import annotations

from games.readmodel import (
    Absences,
    absences_for,
    etag,
    game_detail,
    game_state,
    game_summary,
    hand_entry,
    iso,
    move_entry,
    viewer_seat,
)

__all__ = [
    "Absences",
    "absences_for",
    "etag",
    "game_detail",
    "game_state",
    "game_summary",
    "hand_entry",
    "iso",
    "move_entry",
    "viewer_seat",
]
