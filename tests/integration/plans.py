"""PostgreSQL's plan of a statement, as the plan tests read it (test_retention_plans.py,
test_archive_plans.py, test_list_plans.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from django.db import connection


def text_plan(sql: str) -> str:
    """EXPLAIN's text plan without costs: the nodes and the indexes they read."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (COSTS OFF) " + sql)
        return "\n".join(row[0] for row in cursor.fetchall())


def _plans(statements: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    for sql in statements:
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
            yield sql, cursor.fetchone()[0][0]["Plan"]


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def indexes_used(statements: list[str]) -> set[str]:
    """The indexes the statements' plans read; fails on any sequential scan (SHOW_PLANS=1
    prints each plan)."""
    used: set[str] = set()
    for sql, plan in _plans(statements):
        for node in _nodes(plan):
            assert node["Node Type"] != "Seq Scan", (sql[:200], node)
            if "Index Name" in node:
                used.add(node["Index Name"])
        if os.environ.get("SHOW_PLANS"):
            print(sql[:160], "...\n" + text_plan(sql) + "\n")
    return used
