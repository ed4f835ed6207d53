"""Integration tests run against real services: see scripts/test.

Without a service these tests skip, or fail when CANASTA_REQUIRE_SERVICES=1 (as in CI), so a
green CI run always means they ran.
"""

import os
from collections.abc import Iterator

import psycopg
import pytest
import redis
from django.conf import settings
from django.core.cache import BaseCache, caches
from django.db import connection


def _service_missing(reason: str) -> None:
    if os.environ.get("CANASTA_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (CANASTA_REQUIRE_SERVICES=1 makes this a failure)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session", autouse=True)
def postgresql_server() -> None:
    if connection.vendor != "postgresql":
        _service_missing(
            f"integration tests need PostgreSQL but DATABASE_URL gives {connection.vendor}; "
            "run scripts/test, or set DATABASE_URL=postgres://..."
        )
    database = settings.DATABASES["default"]
    params = {
        "host": database["HOST"],
        "port": database["PORT"],
        "user": database["USER"],
        "password": database["PASSWORD"],
        "dbname": database["NAME"],
    }
    try:
        psycopg.connect(**{k: v for k, v in params.items() if v}, connect_timeout=3).close()
    except psycopg.Error as error:
        where = f"{database['HOST'] or 'local socket'}:{database['PORT'] or 5432}"
        _service_missing(f"PostgreSQL not reachable at {where}: {error}")


@pytest.fixture
def redis_cache() -> Iterator[BaseCache]:
    """Django's default cache, checked to be a reachable Redis server."""
    if not settings.REDIS_URL:
        _service_missing("REDIS_URL is not set; integration tests need Redis")
    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as error:
        _service_missing(f"Redis not reachable at {settings.REDIS_URL}: {error}")
    finally:
        client.close()
    yield caches["default"]
