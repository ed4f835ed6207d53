"""Every scenario file under tests/scenarios passes, and the runner itself behaves."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.scenarios import run_file

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "tests" / "scenarios").rglob("*.json"))


def test_it_has_the_scenario_sets_the_issues_ask_for():
    per_variant = {
        v: len(list((ROOT / "tests/scenarios" / v).glob("*.json")))
        for v in ("classic", "family", "party", "tiles")
    }
    assert per_variant["classic"] >= 60
    assert all(n >= 30 for n in per_variant.values()), per_variant


@pytest.mark.parametrize(
    "path", SCENARIOS, ids=[str(p.relative_to(ROOT / "tests/scenarios")) for p in SCENARIOS]
)
def test_scenario(path: Path):
    result = run_file(path)
    assert result.passed, result.reason


def _write(tmp_path: Path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


TABLE = {
    "variant": "classic",
    "players": 4,
    "dealer": 3,
    "turn": 0,
    "phase": "draw",
    "scores": [0, 0],
    "hands": [["7H", "7D", "KS"], ["4C"], ["JK", "9D"], ["QH", "QS"]],
    "stock": ["5C", "2D"],
    "discard": ["8S", "JK", "9H"],
    "melds": [{"K": ["KH", "KD", "KC"]}, {}],
    "red_threes": [["3H"], []],
    "melded": [False, False, False, False],
}


def test_it_reports_failures_and_exits_non_zero(tmp_path: Path):
    good = _write(
        tmp_path,
        "good.json",
        {
            "name": "draw",
            "table": TABLE,
            "steps": [
                {"seat": 0, "action": {"type": "draw"}, "then": {"phase": "play", "stock": ["2D"]}}
            ],
        },
    )
    wrong_code = _write(
        tmp_path,
        "wrong.json",
        {
            "name": "wrong code",
            "table": TABLE,
            "steps": [{"seat": 1, "action": {"type": "draw"}, "error": "wrong_phase"}],
        },
    )
    wrong_then = _write(
        tmp_path,
        "then.json",
        {
            "name": "wrong then",
            "table": TABLE,
            "steps": [
                {
                    "seat": 0,
                    "action": {"type": "draw"},
                    "then": {"hands": [["7H"], ["4C"], ["JK", "9D"], ["QH", "QS"]]},
                }
            ],
        },
    )
    bad_table = _write(tmp_path, "bad.json", {"name": "bad", "table": {**TABLE, "players": 5}})
    (tmp_path / "broken.json").write_text("{not json")
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine.scenarios", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 1
    lines = proc.stdout.strip().splitlines()
    assert lines[-1] == "1 passed, 4 failed"
    assert any("good.json" in line and line.startswith("ok") for line in lines)
    assert any("rejected with not_your_turn" in line for line in lines)
    assert any("hands is" in line for line in lines)
    assert any("invalid_table" in line for line in lines)
    assert good.exists() and wrong_code.exists() and wrong_then.exists() and bad_table.exists()


def test_it_compares_card_lists_as_multisets_but_stock_and_discard_in_order(tmp_path: Path):
    ok = _write(
        tmp_path,
        "order.json",
        {
            "name": "order",
            "table": TABLE,
            "steps": [],
            "expect": {
                "table": {
                    "hands": [["KS", "7D", "7H"], ["4c"], ["9D", "JK"], ["QS", "QH"]],
                    "discard": ["8S", "JK", "9H"],
                }
            },
        },
    )
    bad = _write(
        tmp_path,
        "order-bad.json",
        {
            "name": "order bad",
            "table": TABLE,
            "steps": [],
            "expect": {"table": {"discard": ["9H", "JK", "8S"]}},
        },
    )
    assert run_file(ok).passed
    assert not run_file(bad).passed


def test_it_checks_a_rejected_step_left_the_table_unchanged_and_accepts_any_code(tmp_path: Path):
    path = _write(
        tmp_path,
        "any.json",
        {
            "name": "any",
            "table": TABLE,
            "steps": [{"seat": 0, "action": {"type": "discard", "card": "7H"}, "error": "*"}],
            "expect": {"hand_over": False},
        },
    )
    assert run_file(path).passed
