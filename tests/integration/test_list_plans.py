"""The public archive's pages on PostgreSQL read an index range, not every finished game:
a page after a cursor is (finished_at, id) after the cursor's, newest first, which
`game_archive_idx` holds in that order (games/models.py). Without it, each page sorted every
public finished match ever played."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api.paging import keyset_page
from api.views.records import LAST_FINISHED
from games.models import Game, GameStatus
from games.services.records import archive_public
from tests.integration.plans import text_plan

pytestmark = pytest.mark.integration

FINISHED = 20_000


@pytest.fixture
def archive(db: Any) -> None:
    owner = get_user_model().objects.create_user(username="owner", email="o@example.com")
    start = timezone.now() - timedelta(days=400)
    Game.objects.bulk_create(
        Game(
            variant="classic",
            players=2,
            created_by=owner,
            status=GameStatus.FINISHED if n % 10 else GameStatus.ACTIVE,
            is_public=n % 3 != 0,
            finished_at=start + timedelta(minutes=n) if n % 10 else None,
        )
        for n in range(FINISHED)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_game")


def test_an_archive_page_after_a_cursor_reads_the_archive_index(archive: None) -> None:
    first = keyset_page(archive_public(), LAST_FINISHED, None, 20)
    assert first.next_cursor is not None
    with CaptureQueriesContext(connection) as queries:
        second = keyset_page(archive_public(), LAST_FINISHED, first.next_cursor, 20)

    assert len(second.rows) == 20
    assert second.rows[0].finished_at <= first.rows[-1].finished_at
    [plan] = [text_plan(q["sql"]) for q in queries.captured_queries if "games_game" in q["sql"]]
    assert "game_archive_idx" in plan, plan
    assert "Seq Scan" not in plan and "Sort" not in plan, plan
