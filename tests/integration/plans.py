"""PostgreSQL's plan of a statement, as the plan tests read it (test_retention_plans.py,
test_list_plans.py)."""

from __future__ import annotations

from django.db import connection


def text_plan(sql: str) -> str:
    """EXPLAIN's text plan without costs: the nodes and the indexes they read."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (COSTS OFF) " + sql)
        return "\n".join(row[0] for row in cursor.fetchall())
