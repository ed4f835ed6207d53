"""Code health beyond ruff: complexity with boolean operators counted (radon), short splits of
the functions that were the most complex, no definition that nothing uses, and no comment,
docstring or doc that cites a file that does not exist (docs/testing.md, "Lint")."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from collections import Counter
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

from tests.docs.test_links import prose_lines
from tests.test_function_length import long_functions

ROOT = Path(__file__).resolve().parents[1]
MAX_COMPLEXITY = 25
MAX_SPLIT_LINES = 25
# The functions that were over MAX_COMPLEXITY (issue 30, item 9): each is now a short
# sequence of named steps, and stays one.
SPLIT_FUNCTIONS = {
    ("games/bots/basic.py", "meld_parts"),
    ("games/bots/basic.py", "take_chance"),
    ("games/engine/actions.py", "parse_action"),
    ("games/engine/pickups.py", "pickup_actions"),
    ("games/engine/randomplay.py", "random_action"),
    ("games/engine/goingout.py", "_plan"),
    ("games/engine/melds.py", "check_meld"),
    ("web/moves.py", "actions"),
    ("examples/email_player.py", "choose_commands"),
}
# Found by the framework, not by name: Django's app registry (AppConfig subclasses) and
# drf-spectacular's extension registry (OpenApiAuthenticationExtension subclasses).
FOUND_BY_SUBCLASSING = {"AppConfig", "OpenApiAuthenticationExtension"}
# A citation: a path with a folder, or a page or module name (bare data file names such as
# `record.json` in a command line are arguments, not citations).
CITATION = re.compile(r"(?<![\w/.:@-])((?:\.\./|[\w.-]+/)+[\w.-]+\.\w+|[\w-]+\.(?:md|py))(?![\w(])")


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [name for name in listed.stdout.splitlines() if (ROOT / name).exists()]


FILES = tracked_files()
SOURCES = [name for name in FILES if name.endswith(".py")]
CODE = [name for name in SOURCES if not name.startswith("tests/")]


def complex_functions(source: str, limit: int = MAX_COMPLEXITY) -> list[tuple[str, int]]:
    """(name, complexity) of the functions and methods over ``limit``, boolean operators
    counted (radon's cyclomatic complexity)."""
    blocks = list(cc_visit(source))
    functions = []
    while blocks:
        block = blocks.pop()
        blocks += getattr(block, "closures", [])  # methods are blocks already
        if isinstance(block, Function):
            functions.append(block)
    return sorted(
        (function.fullname, function.complexity)
        for function in functions
        if function.complexity > limit
    )


def test_the_complexity_check_counts_boolean_operators() -> None:
    condition = " or ".join(f"x == {n}" for n in range(MAX_COMPLEXITY))
    sample = f"def busy(x):\n    if {condition}:\n        return 1\n    return 0\n"
    assert complex_functions(sample) == [("busy", MAX_COMPLEXITY + 1)]
    assert complex_functions("def calm(x):\n    return x or 1\n") == []
    method = "class Busy:\n    d" + sample.replace("\n", "\n    ")[1:]
    assert complex_functions(method) == [("Busy.busy", MAX_COMPLEXITY + 1)]


def test_no_function_is_over_the_complexity_limit() -> None:
    assert len(CODE) > 100
    found = [
        f"{name}::{function} ({complexity})"
        for name in CODE
        for function, complexity in complex_functions((ROOT / name).read_text(encoding="utf-8"))
    ]
    assert not found, "split these along their seams:\n" + "\n".join(found)


def test_the_split_functions_stay_short() -> None:
    for name, function in sorted(SPLIT_FUNCTIONS):
        long = [entry for entry in long_functions(ROOT / name, MAX_SPLIT_LINES)]
        assert function not in {found for found, _ in long}, f"{name}::{function}: {long}"
        tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
        defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        assert function in defined, f"{name} no longer defines {function}: update the list"


def _words() -> Counter[str]:
    """Every identifier-like word of the code, templates and settings (not the docs: a name
    only a page mentions is still unused)."""
    skipped = (".md", ".po", ".mo", ".json", ".eml", ".svg", ".png", ".ico", ".woff2")
    words: Counter[str] = Counter()
    for name in FILES:
        if not name.endswith(skipped):
            words.update(
                re.findall(r"\w+", (ROOT / name).read_text(encoding="utf-8", errors="ignore"))
            )
    return words


def _needs_a_caller(node: ast.stmt) -> bool:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return False
    if node.decorator_list or node.name.startswith("__"):
        return False  # registered by its decorator (admin, receivers, tasks) or a dunder
    if isinstance(node, ast.ClassDef):
        bases = {
            base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
            for base in node.bases
        }
        return not bases & FOUND_BY_SUBCLASSING
    return True


def unused_definitions(sources: dict[str, str], words: Counter[str]) -> list[str]:
    """Module-level functions and classes of ``sources`` (name -> text) whose name appears
    nowhere but in their own definition."""
    found = []
    for name, text in sources.items():
        tree = ast.parse(text)
        found += [
            f"{name}::{node.name}"
            for node in tree.body
            if _needs_a_caller(node) and words[node.name] <= 1  # type: ignore[attr-defined]
        ]
    return found


def test_no_definition_is_unused() -> None:
    code = {
        name: (ROOT / name).read_text(encoding="utf-8")
        for name in CODE
        if "/migrations/" not in name
    }
    unused = unused_definitions(code, _words())
    assert not unused, "nothing uses these (tests included): remove them\n" + "\n".join(unused)


def test_the_unused_check_finds_an_unused_function() -> None:
    sample = "def orphan_function_of_this_test():\n    return 1\n\n\nclass Config(AppConfig):\n    pass\n"
    words = Counter(re.findall(r"\w+", sample))
    assert unused_definitions({"sample.py": sample}, words) == [
        "sample.py::orphan_function_of_this_test"
    ]


def _comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of the comments and docstrings of a Python file."""
    source = path.read_text(encoding="utf-8")
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring and node.body:
                first = node.body[0].lineno
                found += [(first + n, line) for n, line in enumerate(docstring.splitlines())]
    return found


def _cited_texts() -> list[tuple[str, int, str]]:
    texts: list[tuple[str, int, str]] = []
    for name in FILES:
        path = ROOT / name
        if name.endswith(".py"):
            texts += [(name, line, text) for line, text in _comments_and_docstrings(path)]
        elif name.endswith(".md"):
            texts += [(name, line, text) for line, text in prose_lines(path)]
        elif name.endswith(("requirements.txt", "requirements-dev.txt", ".toml")):
            lines = path.read_text(encoding="utf-8").splitlines()
            texts += [(name, n, line) for n, line in enumerate(lines, 1) if "#" in line]
    return texts


def cites_nothing(citation: str, source: str) -> bool:
    """True when ``citation``, cited in the file ``source``, names no file of the repository:
    neither from the root, nor from the citing file's folder, nor as the tail of a path
    (`presence.py`, `web/_card.html` for the template folder). Files under `var/` are written
    by the tests and commands (screenshots, the gallery), never committed."""
    if citation.startswith("var/"):
        return False
    if (ROOT / citation).exists() or (ROOT / source).parent.joinpath(citation).exists():
        return False
    return not any(name == citation or name.endswith("/" + citation.lstrip("./")) for name in FILES)


def dead_citations() -> list[str]:
    return [
        f"{source}:{line}: {citation}"
        for source, line, text in _cited_texts()
        for citation in CITATION.findall(text)
        if cites_nothing(citation, source)
    ]


def test_no_comment_docstring_or_doc_cites_a_missing_file() -> None:
    assert len(_cited_texts()) > 1000  # the scan reads the project
    found = dead_citations()
    assert not found, "these cite files that do not exist:\n" + "\n".join(found)


def test_a_missing_file_is_caught() -> None:
    assert CITATION.findall("see design.md and docs/api-contract.md, not response.json()") == [
        "design.md",
        "docs/api-contract.md",
    ]
    assert cites_nothing("design.md", "games/models.py")
    assert cites_nothing("docs/api-contract.md", "requirements-dev.txt")
    assert not cites_nothing("docs/api.md", "requirements-dev.txt")
    assert not cites_nothing("../README.md", "docs/README.md")
    assert not cites_nothing("presence.py", "notifications/services/outbox.py")
