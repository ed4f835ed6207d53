"""Outside the engine no code compares a bare string with an event's or an action's
`.get("type")`: it asks games.events.is_event / is_action (a Literal kind, checked by mypy)
or narrows a typed event (games.events.game_events)."""

from __future__ import annotations

import re
from pathlib import Path

from games.events import is_action, is_event

ROOT = Path(__file__).resolve().parents[2]
APPS = ("games", "accounts", "clients", "notifications", "mailplay", "api", "web", "canasta_site")
BARE = re.compile(r"""\.get\(\s*["']type["']\s*\)\s*(==|!=|in\b|not in\b)""")
# The engine, and the one place the helpers compare.
ALLOWED = {Path("games/events.py")}


def test_no_bare_type_comparison_outside_the_engine() -> None:
    found = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            relative = path.relative_to(ROOT)
            if relative.parts[:2] == ("games", "engine") or relative in ALLOWED:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if BARE.search(line):
                    found.append(f"{relative}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_helpers_read_raw_json() -> None:
    assert is_event({"type": "meld", "seat": 0}, "meld")
    assert not is_event({"type": "pickup"}, "meld")
    assert is_action({"type": "resign"}, "resign")
    assert not is_action(None, "resign") and not is_action("resign", "resign")
