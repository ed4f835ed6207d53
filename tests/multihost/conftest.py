"""The multi-host test needs root (network namespaces), `ip`, `socat`, PostgreSQL and Redis.

Without one of them it skips, or fails when CANASTA_REQUIRE_SERVICES=1 (as in CI), like the
integration tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from tests.multihost.hosts import Lan, tools_missing


def _missing(reason: str) -> None:
    if os.environ.get("CANASTA_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (CANASTA_REQUIRE_SERVICES=1 makes this a failure)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def services() -> None:
    """PostgreSQL is the database of this run, Redis answers, and hosts can be built."""
    if connection.vendor != "postgresql":
        _missing(f"the multi-host test needs PostgreSQL; DATABASE_URL gives {connection.vendor}")
    if not settings.REDIS_URL:
        _missing("the multi-host test needs Redis: set REDIS_URL")
    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as error:
        _missing(f"Redis not reachable at {settings.REDIS_URL}: {error}")
    finally:
        client.close()
    reason = tools_missing()
    if reason:
        _missing(reason)


@pytest.fixture
def lan(services: None, transactional_db: None, tmp_path: Path) -> Iterator[Lan]:
    """The LAN and its hosts, removed at the end whatever happened (after transactional_db:
    every process is dead before the tables are flushed)."""
    network = Lan(tmp_path / "hosts")
    try:
        network.up()
        yield network
    finally:
        network.down()
