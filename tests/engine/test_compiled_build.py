"""The optional compiled engine (games/engine/compiled.py, manage.py build_engine).

Without a build, or with a stale one, the pure-Python modules load (a stale build with one
warning line); a current build is loaded; and, where a build exists, both builds agree on the
tables, legal actions and events of many random positions in every configuration.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import compiled

ROOT = compiled.PACKAGE_DIR.parents[1]
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
PROBE = (
    "import games.engine as e, games.engine.compiled as c;"
    "t = e.deal('classic', 4, 'ab' * 32);"
    "e.apply(t, t.turn, {'type': 'draw'});"
    "print('compiled' if c.is_compiled() else 'pure')"
)


def _package_copy(tmp_path: Path) -> Path:
    """The engine's .py sources alone, as games/engine under tmp_path (no build)."""
    package = tmp_path / "games" / "engine"
    package.mkdir(parents=True)
    (tmp_path / "games" / "__init__.py").write_text("")
    for source in compiled.PACKAGE_DIR.glob("*.py"):
        shutil.copy2(source, package / source.name)
    return package


def _fake_build(package: Path, source_hash: str) -> None:
    # Not loadable: if the engine tried this build, importing `turn` would fail.
    build = package / "_compiled"
    build.mkdir()
    (build / f"turn{SUFFIX}").write_bytes(b"not a shared object")
    (build / compiled.STAMP).write_text(json.dumps({"source_hash": source_hash}))


def _run(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != compiled.MODE_VARIABLE}
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=cwd,
        env={**environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def _current_hash(tmp_path: Path) -> str:
    probe = "import games.engine.compiled as c; print(c.source_hash())"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_without_a_build_the_pure_engine_loads_quietly(tmp_path: Path):
    _package_copy(tmp_path)
    result = _run(tmp_path)
    assert (result.returncode, result.stdout.strip(), result.stderr) == (0, "pure", "")


def test_a_stale_build_is_not_used_and_says_so_once(tmp_path: Path):
    _fake_build(_package_copy(tmp_path), source_hash="0" * 64)
    result = _run(tmp_path)
    assert (result.returncode, result.stdout.strip()) == (0, "pure"), result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "stale" in lines[0] and "build_engine" in lines[0]


def test_a_build_changed_sources_make_stale_is_not_used(tmp_path: Path):
    package = _package_copy(tmp_path)
    _fake_build(package, source_hash=_current_hash(tmp_path))
    with (package / "turn.py").open("a") as source:
        source.write("\n# changed after the build\n")
    result = _run(tmp_path)
    assert (result.returncode, result.stdout.strip()) == (0, "pure"), result.stderr
    assert "stale" in result.stderr


def test_a_current_build_is_the_one_loaded(tmp_path: Path):
    # The fake build matches the sources, so the engine loads it: and it cannot load.
    _fake_build(_package_copy(tmp_path), source_hash=_current_hash(tmp_path))
    result = _run(tmp_path)
    assert result.returncode != 0 and "turn" in result.stderr
    # CANASTA_ENGINE=pure rules a current build out.
    assert _run(tmp_path, CANASTA_ENGINE="pure").stdout.strip() == "pure"


def _differential(mode: str, games: int) -> list[str]:
    environ = {k: v for k, v in os.environ.items() if k != compiled.MODE_VARIABLE}
    if mode == "pure":
        environ[compiled.MODE_VARIABLE] = "pure"
    out = subprocess.run(
        [sys.executable, "-m", "tests.engine.differential", str(games)],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.splitlines()


@pytest.mark.skipif(compiled.usable_build() is None, reason="no current compiled build")
def test_both_builds_agree_on_random_positions_in_every_configuration():
    games = int(os.environ.get("CANASTA_DIFFERENTIAL_GAMES", "12"))
    native, pure = _differential("compiled", games), _differential("pure", games)
    assert (native[0], pure[0]) == ("compiled True", "compiled False")
    assert len(native) == len(pure) > 100 * games
    for a, b in zip(native[1:], pure[1:], strict=True):
        assert a == b
