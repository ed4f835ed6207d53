"""The Canasta rules engine: pure Python, standard library only (see docs/engine-notes.md).

Formats: docs/formats.md; rules: docs/rules.md and docs/variants.md; the shuffle:
docs/fair-shuffle.md. An optional compiled build of these same modules is used when present
and current (games/engine/compiled.py, docs/engine-speed.md#the-compiled-build).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .compiled import usable_build

# The compiled build, when it matches the sources, is searched before the .py files.
_build = usable_build()
if _build is not None:
    __path__.insert(0, str(_build))

# The public names, typed: mypy and editors read these imports. At run time the same names
# are imported lazily (PEP 562, `__getattr__` below) so that `python -m games.engine.shuffle`
# and `python -m games.engine.scenarios` run their module once, without a runpy warning;
# tests/engine/test_front_door.py keeps the two lists equal.
if TYPE_CHECKING:
    from .actions import (
        Action as Action,
    )
    from .actions import (
        action_to_json as action_to_json,
    )
    from .actions import (
        parse_action as parse_action,
    )
    from .cards import (
        Card as Card,
    )
    from .cards import (
        parse_card as parse_card,
    )
    from .dealing import (
        deal as deal,
    )
    from .dealing import (
        dealer_for_hand as dealer_for_hand,
    )
    from .errors import (
        ERROR_CODES as ERROR_CODES,
    )
    from .errors import (
        EngineError as EngineError,
    )
    from .errors import (
        IllegalActionError as IllegalActionError,
    )
    from .errors import (
        InvalidTableError as InvalidTableError,
    )
    from .legal import (
        LegalActions as LegalActions,
    )
    from .legal import (
        legal_actions as legal_actions,
    )
    from .match import (
        HandRecord as HandRecord,
    )
    from .match import (
        Match as Match,
    )
    from .play import (
        Outcome as Outcome,
    )
    from .play import (
        apply as apply,
    )
    from .play import (
        can_take_pile as can_take_pile,
    )
    from .play import (
        find_going_out as find_going_out,
    )
    from .play import (
        is_legal as is_legal,
    )
    from .play import (
        minimum as minimum,
    )
    from .play import (
        pile_frozen as pile_frozen,
    )
    from .scoring import (
        HandResult as HandResult,
    )
    from .scoring import (
        score_hand as score_hand,
    )
    from .seating import (
        draw_cards as draw_cards,
    )
    from .seating import (
        seats_by_draw as seats_by_draw,
    )
    from .shuffle import (
        commitment as commitment,
    )
    from .shuffle import (
        new_seed as new_seed,
    )
    from .shuffle import (
        shuffle_deck as shuffle_deck,
    )
    from .shuffle import (
        shuffled_deck as shuffled_deck,
    )
    from .table import (
        Table as Table,
    )
    from .table import (
        from_json as from_json,
    )
    from .table import (
        to_json as to_json,
    )
    from .variants import (
        VARIANTS as VARIANTS,
    )
    from .variants import (
        get_rules as get_rules,
    )
    from .variants import (
        list_variants as list_variants,
    )
    from .view import (
        event_for as event_for,
    )
    from .view import (
        player_view as player_view,
    )
    from .view import (
        tile_name as tile_name,
    )

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
