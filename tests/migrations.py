"""Migrating the test database to given migrations, for the tests of a data migration."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate_to(targets: list[tuple[str, str]]) -> Any:
    """Migrate to `targets` (forwards or backwards); the historical apps there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def migrate_latest() -> None:
    """Back to the newest migrations, as the other tests expect the database."""
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
