"""Every refusal the engine writes has a sentence for people (api/messages.py).

The engine is pure and English: it raises a code and an English message, which the layer
above turns into the reader's language by a pattern per message (games/messages.py). This test reads the engine's
source for every message it can raise, fills its placeholders with sample values, and checks
that a pattern of the same code matches: a new or reworded engine message without a pattern
fails here instead of reaching a German page in English.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.utils import translation

from games.messages import PATTERNS, message_for
from games.services.errors import ErrorKind

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"
# The helpers that raise with a fixed code (their first argument is the message).
FIXED_CODE = {("melds.py", "_bad"): "invalid_meld"}
# Malformed actions from programs (bad JSON shapes): not read by people; the general sentence
# of invalid_action is enough for them.
SKIPPED_CODES = {"invalid_action", "invalid_table"}


def _sample(node: ast.expr) -> str:
    """A plausible value for an f-string placeholder, from the expression's name."""
    text = ast.unparse(node)
    if "join(cards)" in text or text in ("shown",) or "missing" in text:
        return "QS QD"
    if text in ("top",):
        return "KH"
    if text in ("key",):
        return "Q"
    if text in ("rules.name",):
        return "classic"
    if text in ("sizes",):
        return "3 or 4"
    if text in ("t.phase",):
        return "play"
    if text in ("wanted",):
        return "draw"
    return "3"


def _message(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                parts.append(_sample(value.value))
        return "".join(parts)
    return None


def engine_messages() -> list[tuple[str, str, str]]:
    """(where, code, sample message) for every literal refusal in the engine."""
    found = []
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            name, args = node.func.id, node.args
            fixed = FIXED_CODE.get((path.name, name))
            if fixed is not None and len(args) == 1:
                code, message = fixed, _message(args[0])
            elif name in ("illegal", "IllegalActionError") and len(args) == 2:
                if not isinstance(args[0], ast.Constant):
                    continue
                code, message = str(args[0].value), _message(args[1])
            else:
                continue
            if message is not None and code not in SKIPPED_CODES:
                found.append((f"{path.name}:{node.lineno}", code, message))
    return found


MESSAGES = engine_messages()


def test_the_engines_messages_are_found() -> None:
    codes = {code for _, code, _ in MESSAGES}
    assert {"invalid_meld", "pile_frozen", "cannot_take_pile", "wrong_phase"} <= codes
    assert len(MESSAGES) > 30


@pytest.mark.parametrize(("where", "code", "message"), MESSAGES, ids=lambda v: str(v)[:60])
def test_every_engine_refusal_has_a_sentence_for_people(
    where: str, code: str, message: str
) -> None:
    assert any(p.code == code and p.regex.match(message) for p in PATTERNS), (
        f"{where}: no pattern in games/messages.py for {code}: {message!r}"
    )
    with translation.override("de"):
        german = message_for(code, message, kind=ErrorKind.ILLEGAL)
    assert german and "QS" not in german and "KH" not in german
