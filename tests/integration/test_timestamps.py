"""PostgreSQL's timestamps are read by psycopg's C loader (canasta_site/timestamps.py) and come
back exactly as Django's own loader gives them: aware, in UTC, to the microsecond."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.backends.postgresql.psycopg_any import BaseTzLoader

pytestmark = pytest.mark.integration

MOMENTS = [
    datetime(2026, 12, 2, 4, 30, 11, 123456, tzinfo=UTC),
    datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    # Written in another zone: read back as the same instant, in UTC.
    datetime(2026, 3, 29, 2, 30, tzinfo=timezone(timedelta(hours=-5))),
    datetime(1, 1, 1, tzinfo=UTC),
]


def test_a_query_reads_timestamps_with_the_c_loader(db: Any) -> None:
    with connection.cursor() as cursor:
        loader = cursor.cursor.adapters.get_loader(1184, 0)
    assert loader.__name__ == "UtcTimestampLoader"
    assert loader.timezone == connection.timezone


@pytest.mark.parametrize("moment", MOMENTS)
def test_a_timestamp_reads_back_as_djangos_loader_reads_it(db: Any, moment: datetime) -> None:
    user = get_user_model().objects.create_user(username="t", email="t@example.com")
    get_user_model().objects.filter(pk=user.pk).update(date_joined=moment)
    read = get_user_model().objects.values_list("date_joined", flat=True).get(pk=user.pk)
    assert read == moment
    assert read.tzinfo is connection.timezone
    with connection.cursor() as cursor:
        cursor.execute("SELECT date_joined::text FROM auth_user WHERE id = %s", [user.pk])
        (text,) = cursor.fetchone()

    class DjangoLoader(BaseTzLoader):
        timezone = connection.timezone

    djangos = DjangoLoader(1184, cursor.cursor.connection).load(text.encode())
    assert (read, read.tzinfo) == (djangos, djangos.tzinfo)
