"""Every table has its retention written down (issue 25): docs/operations.md's retention table
names each table of the service's apps, with how long its rows stay and the task that deletes
them, or why they stay (a game's record, one row per account). A model added without a row
there fails here, before a table grows without bound in production."""

from __future__ import annotations

import re
from pathlib import Path

from django.apps import apps

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
# Django's own tables that nothing in play writes: the permission and content type registry
# (fixed with the code) and the admin's log of operators' edits.
NOT_PLAY = {
    "auth_permission",
    "auth_group",
    "auth_group_permissions",
    "auth_user_groups",
    "auth_user_user_permissions",
    "django_content_type",
    "django_admin_log",
}


def _retention_section() -> str:
    text = DOC.read_text()
    start = text.index("## Retention: what the database keeps")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def _listed_tables() -> set[str]:
    """The backquoted table names in the first column of the section's tables."""
    listed = set()
    for line in _retention_section().splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            listed.update(name.split(".")[0] for name in re.findall(r"`([a-z0-9_]+)[^`]*`", first))
    return listed


def _tables() -> set[str]:
    tables = set()
    for model in apps.get_models(include_auto_created=True):
        if model._meta.managed and not model._meta.proxy:
            tables.add(model._meta.db_table)
    return tables - NOT_PLAY


def test_every_table_has_a_row_in_the_retention_table():
    missing = sorted(_tables() - _listed_tables())
    assert not missing, f"docs/operations.md, Retention: no row for {missing}"


def test_the_retention_table_names_no_table_that_does_not_exist():
    assert not sorted(_listed_tables() - _tables())
