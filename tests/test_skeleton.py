import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import OperationalError, connections, transaction
from django.db.backends.sqlite3.base import DatabaseWrapper

ROOT = Path(__file__).resolve().parent.parent


def test_the_health_endpoint_reports_ok_and_sqlite(client, db):
    response = client.get("/api/v1/health/")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "sqlite",
        "components": {"database": "ok", "cache": "ok", "broker": "ok"},
    }


def test_the_openapi_schema_renders_and_lists_the_health_endpoint(client):
    response = client.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert "/api/v1/health/" in schema["paths"]
    assert schema["paths"]["/api/v1/health/"]["get"]["operationId"] == "health"


def test_the_openapi_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yaml"))


def test_the_api_docs_page_serves_swagger_ui_from_our_own_static_files(client):
    response = client.get("/api/docs/")

    assert response.status_code == 200
    assert b"drf_spectacular_sidecar/swagger-ui-dist" in response.content


def test_no_model_change_is_missing_a_migration(db):
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def _sqlite_probe(path: Path, alias: str, **options) -> DatabaseWrapper:
    """A connection configured exactly like `default`, on a file instead of the test database."""
    settings_dict = dict(connections["default"].settings_dict)
    settings_dict["NAME"] = str(path)
    settings_dict["OPTIONS"] = {**settings_dict["OPTIONS"], **options}
    return DatabaseWrapper(settings_dict, alias=alias)


def test_sqlite_connections_use_wal_and_normal_sync(tmp_path, django_db_blocker):
    probe = _sqlite_probe(tmp_path / "probe.sqlite3", "probe")
    with django_db_blocker.unblock():
        try:
            with probe.cursor() as cursor:
                cursor.execute("PRAGMA journal_mode")
                assert cursor.fetchone()[0] == "wal"
                cursor.execute("PRAGMA synchronous")
                assert cursor.fetchone()[0] == 1  # NORMAL
            assert probe.get_connection_params()["timeout"] == 20
        finally:
            probe.close()


def test_a_sqlite_transaction_takes_the_write_lock_when_it_begins(tmp_path, django_db_blocker):
    path = tmp_path / "lock.sqlite3"
    first = _sqlite_probe(path, "first")
    second = _sqlite_probe(path, "second", timeout=0.05)
    connections["first"], connections["second"] = first, second
    try:
        # The first transaction writes nothing: with DEFERRED the second BEGIN would succeed.
        with (
            django_db_blocker.unblock(),
            transaction.atomic(using="first"),
            pytest.raises(OperationalError, match="locked"),
            transaction.atomic(using="second"),
        ):
            pass
    finally:
        first.close()
        second.close()
        del connections["first"]
        del connections["second"]


def _start_django(**env_overrides: str) -> subprocess.CompletedProcess[str]:
    configured = {"SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL"}
    env = {name: value for name, value in os.environ.items() if name not in configured}
    env["DJANGO_SETTINGS_MODULE"] = "canasta_site.settings"
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_settings_refuse_to_start_without_a_secret_key_when_debug_is_off():
    result = _start_django(DEBUG="0")

    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY must be set" in result.stderr


def test_settings_start_when_debug_is_off_and_a_secret_key_is_given():
    result = _start_django(DEBUG="0", SECRET_KEY="x" * 50, ALLOWED_HOSTS="canasta.example")

    assert result.returncode == 0, result.stderr


def test_settings_reject_a_debug_value_that_is_not_a_boolean():
    result = _start_django(DEBUG="maybe")

    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr
