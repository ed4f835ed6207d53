"""The prunes' building blocks (games.services.retention) and their tasks: bounded chunks,
set-based deletes, references cleared in one statement, a run cut off resuming where it
stopped. The plans on PostgreSQL: tests/integration/test_retention_plans.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.services.retention import sessions_prune
from clients.models import ApiToken, Event, Webhook, WebhookDelivery
from clients.services.retention import events_prune, feed_prune, tokens_prune
from games import tasks
from games.fields import digest
from games.models import Game, IdempotencyRecord, Invitation, Move, Seat
from games.services import retention
from games.services.retention import Budget, Pruned, range_prune, rows_delete
from mailplay.models import InboundMessage, ReplyToken
from mailplay.services.retention import inbound_prune
from notifications.models import GamePresence

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
User = get_user_model()


@pytest.fixture
def game(db: Any) -> Game:
    owner = User.objects.create_user(username="owner", email="owner@example.com")
    return Game.objects.create(variant="classic", players=2, created_by=owner)


def _events(game: Game, ages_in_days: list[float]) -> list[int]:
    rows = [
        Event(game=game, kind="move", seq=n, created_at=NOW - timedelta(days=age))
        for n, age in enumerate(ages_in_days)
    ]
    return [e.pk for e in Event.objects.bulk_create(rows)]


def _records(user: Any, ages_in_hours: list[float]) -> None:
    for n, age in enumerate(ages_in_hours):
        record = IdempotencyRecord.objects.create(user=user, key=f"k{n}", fingerprint="f")
        IdempotencyRecord.objects.filter(pk=record.pk).update(created_at=NOW - timedelta(hours=age))


def _keys() -> set[str]:
    """The keys of the records left (stored as digests: the record's of k0 to k9)."""
    stored = set(IdempotencyRecord.objects.values_list("key", flat=True))
    return {f"k{n}" for n in range(10) if digest(f"k{n}") in stored}


class SpentAfter(Budget):
    """A budget that allows `chunks` chunks, whatever the clock says."""

    def __init__(self, chunks: int) -> None:
        super().__init__()
        self.left = chunks

    def spent(self) -> bool:
        self.left -= 1
        return self.left < 0


def test_a_range_prune_cut_off_resumes_where_it_stopped(game, settings):
    settings.CANASTA_PRUNE_CHUNK = 2
    _records(game.created_by, [30, 29, 28, 27, 26, 1])
    old = IdempotencyRecord.objects.filter(created_at__lt=NOW - timedelta(hours=24))

    first = range_prune(old, key="created_at", budget=SpentAfter(1))
    assert first == Pruned(2, done=False)
    # The oldest two went first; the next run starts at the oldest left.
    assert _keys() == {"k2", "k3", "k4", "k5"}
    assert range_prune(old, key="created_at", budget=Budget()) == Pruned(3, done=True)
    assert _keys() == {"k5"}


def test_a_chunk_is_two_statements_whatever_it_deletes(game, settings):
    settings.CANASTA_PRUNE_CHUNK = 50
    _records(game.created_by, [30] * 40)
    old = IdempotencyRecord.objects.filter(created_at__lt=NOW - timedelta(hours=24))
    with CaptureQueriesContext(connection) as queries:
        assert range_prune(old, key="created_at", budget=Budget()) == Pruned(40, done=True)
    statements = [q["sql"] for q in queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert len(statements) == 2, statements
    assert statements[1].startswith("DELETE") and "ORDER BY" in statements[0]


def test_a_walk_stops_at_the_first_recent_row(game, settings):
    settings.CANASTA_PRUNE_CHUNK = 2
    ids = _events(game, [40, 39, 38, 31, 29, 40])  # the last one committed late: it waits
    assert events_prune(days=30, budget=Budget(), now=NOW) == Pruned(4)
    assert list(Event.objects.values_list("pk", flat=True)) == ids[4:]


def test_a_walk_cut_off_continues_from_the_oldest_left(game, settings):
    settings.CANASTA_PRUNE_CHUNK = 2
    ids = _events(game, [40, 40, 40, 40, 40, 1])
    assert events_prune(days=30, budget=SpentAfter(1), now=NOW) == Pruned(2, done=False)
    assert list(Event.objects.values_list("pk", flat=True)) == ids[2:]
    assert events_prune(days=30, budget=Budget(), now=NOW) == Pruned(3, done=True)
    assert list(Event.objects.values_list("pk", flat=True)) == ids[5:]


def test_deleting_events_keeps_their_delivery_log_with_the_event_cleared(game, settings):
    settings.CANASTA_PRUNE_CHUNK = 100
    hook = Webhook.objects.create(owner=game.created_by, url="http://127.0.0.1:9/", secret="s")
    ids = _events(game, [40] * 30 + [1])
    # Logged recently (kept), for events that are old (deleted).
    WebhookDelivery.objects.bulk_create(
        WebhookDelivery(webhook=hook, event_id=pk, attempt=1, created_at=NOW) for pk in ids
    )
    with CaptureQueriesContext(connection) as queries:
        pruned = events_prune(days=30, budget=Budget(), now=NOW)
    assert pruned == Pruned(30, done=True)
    assert WebhookDelivery.objects.filter(event__isnull=True).count() == 30
    assert WebhookDelivery.objects.get(event__isnull=False).event_id == ids[-1]
    # Set-based: one read, one UPDATE of the log, one DELETE for the 30 events.
    updates = [q for q in queries if q["sql"].startswith("UPDATE")]
    deletes = [q for q in queries if q["sql"].startswith("DELETE")]
    assert len(updates) == 1 and len(deletes) == 1


def test_the_feed_prune_deletes_old_attempts_then_old_events(game):
    hook = Webhook.objects.create(owner=game.created_by, url="http://127.0.0.1:9/", secret="s")
    old, recent = _events(game, [40, 1])
    WebhookDelivery.objects.create(
        webhook=hook, event_id=old, attempt=1, created_at=NOW - timedelta(days=40)
    )
    WebhookDelivery.objects.create(webhook=hook, event_id=recent, attempt=1, created_at=NOW)
    assert feed_prune(days=30, budget=Budget(), now=NOW) == Pruned(2, done=True)
    assert list(Event.objects.values_list("pk", flat=True)) == [recent]
    assert list(WebhookDelivery.objects.values_list("event_id", flat=True)) == [recent]


def test_a_referenced_model_is_never_deleted_without_its_references_handled(game):
    token = ReplyToken.objects.create(
        game=game, user=game.created_by, seat_number=0, token="t" * 32
    )
    with pytest.raises(ValueError, match="ReplyToken is referred to"):
        rows_delete(ReplyToken, [token.pk])
    assert ReplyToken.objects.exists()


def test_idempotency_records_are_kept_a_day(game, settings, time_machine):
    time_machine.move_to(NOW, tick=False)
    settings.CANASTA_IDEMPOTENCY_RETENTION_HOURS = 24
    _records(game.created_by, [25, 23])
    assert retention.idempotency_prune(budget=Budget()) == Pruned(1, done=True)
    assert _keys() == {"k1"}


def test_a_task_that_did_not_finish_queues_its_continuation(game, settings, monkeypatch):
    settings.CANASTA_PRUNE_CHUNK = 1
    _records(game.created_by, [48, 47])
    queued: list[str] = []
    monkeypatch.setattr(
        tasks.prune_idempotency, "apply_async", lambda *a, **kw: queued.append("again")
    )
    # The budget allows one chunk of one record: the task deletes it and queues the rest.
    monkeypatch.setattr(tasks, "Budget", lambda seconds: SpentAfter(1))
    assert tasks.prune_idempotency() == 1 and queued == ["again"]
    # The continuation goes on from the oldest left and finishes.
    monkeypatch.setattr(tasks, "Budget", Budget)
    queued.clear()
    assert tasks.prune_idempotency() == 1 and queued == []
    assert not IdempotencyRecord.objects.exists()


def test_a_task_that_made_no_progress_leaves_the_rest_to_the_next_run(game, settings, monkeypatch):
    settings.CANASTA_PRUNE_SECONDS = 0  # spent at once: no chunk starts
    _records(game.created_by, [48])
    queued: list[str] = []
    monkeypatch.setattr(
        tasks.prune_idempotency, "apply_async", lambda *a, **kw: queued.append("again")
    )
    assert tasks.prune_idempotency() == 0 and queued == []
    assert IdempotencyRecord.objects.count() == 1


def test_a_task_cut_off_by_the_soft_limit_keeps_its_chunks_for_the_next_run(game, settings):
    settings.CANASTA_PRUNE_CHUNK = 1
    _records(game.created_by, [48, 47, 46])
    calls: list[int] = []

    def cut_off_after_a_chunk(budget: Budget) -> Pruned:
        calls.append(1)
        if len(calls) == 1:
            retention.idempotency_prune(budget=SpentAfter(1))
            raise SoftTimeLimitExceeded()
        return retention.idempotency_prune(budget=budget)

    class FakeTask:
        name = "fake.prune"

        def apply_async(self) -> None:
            raise AssertionError("a run cut off does not queue itself")

    assert tasks.prune_run(FakeTask(), cut_off_after_a_chunk) == 0  # type: ignore[arg-type]
    assert IdempotencyRecord.objects.count() == 2  # the committed chunk stays deleted
    assert tasks.prune_run(FakeTask(), cut_off_after_a_chunk) == 2  # type: ignore[arg-type]
    assert not IdempotencyRecord.objects.exists()


# --- retention of finished games and the rest (item by item in docs/operations.md) ---------


def _finished(owner: Any, days_ago: float, *, status: str = "finished") -> Game:
    game = Game.objects.create(
        variant="classic",
        players=2,
        created_by=owner,
        status=status,
        finished_at=NOW - timedelta(days=days_ago) if status != "active" else None,
    )
    seat = Seat.objects.create(game=game, number=0, user=owner, bot_memory={"seen": ["AS"]})
    Move.objects.create(game=game, seq=1, hand=1, seat=seat.number, action={"type": "draw"})
    token = ReplyToken.objects.create(
        game=game, user=owner, seat_number=0, token=f"{game.pk.hex}"[:32]
    )
    InboundMessage.objects.create(
        message_key=f"m{game.pk.hex}", token=token, user=owner, game=game, status="processed"
    )
    GamePresence.objects.create(user=owner, game=game, last_seen_at=NOW)
    Invitation.objects.create(
        game=game,
        inviter=owner,
        email="friend@example.com",
        token=f"i{game.pk.hex}",
        expires_at=NOW,
    )
    return game


def _transient_rows(game: Game) -> dict[str, int]:
    return {
        "tokens": ReplyToken.objects.filter(game=game).count(),
        "inbound": InboundMessage.objects.filter(game=game).count(),
        "presence": GamePresence.objects.filter(game=game).count(),
        "invitations": Invitation.objects.filter(game=game).count(),
        "bot memory": Seat.objects.filter(game=game, bot_memory__isnull=False).count(),
    }


def test_a_game_is_retired_after_its_grace_and_keeps_its_record(game, settings):
    settings.CANASTA_FINISHED_GAME_GRACE_DAYS = 30
    owner = game.created_by
    due = [_finished(owner, 31), _finished(owner, 40, status="aborted")]
    kept = [_finished(owner, 29), _finished(owner, 0, status="active")]

    assert retention.games_retire(budget=Budget(), now=NOW) == Pruned(2, done=True)

    none = dict.fromkeys(["tokens", "inbound", "presence", "invitations", "bot memory"], 0)
    for retired in due:
        assert _transient_rows(retired) == none
        assert Move.objects.filter(game=retired).count() == 1
        assert Game.objects.get(pk=retired.pk).retired_at == NOW
    for game_kept in kept:
        assert set(_transient_rows(game_kept).values()) == {1}
        assert Game.objects.get(pk=game_kept.pk).retired_at is None
    # Retired games are out of the index: the next run finds nothing.
    assert retention.games_retire(budget=Budget(), now=NOW) == Pruned(0, done=True)


def test_retiring_costs_the_same_statements_for_one_game_or_many(game, settings):
    settings.CANASTA_FINISHED_GAME_GRACE_DAYS = 30

    def statements(count: int) -> int:
        for _ in range(count):
            _finished(game.created_by, 31)
        with CaptureQueriesContext(connection) as queries:
            assert retention.games_retire(budget=Budget(), now=NOW).deleted == count
        return len(queries)

    assert statements(1) == statements(6)


def test_inbound_mail_for_no_game_is_kept_its_retention(game, settings):
    settings.CANASTA_INBOUND_RETENTION_DAYS = 30
    for key, days, for_game in (("old", 31, None), ("recent", 29, None), ("game", 40, game)):
        InboundMessage.objects.create(
            message_key=key,
            game=for_game,
            status="refused",
            received_at=NOW - timedelta(days=days),
        )
    assert inbound_prune(budget=Budget(), now=NOW) == Pruned(1, done=True)
    assert sorted(InboundMessage.objects.values_list("message_key", flat=True)) == [
        "game",
        "recent",
    ]


def test_revoked_tokens_are_kept_their_retention(game, settings):
    settings.CANASTA_REVOKED_TOKEN_RETENTION_DAYS = 30
    owner = game.created_by
    for name, revoked in (("old", 31), ("recent", 29), ("live", None)):
        ApiToken.objects.create(
            owner=owner,
            name=name,
            key_hash=name * 8,
            prefix=name,
            revoked_at=None if revoked is None else NOW - timedelta(days=revoked),
        )
    assert tokens_prune(budget=Budget(), now=NOW) == Pruned(1, done=True)
    assert sorted(ApiToken.objects.values_list("name", flat=True)) == ["live", "recent"]


def test_expired_sessions_are_deleted(db):
    from accounts.models import UserSession as Session

    Session.objects.create(session_key="a" * 32, session_data="", expire_date=NOW)
    Session.objects.create(
        session_key="b" * 32, session_data="", expire_date=NOW + timedelta(seconds=1)
    )
    assert sessions_prune(budget=Budget(), now=NOW + timedelta(microseconds=1)) == Pruned(1)
    assert list(Session.objects.values_list("session_key", flat=True)) == ["b" * 32]


def test_beat_runs_every_retention_at_its_interval(settings):
    # What the worker's autodiscovery imports.
    import accounts.tasks  # noqa: F401
    import mailplay.tasks  # noqa: F401
    from canasta_site.celery import app, beat_schedule

    settings.CANASTA_RETENTION_SWEEP_SECONDS = 3600
    settings.CANASTA_EVENTS_PRUNE_SECONDS = 86400
    schedule = beat_schedule()
    expected = {
        "prune-outbox": ("notifications.tasks.prune_outbox", 86400),
        "prune-events": ("clients.tasks.prune_events", 86400),
        "prune-idempotency": ("games.tasks.prune_idempotency", 3600),
        "retire-games": ("games.tasks.retire_games", 3600),
        "archive-moves": ("games.tasks.archive_moves", 3600),
        "prune-inbound": ("mailplay.tasks.prune_inbound", 86400),
        "prune-tokens": ("clients.tasks.prune_tokens", 86400),
        "prune-sessions": ("accounts.tasks.prune_sessions", 86400),
    }
    for name, (task, seconds) in expected.items():
        assert (schedule[name]["task"], schedule[name]["schedule"]) == (task, seconds)
        assert task in app.tasks and app.tasks[task].name == task
