"""No dead link in the docs: README.md, SECURITY.md and every docs/*.md.

Every relative link (`[text](path)`, `[text](path#anchor)`, `[text](#anchor)`, images and
reference definitions `[name]: path` included) must name a file or folder that exists, and
its anchor a heading of the target file, spelled as GitHub spells heading anchors: lower
case, punctuation dropped, spaces to hyphens, `-1`, `-2` ... for repeated headings. Links
inside code (fenced blocks, `inline code`) are text, not links. Outside addresses
(`https:`, `mailto:`) are not fetched.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target) or ![alt](target), with an optional "title"; the text may hold `code`.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:id|name)=\"([^\"]+)\"", re.I)
OUTSIDE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def doc_files() -> list[Path]:
    return [ROOT / "README.md", ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md"))]


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of the lines outside fenced code blocks."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = FENCE.match(line)
        if match:
            if fence is None:
                fence = match.group(1)
            elif match.group(1) == fence:
                fence = None
            continue
        if fence is None:
            lines.append((number, line))
    return lines


def heading_slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link shows its text
    text = text.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: Counter[str] = Counter()
    for _, line in prose_lines(path):
        found.update(HTML_ANCHOR.findall(line))
        match = re.match(r"^ {0,3}#{1,6} +(.*?)(?: +#+)? *$", line)
        if match:
            slug = heading_slug(match.group(1))
            found.add(f"{slug}-{seen[slug]}" if seen[slug] else slug)
            seen[slug] += 1
    return found


@dataclass(frozen=True)
class Link:
    source: Path
    line: int
    target: str

    def __str__(self) -> str:
        return f"{self.source.relative_to(ROOT)}:{self.line}: {self.target}"


def links(path: Path) -> list[Link]:
    found: list[Link] = []
    for number, line in prose_lines(path):
        text = INLINE_CODE.sub("", line)
        targets = INLINE_LINK.findall(text)
        definition = REFERENCE_DEFINITION.match(text)
        if definition:
            targets.append(definition.group(1))
        found += [Link(path, number, target) for target in targets]
    return found


def problem(link: Link) -> str | None:
    """None when the link resolves, else what is wrong."""
    if OUTSIDE.match(link.target):
        return None
    file_part, _, anchor = link.target.partition("#")
    target = (link.source.parent / file_part).resolve() if file_part else link.source
    if not target.exists():
        return "no such file"
    if ROOT not in target.parents and target != ROOT:
        return "points outside the repository"
    if anchor:
        if target.suffix != ".md" or target.is_dir():
            return "an anchor into a file that is not Markdown"
        if anchor not in anchors(target):
            return f"no heading for #{anchor} in {target.relative_to(ROOT)}"
    return None


LINKS = [link for path in doc_files() for link in links(path) if not OUTSIDE.match(link.target)]


def test_every_doc_is_scanned_and_has_links():
    assert (ROOT / "docs" / "README.md") in doc_files()
    sources = {link.source.name for link in LINKS}
    assert {"README.md", "SECURITY.md", "architecture.md"} <= sources
    assert len(LINKS) > 100, "the link scan found almost nothing: the pattern is broken"


@pytest.mark.parametrize("link", LINKS, ids=str)
def test_a_relative_link_resolves(link: Link):
    assert problem(link) is None, f"{link}: {problem(link)}"


def test_github_heading_slugs():
    assert heading_slug("Load test (`bench/load.py`, `scripts/loadtest`)") == (
        "load-test-benchloadpy-scriptsloadtest"
    )
    assert heading_slug('"May I go out?" (option `ask_partner`)') == (
        "may-i-go-out-option-ask_partner"
    )
    assert heading_slug("Table JSON: one hand, everything in it") == (
        "table-json-one-hand-everything-in-it"
    )
    assert heading_slug("Versions, ETags, retries") == "versions-etags-retries"


def test_a_dead_link_and_a_wrong_anchor_are_caught(tmp_path):
    # The check is not vacuous: a missing file and a heading that is not there both fail.
    page = ROOT / "docs" / "README.md"
    assert problem(Link(page, 1, "no-such-file.md")) == "no such file"
    assert "no heading" in (problem(Link(page, 1, "rules.md#no-such-heading")) or "")
    assert problem(Link(page, 1, "rules.md#the-deal")) is None
    assert problem(Link(page, 1, "../README.md#quick-start")) is None
    assert problem(Link(page, 1, "https://example.com/nowhere")) is None


def test_links_in_code_are_not_links(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("`[a](missing.md)`\n\n```\n[b](missing.md)\n```\n[c](there.md)\n")
    assert [link.target for link in links(page)] == ["there.md"]


def test_the_index_lists_every_doc():
    # docs/README.md is where a reader finds a page: a new page must be added to it.
    index = ROOT / "docs" / "README.md"
    listed = {(index.parent / link.target.partition("#")[0]).resolve() for link in links(index)}
    pages = {path.resolve() for path in (ROOT / "docs").glob("*.md") if path != index}
    missing = sorted(path.name for path in pages - listed)
    assert not missing, f"docs/README.md does not list {missing}"
