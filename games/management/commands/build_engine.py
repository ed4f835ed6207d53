"""manage.py build_engine: compile the rules engine with mypyc into games/engine/_compiled/.

The pure-Python modules stay where they are and stay the reference; the build goes beside
them with the hash of the sources it was made from (games/engine/compiled.py), and the engine
uses it only while that hash matches. The new build is imported in a fresh interpreter before
it replaces the old one, so a build that cannot load is never left in place.
docs/engine-speed.md#the-compiled-build.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import compiled

# The shared library of the build, inside the package: the shims import it by this name.
GROUP = "games.engine.native"


def compiler_missing() -> str | None:
    """Why this machine cannot build (no mypyc, no C compiler), or None."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (pip install mypy, pinned in requirements-dev.txt)"
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc}) on PATH"
    return None


def sources_copy(into: Path) -> Path:
    """The compiled modules copied into `into` as games/engine/ (mypy sees only those)."""
    package = into / "games" / "engine"
    package.mkdir(parents=True)
    (into / "games" / "__init__.py").write_text("")
    for stem in [*compiled.compiled_modules(), *sorted(compiled.NOT_COMPILED)]:
        shutil.copy2(compiled.PACKAGE_DIR / f"{stem}.py", package / f"{stem}.py")
    return package


def extensions_build(work: Path) -> Path:
    """Run mypyc and the C compiler in `work`; the directory holding the built modules."""
    # Build-time tools, imported only here: production installs need not have them.
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    paths = [f"games/engine/{stem}.py" for stem in compiled.compiled_modules()]
    with contextlib.chdir(work):
        extensions = mypycify(["--strict", *paths], opt_level="3", group_name=GROUP)
        distribution = Distribution({"name": "canasta-engine", "ext_modules": extensions})
        command: Any = distribution.get_command_obj("build_ext")
        command.build_lib = str(work / "out")
        command.build_temp = str(work / "tmp")
        command.inplace = False
        distribution.run_command("build_ext")
    return work / "out" / "games" / "engine"


def build_check(build: Path) -> None:
    """Import the new build in a fresh interpreter; raise if it does not load or is unused."""
    probe = (
        "import games.engine, games.engine.play, games.engine.compiled as c;"
        "assert c.is_compiled(), 'the build was not used'"
    )
    root = compiled.PACKAGE_DIR.parent.parent
    # Not `CANASTA_ENGINE=pure` from the caller's environment: the check is of the build.
    env = {k: v for k, v in os.environ.items() if k != compiled.MODE_VARIABLE}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        shutil.rmtree(build, ignore_errors=True)
        detail = (result.stderr.strip().splitlines() or [f"exit {result.returncode}"])[-1]
        raise CommandError(f"the compiled engine does not load ({detail}); build removed")


def build_install(built: Path, source_hash: str) -> Path:
    """Put the built modules into _compiled/ with their stamp; returns the directory."""
    staging = compiled.BUILD_DIR.with_name("_compiled.new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    for module in built.glob("*.so"):
        shutil.copy2(module, staging / module.name)
    stamp = {
        "source_hash": source_hash,
        "modules": compiled.compiled_modules(),
        "python": platform.python_version(),
        "mypyc": importlib.metadata.version("mypy"),
    }
    (staging / compiled.STAMP).write_text(json.dumps(stamp, indent=2) + "\n")
    old = compiled.BUILD_DIR.with_name("_compiled.old")
    shutil.rmtree(old, ignore_errors=True)
    if compiled.BUILD_DIR.exists():
        compiled.BUILD_DIR.rename(old)
    staging.rename(compiled.BUILD_DIR)
    shutil.rmtree(old, ignore_errors=True)
    return compiled.BUILD_DIR


class Command(BaseCommand):
    help = "Compile the rules engine with mypyc (optional; the pure-Python engine is the fallback)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--if-available",
            action="store_true",
            help="Skip with a note (exit 0) when mypyc or a C compiler is missing (release step).",
        )
        parser.add_argument("--force", action="store_true", help="Rebuild even when current.")
        parser.add_argument("--remove", action="store_true", help="Remove the compiled build.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["remove"]:
            shutil.rmtree(compiled.BUILD_DIR, ignore_errors=True)
            self.stdout.write(f"compiled engine removed ({compiled.BUILD_DIR})")
            return
        source_hash = compiled.source_hash()
        stamp = compiled.read_stamp() or {}
        if stamp.get("source_hash") == source_hash and not options["force"]:
            self.stdout.write(f"compiled engine is current ({compiled.BUILD_DIR})")
            return
        missing = compiler_missing()
        if missing is not None:
            if options["if_available"]:
                self.stdout.write(
                    f"compiled engine skipped: {missing}; the pure-Python engine runs"
                )
                return
            raise CommandError(f"cannot build the compiled engine: {missing}")
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="engine-build-") as tmp:
            work = Path(tmp)
            sources_copy(work)
            built = extensions_build(work)
            build = build_install(built, source_hash)
        build_check(build)
        seconds = time.monotonic() - started
        modules = len(compiled.compiled_modules())
        self.stdout.write(f"compiled engine built: {modules} modules in {seconds:.0f} s ({build})")
