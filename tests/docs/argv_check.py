"""Runs a documented Python command up to its argument parsing, then stops (a dry run).

    python tests/docs/argv_check.py manage.py simulate --variant classic ...
    python tests/docs/argv_check.py -m games.engine.shuffle 7 --variant classic

argparse's parse_args (Django's management commands call it too) is wrapped: once the
command's own arguments parse, this prints PARSED and exits 0 before the command does any
work; a bad argument exits 2 with argparse's message, as the real command would. A program
that never calls parse_args just runs to the end (tests/docs/test_commands.py only lets
quick ones through).
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from collections.abc import Sequence
from typing import Any

PARSED = "argv_check: PARSED"
_original_parse_args = argparse.ArgumentParser.parse_args


def _parse_then_stop(
    self: argparse.ArgumentParser, args: Sequence[str] | None = None, namespace: Any = None
) -> Any:
    _original_parse_args(self, args, namespace)
    print(PARSED, flush=True)
    sys.stdout.flush()
    os._exit(0)


def main(argv: list[str]) -> None:
    argparse.ArgumentParser.parse_args = _parse_then_stop  # type: ignore[assignment,method-assign]
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        sys.path.insert(0, os.getcwd())  # as `python -m` does
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
