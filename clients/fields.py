"""An event's facts stored in fewer bytes (issue 25): the facts of the two kinds written for
every move and every turn email as a JSON list of their values, in the order of their keys.

    move:      {"version": 5, "turn": 0}                  -> [5, 0]
               {"version": 9, "turn": 1, "status": "x"}   -> [9, 1, "x"]
    your_turn: {"deadline": "2026-12-05T…Z", "version": 4} -> [4, "2026-12-05T…Z"]
               {"version": 4}                              -> [4]

Every other kind, and facts of another shape, are stored as they are (an object). Facts
written before were objects: a list is always packed facts. The event's kind is needed both
ways: the field packs as the row is written (pre_save sees the row), clients.models.Event
.from_db unpacks as it is read.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from games.fields import CompactJSONField

# Per kind: the keys as the facts hold them (in their order), and the order of their values
# in the packed list (the keys a list of that length holds, first to last).
_MOVE = ("version", "turn", "status")
_YOUR_TURN_KEYS = ("deadline", "version")
_YOUR_TURN_PACKED = ("version", "deadline")


def facts_packed(facts: Any, kind: Any) -> Any:
    if not isinstance(facts, dict):
        return facts
    keys = list(facts)
    if kind == "move" and keys in (list(_MOVE[:2]), list(_MOVE)):
        return [facts[key] for key in keys]
    if kind == "your_turn" and keys in (list(_YOUR_TURN_KEYS), ["version"]):
        return [facts[key] for key in _YOUR_TURN_PACKED if key in facts]
    return facts


def facts_unpacked(facts: Any, kind: Any) -> Any:
    if not isinstance(facts, list):
        return facts
    if kind == "move":
        return dict(zip(_MOVE, facts, strict=False))
    if kind == "your_turn":
        values = dict(zip(_YOUR_TURN_PACKED, facts, strict=False))
        return {key: values[key] for key in _YOUR_TURN_KEYS if key in values}
    return facts


class EventFactsField(CompactJSONField):
    description = "An event's facts, packed by its kind"

    def pre_save(self, model_instance: models.Model, add: bool) -> Any:
        value = super().pre_save(model_instance, add)
        return facts_packed(value, getattr(model_instance, "kind", None))
