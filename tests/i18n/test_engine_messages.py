"""Every refusal the engine can raise has a sentence for people in every language.

The engine raises a reason and its parameters (games/engine/errors.py, `REASONS`);
games/refusals.py writes the sentence from them. A new reason without a sentence, or a
sentence without its German and Icelandic, fails here instead of reaching a German page in
English.
"""

from __future__ import annotations

import ast
import string
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from games.engine.errors import REASONS, EngineError
from games.messages import error_message
from games.refusals import FOR_PROGRAMS, SENTENCES, refusal_text
from games.services.errors import ErrorKind, GameError

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"
LANGUAGES = ("en", "de", "is")
SAMPLES: dict[str, Any] = {
    "cards": ["QS", "QD"],
    "card": "KH",
    "rank": "Q",
    "sizes": [3, 4],
    "phase": "play",
    "phases": ["draw"],
    "variant": "classic",
    "kind": "meld",
    "keys": "extra",
    "text": "XX",
    "what": "melds",
    "problem": "stock: not a list",
    "plural": "s",
}


def sample_params(reason: str) -> dict[str, Any]:
    names = [name for _, name, _, _ in string.Formatter().parse(REASONS[reason].english) if name]
    return {name: SAMPLES.get(name, 3) for name in names}


def test_every_reason_has_a_sentence_or_is_for_programs() -> None:
    assert set(SENTENCES) | FOR_PROGRAMS == set(REASONS)
    assert not set(SENTENCES) & FOR_PROGRAMS


@pytest.mark.parametrize("reason", sorted(REASONS))
def test_every_reason_reads_in_every_language(reason: str) -> None:
    params = sample_params(reason)
    sentences = {}
    for language in LANGUAGES:
        with translation.override(language):
            sentences[language] = refusal_text(reason, params)
    assert all(sentences.values())
    for language in ("de", "is"):
        assert sentences[language] != sentences["en"], f"{reason}: no {language} translation"
        assert "QS" not in sentences[language] and "KH" not in sentences[language]


def test_the_sentence_is_built_from_the_parameters() -> None:
    with translation.override("de"):
        text = refusal_text("pile_blocked", {"card": "3S"})
    assert "3♠" in text and "3S" not in text
    with translation.override("en"):
        assert refusal_text("too_few_cards", {"cards": ["QS", "QD"]}) == (
            "The Q♠ and Q♦ are only two cards: a meld needs at least three."
        )
        # a malformed action reads, in English, as the engine's own message
        assert refusal_text("unknown_card", {"text": "XX"}) == "Unknown card code 'XX'."


def test_a_refusal_after_a_draw_says_the_draw_stands() -> None:
    engine_error = EngineError("pile_empty")
    error = GameError(
        ErrorKind.ILLEGAL,
        engine_error.code,
        engine_error.message,
        {"applied": 1, "drawn": ["7H"]},
        reason=engine_error.reason,
        params=engine_error.params,
    )
    with translation.override("en"):
        text = error_message(error)
    assert text.startswith("Your draw from the stock stands")
    assert text.endswith("The discard pile is empty.")


def _raised_reasons() -> list[tuple[str, str]]:
    """(where, reason) of every engine raise with a literal reason."""
    found = []
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("illegal", "IllegalActionError", "EngineError")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.append((f"{path.name}:{node.lineno}", str(node.args[0].value)))
    return found


def test_every_raised_reason_is_known() -> None:
    raised = _raised_reasons()
    assert len(raised) > 60
    unknown = [f"{where}: {reason}" for where, reason in raised if reason not in REASONS]
    assert not unknown
