"""manage.py build_engine without the tools it needs, and with a current build (no rebuild).

The build itself (mypyc and a C compiler, about two minutes) runs in CI's compiled-engine step
(.ci/run), which then runs the engine tests on it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.engine import compiled
from games.management.commands import build_engine


@pytest.fixture
def no_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    build = tmp_path / "_compiled"
    monkeypatch.setattr(compiled, "BUILD_DIR", build)
    monkeypatch.setattr(build_engine, "compiler_missing", lambda: "no C compiler (cc) on PATH")
    return build


def _out(*args: str) -> str:
    out = io.StringIO()
    call_command("build_engine", *args, stdout=out)
    return out.getvalue()


def test_the_release_step_skips_without_a_compiler_and_says_why(no_build: Path):
    assert _out("--if-available") == (
        "compiled engine skipped: no C compiler (cc) on PATH; the pure-Python engine runs\n"
    )
    assert not no_build.exists()


def test_asked_for_directly_it_fails_without_a_compiler(no_build: Path):
    with pytest.raises(CommandError, match="no C compiler"):
        call_command("build_engine", stdout=io.StringIO())


def test_a_current_build_is_not_rebuilt_and_remove_removes_it(no_build: Path):
    no_build.mkdir()
    stamp = {"source_hash": compiled.source_hash()}
    (no_build / compiled.STAMP).write_text(json.dumps(stamp))
    assert _out("--if-available").startswith("compiled engine is current")
    assert _out("--remove").startswith("compiled engine removed")
    assert not no_build.exists()
