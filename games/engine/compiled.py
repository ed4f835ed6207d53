"""Where the optional compiled build of the engine lives, and whether it may be used.

The engine's modules can be compiled with mypyc from this same source (`manage.py
build_engine`, docs/engine-speed.md#the-compiled-build). The extension modules go to
`_compiled/` next to this file, never over the `.py` sources, with `BUILD.json` recording the
hash of the sources they were built from. At import (`games/engine/__init__.py`) the package
puts that directory first on its `__path__` only when the hash still matches, so a stale
build is never loaded: one warning line and the pure-Python modules, which stay the reference.

Standard library only, and never compiled itself: it runs before any compiled module loads.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
BUILD_DIR = PACKAGE_DIR / "_compiled"
STAMP = "BUILD.json"

# `CANASTA_ENGINE=pure` ignores a build (to compare the two, or to rule the build out).
MODE_VARIABLE = "CANASTA_ENGINE"

# Left pure: the package door (it chooses the build), this module, and the modules run with
# `python -m` (a compiled module has no code object for runpy to run).
NOT_COMPILED = frozenset({"__init__", "compiled", "scenarios", "shuffle", "verify"})

logger = logging.getLogger("games.engine")


def compiled_modules() -> list[str]:
    """The engine modules a build compiles (file stems, sorted)."""
    stems = (p.stem for p in PACKAGE_DIR.glob("*.py"))
    return sorted(s for s in stems if s not in NOT_COMPILED)


def source_hash() -> str:
    """SHA-256 over every compiled module's source and the interpreter it is built for."""
    digest = hashlib.sha256(sys.implementation.cache_tag.encode())
    for stem in compiled_modules():
        digest.update(f"\0{stem}\0".encode())
        digest.update((PACKAGE_DIR / f"{stem}.py").read_bytes())
    return digest.hexdigest()


def read_stamp(build_dir: Path | None = None) -> dict[str, str] | None:
    try:
        data = json.loads(((build_dir or BUILD_DIR) / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def usable_build(build_dir: Path | None = None) -> Path | None:
    """The build directory when it matches the sources, else None (a stale build is logged)."""
    build_dir = build_dir or BUILD_DIR
    if os.environ.get(MODE_VARIABLE, "").strip().lower() == "pure" or not build_dir.is_dir():
        return None
    stamp = read_stamp(build_dir)
    if stamp is None:
        return None
    if stamp.get("source_hash") != source_hash():
        logger.warning(
            "compiled engine in %s is stale (sources changed since it was built): "
            "using the pure-Python engine; rebuild with `manage.py build_engine`",
            build_dir,
        )
        return None
    return build_dir


def is_compiled() -> bool:
    """Whether the engine's modules in use are the compiled ones."""
    turn = importlib.import_module(".turn", __package__)
    return not str(turn.__file__).endswith(".py")
