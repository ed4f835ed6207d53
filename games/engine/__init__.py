"""The Canasta rules engine: pure Python, standard library only (see docs/engine-notes.md).

Formats: docs/formats.md; rules: docs/rules.md and docs/variants.md; the shuffle:
docs/fair-shuffle.md.
"""

from __future__ import annotations

import importlib
from typing import Any

# Names are imported lazily (PEP 562) so that `python -m games.engine.shuffle` and
# `python -m games.engine.scenarios` run their module once, without a runpy warning.
_EXPORTS: dict[str, str] = {
    "Action": "actions",
    "Card": "cards",
    "ERROR_CODES": "errors",
    "EngineError": "errors",
    "HandRecord": "match",
    "HandResult": "scoring",
    "IllegalActionError": "errors",
    "InvalidTableError": "errors",
    "LegalActions": "legal",
    "Match": "match",
    "Outcome": "play",
    "Table": "table",
    "VARIANTS": "variants",
    "action_to_json": "actions",
    "apply": "play",
    "can_take_pile": "play",
    "commitment": "shuffle",
    "deal": "dealing",
    "dealer_for_hand": "dealing",
    "draw_cards": "seating",
    "event_for": "view",
    "find_going_out": "play",
    "from_json": "table",
    "get_rules": "variants",
    "is_legal": "play",
    "legal_actions": "legal",
    "list_variants": "variants",
    "minimum": "play",
    "new_seed": "shuffle",
    "parse_action": "actions",
    "parse_card": "cards",
    "pile_frozen": "play",
    "player_view": "view",
    "score_hand": "scoring",
    "seats_by_draw": "seating",
    "shuffle_deck": "shuffle",
    "shuffled_deck": "shuffle",
    "tile_name": "view",
    "to_json": "table",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
