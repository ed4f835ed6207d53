"""The contract docs under docs/ against the code, wherever a machine can compare them.

docs/formats.md, rules.md, variants.md, fair-shuffle.md and scenarios.md are what
clients and outside checkers build from. These tests fail when the engine gains an
error code, a Table JSON key, an action key, a variant or an option that the docs
do not name, when the shuffle vectors or worked deals quoted in the docs drift from
the code, and when a link between the docs is dead.

Plain pytest: the engine is pure, no Django or database is needed.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from games.engine import ERROR_CODES, VARIANTS, deal
from games.engine.actions import _ALLOWED_KEYS
from games.engine.errors import REASONS
from games.engine.table import _KEYS, END_REASONS, PHASES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ENGINE = ROOT / "games" / "engine"
CONTRACT_DOCS = ("formats.md", "rules.md", "variants.md", "fair-shuffle.md", "scenarios.md")
VECTORS_PATH = ROOT / "tests" / "engine" / "shuffle_vectors.json"
# Calls whose first argument is an error code (errors.py, turn.py, actions.py, melds.py).
_RAISING_CALLS = {"illegal", "IllegalActionError", "EngineError"}
_FENCE = re.compile(r"^(```|~~~)")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _read(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The text under the first heading that is exactly ``heading``, up to the next heading
    of the same or a higher level."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = re.match(r"^(#+) (.*)$", line)
        if match and match.group(2).strip() == heading:
            level = len(match.group(1))
            body: list[str] = []
            for rest in lines[index + 1 :]:
                nxt = re.match(r"^(#+) ", rest)
                if nxt and len(nxt.group(1)) <= level:
                    break
                body.append(rest)
            return "\n".join(body)
    raise AssertionError(f"no heading {heading!r}")


def _table_rows(text: str) -> list[list[str]]:
    """Cells of every Markdown table row in ``text`` (header and separator rows left out)."""
    rows: list[list[str]] = []
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if all(re.fullmatch(r":?-+:?", cell) for cell in cells):
            continue
        rows.append(cells)
    return rows[1:] if rows else rows


def _code_names(cell: str) -> set[str]:
    """Names written in backticks in a table cell: "`a`, `b`" -> {"a", "b"}."""
    return set(re.findall(r"`([^`]+)`", cell))


def _engine_raised_codes() -> set[str]:
    """Every error code that appears as a literal first argument of a raising call."""
    codes: set[str] = set()
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name == "InvalidTableError":
                codes.add("invalid_table")
            elif name in _RAISING_CALLS and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    # the engine raises a reason; REASONS gives its code (an unknown one fails)
                    reason = REASONS.get(first.value)
                    codes.add(reason.code if reason is not None else first.value)
    return codes


# --- error codes ------------------------------------------------------------------------


def _documented_error_codes() -> list[str]:
    rows = _table_rows(_section(_read("formats.md"), "Error codes"))
    return [code for row in rows for code in _code_names(row[0])]


def test_the_engine_raises_only_codes_it_declares():
    raised = _engine_raised_codes()
    assert raised, "the scan found no raising call: the engine's error helpers were renamed"
    assert raised <= ERROR_CODES, sorted(raised - ERROR_CODES)


def test_every_error_code_has_exactly_one_row_in_formats_md():
    documented = _documented_error_codes()
    duplicates = sorted(code for code, n in Counter(documented).items() if n > 1)
    assert not duplicates, duplicates
    missing = sorted((ERROR_CODES | _engine_raised_codes()) - set(documented))
    assert not missing, (
        f"error codes the engine can give but docs/formats.md does not list: {missing}"
    )
    stale = sorted(set(documented) - ERROR_CODES)
    assert not stale, f"docs/formats.md lists codes the engine does not have: {stale}"


# --- Table JSON, phases, actions -----------------------------------------------------------


def test_every_table_json_key_is_documented():
    rows = _table_rows(_section(_read("formats.md"), "Table JSON: one hand, everything in it"))
    documented = {name for row in rows for name in _code_names(row[0])}
    missing = sorted(_KEYS - documented)
    assert not missing, f"Table JSON keys missing from docs/formats.md: {missing}"


def test_every_phase_and_end_reason_is_documented():
    section = _section(_read("formats.md"), "Table JSON: one hand, everything in it")
    phases = {name for row in _table_rows(section) for name in _code_names(row[0])}
    assert set(PHASES) <= phases, sorted(set(PHASES) - phases)
    for reason in END_REASONS:
        assert f'"{reason}"' in section, reason


def test_every_action_type_and_key_is_documented():
    rows = _table_rows(_section(_read("formats.md"), "Actions"))
    by_type: dict[str, str] = {}
    for row in rows:
        match = re.search(r'"type": "([a-z_]+)"', row[0])
        if match:
            by_type[match.group(1)] = row[0]
    assert set(by_type) == set(_ALLOWED_KEYS), sorted(set(by_type) ^ set(_ALLOWED_KEYS))
    for kind, keys in _ALLOWED_KEYS.items():
        for key in keys:
            assert f'"{key}"' in by_type[kind], f"{kind}: key {key} not shown in docs/formats.md"


# --- variants and options -----------------------------------------------------------------


def _shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_every_variant_option_and_choice_is_in_variants_md():
    text = _read("variants.md")
    rows = _table_rows(_section(text, "Table options"))
    for rules in VARIANTS.values():
        assert f"## {rules.name}" in text, f"docs/variants.md has no section for {rules.name}"
        for option in rules.options:
            matching = [
                row
                for row in rows
                if option.name in _code_names(row[1])
                and (row[0] == "all" or rules.name in _code_names(row[0]))
            ]
            assert len(matching) == 1, f"{rules.name}: option {option.name} needs one row"
            row = matching[0]
            assert _shown(option.default) in _code_names(row[3]) | {row[3]}, (
                f"{rules.name}.{option.name}: default {option.default!r} not shown as {row[3]!r}"
            )
            for choice in option.choices:
                assert _shown(choice) in _code_names(row[2]), (
                    f"{rules.name}.{option.name}: choice {choice!r} missing"
                )
            if option.minimum is not None:
                assert f"{option.minimum:,}" in row[2] and f"{option.maximum:,}" in row[2]


def test_deck_sizes_in_fair_shuffle_md_match_the_rule_sets():
    rows = _table_rows(_section(_read("fair-shuffle.md"), "The unshuffled deck"))
    table = {row[0].strip("`"): (int(row[1]), int(row[2]), int(row[3])) for row in rows}
    for rules in VARIANTS.values():
        assert table[rules.name] == (rules.packs, rules.jokers, len(rules.deck())), rules.name


# --- classic numbers ------------------------------------------------------------------------


def _score_points(cell: str) -> list[int]:
    """Scores a row of the minimum table speaks of: "below 0" -> [-1], "0 to 1,499" -> [0, 1499]."""
    numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", cell)]
    if cell.startswith("below"):
        return [numbers[0] - 1, numbers[0] - 1000]
    if "or more" in cell:
        return [numbers[0], numbers[0] * 10]
    return numbers


def test_the_initial_meld_table_in_rules_md_is_the_engine_s():
    rows = _table_rows(_section(_read("rules.md"), "The initial meld"))
    assert len(rows) == 4
    minimum = VARIANTS["classic"].minimum_for_score
    for cell, value in rows:
        for score in _score_points(cell):
            assert minimum(score) == int(value), f"score {score}: engine {minimum(score)}"


_VALUE_NAMES = {
    "joker": ["JK"],
    "2": ["2S", "2H"],
    "ace": ["AS", "AD"],
    "black three": ["3S", "3C"],
}


def test_the_card_values_in_rules_md_are_the_engine_s():
    rows = _table_rows(_section(_read("rules.md"), "Cards and their values"))
    value = VARIANTS["classic"].card_value
    checked = 0
    for cell, points in rows:
        if not points.isdigit():
            assert value("3H") == 0 and "red three" in cell  # bonus only
            continue
        for name in (part.strip() for part in cell.split(",")):
            rank = "T" if name == "10" else name
            cards = _VALUE_NAMES.get(name) or [rank + suit for suit in "SHDC"]
            for card in cards:
                assert value(card) == int(points), f"{card}: engine {value(card)}, docs {points}"
                checked += 1
    assert checked >= 40


# --- the shuffle ----------------------------------------------------------------------------


def _quoted_vectors() -> list[dict[str, Any]]:
    text = _read("fair-shuffle.md")
    vectors: list[dict[str, Any]] = []
    for block in re.findall(r"```text\n(.*?)```", _section(text, "Test vectors"), re.S):
        fields = dict(line.split(":", 1) for line in block.strip().splitlines() if ":" in line)
        vectors.append(
            {
                "seed": fields["seed"].strip(),
                "variant": fields["variant"].strip(),
                "commitment": fields["commitment"].strip(),
                "deck": fields["deck"].split(),
            }
        )
    return vectors


def test_the_vectors_quoted_in_fair_shuffle_md_are_the_published_ones():
    published = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))["vectors"]
    quoted = _quoted_vectors()
    assert len(quoted) == len(published)
    for doc, ref in zip(quoted, published, strict=True):
        assert doc == {k: ref[k] for k in ("seed", "variant", "commitment", "deck")}


def _worked_deals() -> list[dict[str, Any]]:
    blocks = re.findall(r"```json deal\n(.*?)```", _read("fair-shuffle.md"), re.S)
    return [json.loads(block) for block in blocks]


def test_fair_shuffle_md_has_worked_deals():
    assert len(_worked_deals()) >= 2


@pytest.mark.parametrize("example", _worked_deals(), ids=lambda e: e["variant"])
def test_the_worked_deals_are_what_the_engine_deals(example: dict[str, Any]):
    table = deal(
        example["variant"], example["players"], example["seed"], hand_number=example["hand_number"]
    )
    assert (table.dealer, table.turn, table.phase) == (
        example["dealer"],
        example["turn"],
        example["phase"],
    )
    # Hands and red threes are multisets; the pile and the stock are ordered.
    assert [Counter(h) for h in table.hands] == [Counter(h) for h in example["hands"]]
    assert [Counter(r) for r in table.red_threes] == [Counter(r) for r in example["red_threes"]]
    assert table.discard == example["discard"]
    assert len(table.stock) == example["stock_size"]
    assert table.stock[: len(example["stock_top"])] == example["stock_top"]


# --- links -----------------------------------------------------------------------------------


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    anchors: set[str] = set()
    seen: Counter[str] = Counter()
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        match = re.match(r"^#+ (.*)$", line)
        if match and not in_fence:
            slug = _slug(match.group(1))
            anchors.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
            seen[slug] += 1
    return anchors


def _doc_links() -> list[tuple[str, str]]:
    links: list[tuple[str, str]] = []
    for path in sorted(DOCS.glob("*.md")):
        in_fence = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if _FENCE.match(line):
                in_fence = not in_fence
                continue
            if not in_fence:
                links += [(path.name, target) for target in _LINK.findall(line)]
    return links


def test_links_between_the_docs_resolve():
    checked = 0
    for source, target in _doc_links():
        if re.match(r"^[a-z]+:", target):
            continue  # an outside address
        file_part, _, anchor = target.partition("#")
        path = (DOCS / source) if not file_part else (DOCS / file_part).resolve()
        assert path.is_file(), f"docs/{source}: dead link {target}"
        if anchor:
            assert anchor in _anchors(path), f"docs/{source}: no heading for #{anchor} in {target}"
        checked += 1
    assert checked >= 20, "the link scan found almost nothing: the pattern is broken"


def test_the_contract_docs_stand_on_their_own():
    for name in (*CONTRACT_DOCS, "engine-notes.md"):
        text = _read(name)
        assert "../shared" not in text and "shared/rules" not in text, name
