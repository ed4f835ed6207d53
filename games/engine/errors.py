"""One error family for everything the engine refuses (docs/formats.md#error-codes)."""

from __future__ import annotations

# Codes fixed by docs/formats.md, plus `invalid_table` for impossible tables and
# `must_go_out` for the binding "yes" of ask_partner (docs/engine-notes.md).
ERROR_CODES: frozenset[str] = frozenset(
    {
        "invalid_action",
        "invalid_table",
        "not_your_turn",
        "wrong_phase",
        "card_not_in_hand",
        "stock_empty",
        "pile_empty",
        "pile_blocked",
        "pile_frozen",
        "cannot_take_pile",
        "invalid_meld",
        "no_such_meld",
        "initial_meld_too_low",
        "cannot_go_out",
        "must_keep_card",
        "must_go_out",
        "hand_over",
    }
)


class EngineError(ValueError):
    """A rejected action or table. `code` is one stable code from ERROR_CODES."""

    def __init__(self, code: str, message: str) -> None:
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class IllegalActionError(EngineError):
    """The action is malformed or not allowed by the rules now."""


class InvalidTableError(EngineError):
    """The table JSON cannot describe a position of the variant."""

    def __init__(self, message: str) -> None:
        super().__init__("invalid_table", message)
