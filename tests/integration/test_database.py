import threading
from collections.abc import Callable
from typing import Any
from uuid import uuid4

import pytest
import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import BaseCache
from django.core.cache.backends.redis import RedisCache
from django.db import OperationalError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.integration

User = get_user_model()


class Worker(threading.Thread):
    """Runs a function on its own thread, hence on its own database connection."""

    def __init__(self, function: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.function = function
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.function()
        except BaseException as error:
            self.error = error
        finally:
            # An open connection would keep the test database from being dropped.
            connection.close()

    def outcome(self) -> Any:
        self.join(timeout=20)
        assert not self.is_alive(), "worker thread did not finish"
        if self.error is not None:
            raise self.error
        return self.result


def test_it_runs_on_postgresql(db):
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")
        assert cursor.fetchone()[0].startswith("test_")


def test_it_has_applied_every_migration(db):
    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    applied = executor.recorder.applied_migrations()
    assert ("auth", "0001_initial") in applied
    assert ("authtoken", "0001_initial") in applied


def test_the_health_endpoint_reports_postgresql(client, db):
    response = client.get("/api/v1/health/")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "postgresql",
        "components": {"database": "ok", "cache": "ok", "broker": "ok"},
    }


def test_a_locked_row_holds_off_a_second_transaction_until_commit(transactional_db):
    user = User.objects.create(username="contended", first_name="before")
    locked = threading.Event()
    release = threading.Event()
    waiter_acquired = threading.Event()

    def hold_the_lock() -> None:
        with transaction.atomic():
            User.objects.select_for_update().get(pk=user.pk)
            locked.set()
            assert release.wait(timeout=10), "the test never released the lock"
            User.objects.filter(pk=user.pk).update(first_name="holder")

    def try_without_waiting() -> str:
        with transaction.atomic():
            try:
                User.objects.select_for_update(nowait=True).get(pk=user.pk)
            except OperationalError:
                return "refused"
            return "acquired"

    def wait_for_the_lock() -> str:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '15s'")
            row = User.objects.select_for_update().get(pk=user.pk)
            waiter_acquired.set()
            return row.first_name

    holder = Worker(hold_the_lock)
    holder.start()
    assert locked.wait(timeout=10), "the holder never took the lock"

    impatient = Worker(try_without_waiting)
    impatient.start()
    assert impatient.outcome() == "refused"

    waiter = Worker(wait_for_the_lock)
    waiter.start()
    # Only a broken lock can make this fail; a slow thread just makes it pass vacuously.
    assert not waiter_acquired.wait(timeout=0.5), "the second transaction got a locked row"

    release.set()
    holder.outcome()
    assert waiter.outcome() == "holder"


def test_the_cache_is_redis_and_round_trips_a_value(redis_cache: BaseCache):
    assert isinstance(redis_cache, RedisCache)
    key = f"integration-test-{uuid4().hex}"
    value = {"seat": 2, "cards": ["AS", "JK"]}
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        assert client.ping() is True

        redis_cache.set(key, value, timeout=60)

        assert redis_cache.get(key) == value
        assert client.exists(redis_cache.make_and_validate_key(key)) == 1
        redis_cache.delete(key)
        assert redis_cache.get(key) is None
    finally:
        client.close()
