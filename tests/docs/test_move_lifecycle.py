"""docs/move-lifecycle.md names a file and function for each step of a move: every one exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "move-lifecycle.md"
STEP = re.compile(r"`([\w/]+\.py)::([\w.]+)`")


def defined_names(path: Path) -> set[str]:
    """The qualified names a module defines: `f`, `Class`, `Class.method`."""
    names: set[str] = set()

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(prefix + child.name)
                if isinstance(child, ast.ClassDef):
                    walk(child, f"{prefix}{child.name}.")

    walk(ast.parse(path.read_text(encoding="utf-8")), "")
    return names


STEPS = sorted(set(STEP.findall(PAGE.read_text(encoding="utf-8"))))


def test_the_page_names_the_whole_path() -> None:
    files = {file for file, _ in STEPS}
    # every door, the transaction, both receivers and the delivery are on the page
    assert {
        "api/views/play.py",
        "web/views/game.py",
        "mailplay/services/inbound.py",
        "games/services/moves.py",
        "clients/receivers.py",
        "notifications/receivers.py",
        "notifications/services/delivery.py",
    } <= files
    assert len(STEPS) > 30


@pytest.mark.parametrize(("file", "name"), STEPS, ids=[f"{f}::{n}" for f, n in STEPS])
def test_each_step_names_a_function_that_exists(file: str, name: str) -> None:
    path = ROOT / file
    assert path.exists(), f"{file} does not exist"
    assert name in defined_names(path), f"{file} defines no {name}"


def test_a_missing_function_is_caught(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "class View:\n    def post(self):\n        pass\n\n\ndef helper():\n    pass\n"
    )
    assert defined_names(sample) == {"View", "View.post", "helper"}
