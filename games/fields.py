"""Fields that store less (issue 25): a JSON value as compact text (CompactJSONField), a move's
events packed against the move (MoveEventsField), a text kept only as its digest (DigestField).

A JSON value stored as compact text, for the move log:

PostgreSQL's jsonb keeps, besides the value, a header for every object and array and an
offset for every key and element: for the small objects of a move (`{"type": "draw"}`, its
one or two engine events) that is about as much again as the JSON text itself, in a table
kept for good. This field stores the JSON text without whitespace in a text column and gives
back what was stored, keys in the order they were written (as SQLite's JSON always did).
Nothing queries inside these values (no `action__type` lookups), so jsonb's operators are not
missed; a value written while the column was jsonb reads back the same (its text form).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import models


def compact_json(value: Any) -> str:
    """A JSON value as CompactJSONField stores it (no spaces, text unescaped; compact JSON never
    holds a raw line break, which games.movearchive's line format relies on)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class CompactJSONField(models.TextField):
    description = "A JSON value stored as compact text"
    # django-stubs' plugin reads these: the Python value is any JSON value, as a JSONField's.
    _pyi_private_set_type: Any
    _pyi_private_get_type: Any

    def get_prep_value(self, value: Any) -> Any:
        if value is None:
            return None
        return compact_json(value)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None:
            return None
        return json.loads(value)

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str):
            return json.loads(value)
        return value

    def value_to_string(self, obj: models.Model) -> str:
        return str(self.get_prep_value(self.value_from_object(obj)))


# Bytes of a DigestField: the first 16 of the text's SHA-256 (a chance of a collision among a
# trillion keys of about 1 in 10^15).
DIGEST_BYTES = 16


def digest(text: str) -> bytes:
    """What a DigestField stores for `text`."""
    return hashlib.sha256(text.encode()).digest()[:DIGEST_BYTES]


class DigestField(models.BinaryField):
    """A text stored as its digest (issue 25): 16 bytes, for a key that is only ever looked up
    whole (a dedupe key, an Idempotency-Key) and never read back. A text given to it (in a
    model, a lookup, an INSERT) is stored and compared as `digest(text)`; bytes are taken as a
    digest already. Its value read back is the digest (bytes), never the text."""

    description = "A text stored as its 16-byte digest"
    _pyi_private_set_type: str | bytes
    # The digest once read back (an object given a text holds the text until it is read again:
    # mailplay.services.tokens.token_issued).
    _pyi_private_get_type: bytes

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if isinstance(value, str):
            return digest(value)
        return value

    def to_python(self, value: Any) -> Any:
        # Not BinaryField's (a text there is base64): a text here is what the digest is of.
        return value

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return None if value is None else bytes(value)  # PostgreSQL: a memoryview


def events_packed(events: Any, action: Any, seat: Any) -> Any:
    """A move's engine events as the move log stores them (issue 25): an event that begins
    with its move's own type and seat ({"type": "draw", "seat": 2, ...}, most of them) without
    those two keys, which the move's `action` and `seat` columns hold already. Every engine
    event has a "type", so an event stored without one is such an event (events_unpacked)."""
    if not isinstance(events, list) or not isinstance(action, dict):
        return events
    kind = action.get("type")
    return [_event_packed(event, kind, seat) for event in events]


def _event_packed(event: Any, kind: Any, seat: Any) -> Any:
    if not isinstance(event, dict) or list(event)[:2] != ["type", "seat"]:
        return event
    if event["type"] != kind or event["seat"] != seat:
        return event
    return {key: value for key, value in event.items() if key not in ("type", "seat")}


def events_unpacked(events: Any, action: Any, seat: Any) -> Any:
    """The events as the engine wrote them, keys in their order: events_packed undone."""
    if not isinstance(events, list):
        return events
    kind = action.get("type") if isinstance(action, dict) else None
    return [
        {"type": kind, "seat": seat, **event}
        if isinstance(event, dict) and "type" not in event
        else event
        for event in events
    ]


class MoveEventsField(CompactJSONField):
    """A move's engine events in compact JSON, stored without what repeats the move's own
    action type and seat (events_packed, about half of a move's events' bytes). The move's
    other columns are needed to store and to rebuild them: this field packs them when the row
    is written (pre_save sees the row), and games.models.Move.from_db unpacks them when it is
    read. The move object keeps the events as the engine wrote them."""

    description = "A move's engine events, packed against the move's action and seat"

    def pre_save(self, model_instance: models.Model, add: bool) -> Any:
        value = super().pre_save(model_instance, add)
        return events_packed(
            value, getattr(model_instance, "action", None), getattr(model_instance, "seat", None)
        )
