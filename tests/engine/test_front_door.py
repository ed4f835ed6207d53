"""The engine's front door (`games/engine/__init__.py`): every public name typed for mypy.

At run time the names load lazily (PEP 562); for mypy and editors they are real imports under
TYPE_CHECKING. These tests keep the two lists equal and check that mypy, at a call site
outside the engine, sees each public name with its own type, never `Any`.
"""

from __future__ import annotations

import ast
import importlib
import textwrap
from pathlib import Path

import mypy.api

import games.engine as engine

INIT = Path(engine.__file__)
ROOT = INIT.parents[2]


def _typed_imports() -> dict[str, str]:
    """name -> module of the imports under `if TYPE_CHECKING:` in the package door."""
    tree = ast.parse(INIT.read_text())
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module and imp.level == 1
                for alias in imp.names:
                    assert alias.asname == alias.name, "re-exported as itself"
                    found[alias.name] = imp.module
    return found


def test_the_typed_imports_and_the_lazy_names_agree():
    assert _typed_imports() == engine._EXPORTS
    assert sorted(engine.__all__) == sorted(engine._EXPORTS)


def test_every_public_name_is_the_module_s_own():
    for name, module in engine._EXPORTS.items():
        own = getattr(importlib.import_module(f"games.engine.{module}"), name)
        assert getattr(engine, name) is own, name


def test_mypy_sees_no_any_for_the_public_names_at_a_call_site(tmp_path: Path):
    names = sorted(engine._EXPORTS)
    site = tmp_path / "call_site.py"
    site.write_text(
        "import games.engine as engine\n"
        "from games.engine import "
        + ", ".join(names)
        + "\n"
        + "".join(f"reveal_type(engine.{n})\nreveal_type({n})\n" for n in names)
        + textwrap.dedent(
            """
            t = engine.deal("classic", 4, "ab" * 32)
            reveal_type(engine.apply(t, t.turn, {"type": "draw"}).table)
            """
        )
    )
    stdout, stderr, _ = mypy.api.run(
        [
            str(site),
            "--config-file=",
            "--strict",
            "--no-incremental",
            "--cache-dir=" + str(tmp_path / "cache"),
            "--follow-imports=silent",
        ]
    )
    notes = [line for line in stdout.splitlines() if "Revealed type" in line]
    assert len(notes) == 2 * len(names) + 1, stdout + stderr
    untyped = [line for line in notes if line.rstrip().endswith('"Any"')]
    assert untyped == [], untyped
    assert "games.engine.table.Table" in notes[-1]
    assert "def (table: games.engine.table.Table" in "\n".join(notes), stdout
