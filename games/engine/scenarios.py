"""The scenario runner (docs/scenarios.md).

    python -m games.engine.scenarios PATH [PATH ...]

PATHs are files or folders (searched recursively for ``*.json``). Prints one
line per scenario, then ``N passed, M failed``; exits 1 if any failed.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import EngineError
from .play import apply
from .scoring import score_hand
from .table import Table, from_json

_ORDERED = {"stock", "discard"}
_RESULT_KEYS = ("scores", "totals", "went_out", "concealed", "match_over", "winner")


@dataclass
class ScenarioResult:
    path: Path
    name: str
    passed: bool
    reason: str = ""


class ScenarioFailure(Exception):
    pass


def _same(key: str, expected: Any, actual: Any) -> bool:
    """Card lists compare as multisets, except stock and discard (in order)."""
    if key in _ORDERED:
        return [str(c).upper() for c in expected] == actual if isinstance(expected, list) else False
    if key in ("hands", "red_threes"):
        if not isinstance(expected, list) or len(expected) != len(actual):
            return False
        return all(
            Counter(str(c).upper() for c in e) == Counter(a)
            for e, a in zip(expected, actual, strict=True)
        )
    if key == "melds":
        if not isinstance(expected, list) or len(expected) != len(actual):
            return False
        for exp_side, act_side in zip(expected, actual, strict=True):
            if not isinstance(exp_side, dict) or set(exp_side) != set(act_side):
                return False
            for rank, cards in exp_side.items():
                if Counter(str(c).upper() for c in cards) != Counter(act_side[rank]):
                    return False
        return True
    return bool(expected == actual)


def _compare(where: str, expected: dict[str, Any], table: Table) -> None:
    actual = table.to_json()
    actual.setdefault("melded", list(table.melded))
    for key, value in expected.items():
        if key not in actual:
            raise ScenarioFailure(f"{where}: table has no key {key!r}")
        if not _same(key, value, actual[key]):
            raise ScenarioFailure(
                f"{where}: {key} is {json.dumps(actual[key])}, expected {json.dumps(value)}"
            )


def run_scenario(data: dict[str, Any]) -> None:
    """Run one scenario; raises ScenarioFailure with the reason when it fails."""
    try:
        table = from_json(data["table"])
    except EngineError as exc:
        raise ScenarioFailure(f"table: {exc.code}: {exc.message}") from None
    for index, step in enumerate(data.get("steps", []), start=1):
        before = table.to_json()
        expected_error = step.get("error")
        try:
            outcome = apply(table, step.get("seat", table.turn), step.get("action"))
        except EngineError as exc:
            if expected_error is None:
                raise ScenarioFailure(
                    f"step {index}: rejected with {exc.code}: {exc.message}"
                ) from None
            if expected_error not in ("*", exc.code):
                raise ScenarioFailure(
                    f"step {index}: rejected with {exc.code} ({exc.message}), expected {expected_error}"
                ) from None
            if table.to_json() != before:
                raise ScenarioFailure(
                    f"step {index}: a rejected action changed the table"
                ) from None
            continue
        if expected_error is not None:
            raise ScenarioFailure(f"step {index}: accepted, expected error {expected_error}")
        table = outcome.table
        if "then" in step:
            _compare(f"step {index} then", step["then"], table)
    expect = data.get("expect", {})
    if "table" in expect:
        _compare("expect.table", expect["table"], table)
    if "hand_over" in expect and expect["hand_over"] != table.over:
        raise ScenarioFailure(
            f"expect.hand_over: the hand is {'over' if table.over else 'not over'}"
        )
    if "result" in expect:
        if not table.over:
            raise ScenarioFailure("expect.result: the hand is not over")
        result = score_hand(table).to_json()
        for key in _RESULT_KEYS:
            if key in expect["result"] and expect["result"][key] != result[key]:
                raise ScenarioFailure(
                    f"expect.result.{key} is {json.dumps(result[key])}, expected "
                    f"{json.dumps(expect['result'][key])} (detail {json.dumps(result['detail'])})"
                )


def scenario_files(paths: Sequence[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(path.rglob("*.json"))
        else:
            yield path


def run_file(path: Path) -> ScenarioResult:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return ScenarioResult(path, path.name, False, f"cannot read: {exc}")
    name = str(data.get("name", path.stem)) if isinstance(data, dict) else path.stem
    if not isinstance(data, dict) or "table" not in data:
        return ScenarioResult(path, name, False, "not a scenario object with a table")
    try:
        run_scenario(data)
    except ScenarioFailure as exc:
        return ScenarioResult(path, name, False, str(exc))
    except Exception as exc:  # a crash is a failure of the engine, reported, not raised
        return ScenarioResult(path, name, False, f"crash: {type(exc).__name__}: {exc}")
    return ScenarioResult(path, name, True)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m games.engine.scenarios PATH [PATH ...]", file=sys.stderr)
        return 2
    passed = failed = 0
    for path in scenario_files(args):
        result = run_file(path)
        if result.passed:
            passed += 1
            print(f"ok    {path}: {result.name}")
        else:
            failed += 1
            print(f"FAIL  {path}: {result.name}: {result.reason}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
