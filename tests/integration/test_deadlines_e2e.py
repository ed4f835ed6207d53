"""Deadlines and bots end to end: real `celery worker` and `celery beat` processes (or the whole
`scripts/serve`) on the test database, sweeping every second, with Redis db 15 or the embedded
filesystem broker; emails land in a file-backend folder of the test's own.

Nobody sleeps for a fixed time: every check polls with a bound (wait_until).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from accounts.services.addresses import confirmation_token
from games import engine
from games.models import Actor, Game, GameState, Move
from games.services import lobby
from games.services.moves import moves_submit
from notifications.models import OPEN_STATUSES, Outbox, OutboxStatus
from notifications.services.presence import PLAYED_REASON
from tests.integration.processes import (
    Mailbox,
    Processes,
    process_env,
    running,
    serve,
    wait_until,
    with_redis_broker,
)

NAMES = ("ann", "ben", "cat", "dan")
PASSWORD = "a-long-enough-password-42"
# A turn of 3 s, swept every second: the first timeout is due within about 4 s of the start.
TURN_SECONDS = 3
WAIT = 40


@pytest.fixture
def mail_dir(tmp_path: Path) -> Path:
    return tmp_path / "mail"


@pytest.fixture
def mailbox(mail_dir: Path) -> Mailbox:
    return Mailbox(mail_dir)


@pytest.fixture
def embedded_env(transactional_db: None, tmp_path: Path, mail_dir: Path) -> dict[str, str]:
    """No REDIS_URL and no CELERY_BROKER_URL: the embedded broker, as scripts/serve runs."""
    return process_env(tmp_path / "var", mail_dir, CANASTA_MIN_TURN_SECONDS="2")


@pytest.fixture
def redis_env(embedded_env: dict[str, str], redis_cache: Any) -> dict[str, str]:
    """Redis db 15 as broker, emptied first."""
    return with_redis_broker(embedded_env, settings.REDIS_URL)


@pytest.fixture
def processes(redis_env: dict[str, str], tmp_path: Path) -> Iterator[Processes]:
    # After transactional_db (through the env): killed before the tables are flushed.
    with running(redis_env, tmp_path) as started:
        yield started


@pytest.fixture
def players(transactional_db: None) -> dict[str, Any]:
    return {
        name: get_user_model().objects.create_user(
            username=name, email=f"{name}@example.com", password=PASSWORD
        )
        for name in NAMES
    }


def _rows_settled(game_id: Any, seen: list[int]) -> bool:
    """No row waits for a worker, and none was added since the last look."""
    count = Outbox.objects.filter(game_id=game_id).count()
    open_rows = Outbox.objects.filter(game_id=game_id, status__in=OPEN_STATUSES).exists()
    settled = not open_rows and seen and seen[-1] == count
    seen.append(count)
    return bool(settled)


def _sent_mail(game_id: Any) -> Counter[tuple[str, str]]:
    """(recipient, kind) of every row marked sent."""
    rows = Outbox.objects.filter(game_id=game_id, status=OutboxStatus.SENT).select_related(
        "recipient"
    )
    return Counter((row.recipient.email, row.kind) for row in rows)


def _first_timeout(game: Game) -> list[Move]:
    moves = list(Move.objects.filter(game=game, actor=Actor.SYSTEM).order_by("seq"))
    return moves if len(moves) >= 2 else []


def _check_the_first_timeout(game_id: Any, silent: int, mailbox: Mailbox) -> None:
    game = Game.objects.get(pk=game_id)
    moves = wait_until(lambda: _first_timeout(game), timeout=WAIT, what="the timeout move")
    assert [(m.seat, m.action["type"]) for m in moves[:2]] == [
        (silent, "draw"),
        (silent, "discard"),
    ]
    nxt = next(s.user for s in game.seats.all() if s.number == (silent + 1) % 4)
    wait_until(
        lambda: mailbox.has_kind(nxt.email, "your_turn"),
        timeout=WAIT,
        what=f"the your_turn email of {nxt.username}, the next player",
    )
    for name in NAMES:
        wait_until(
            lambda n=name: mailbox.has_kind(f"{n}@example.com", "timeout"),
            timeout=WAIT,
            what=f"the timeout email of {name}",
        )


def test_a_silent_table_times_out_is_autoplayed_and_each_event_mailed_once(
    processes, players, mailbox, settings
):
    settings.CANASTA_MIN_TURN_SECONDS = 2
    processes.worker()
    beat = processes.beat()
    processes.ready()

    created = lobby.game_create(
        creator=players["ann"],
        variant="classic",
        players=4,
        options={"seating": "invitation"},
        turn_seconds=TURN_SECONDS,
        timeout_policy="autoplay",
        invite=["ben", "cat", "dan"],
    )
    for name in ("ben", "cat", "dan"):
        game = lobby.game_join(game_id=created.pk, user=players[name])
    assert game.status == "active" and game.deadline is not None
    silent = game.turn_seat  # nobody moves

    try:
        _check_the_first_timeout(game.pk, silent, mailbox)
    except AssertionError:
        print(processes.logs_text())
        raise

    # No more sweeps, so no more timeouts: then every row is delivered and counted.
    processes.kill(beat)
    seen: list[int] = []
    wait_until(lambda: _rows_settled(game.pk, seen), timeout=WAIT, what="the outbox to settle")
    rows = Outbox.objects.filter(game=game)
    # Sent, or (a turn email the worker reached only after the timeout had played the turn)
    # dropped as no longer needed.
    unsent = rows.exclude(status=OutboxStatus.SENT)
    assert set(unsent.values_list("last_error", flat=True)) <= {PLAYED_REASON}
    assert rows.filter(kind="timeout", status=OutboxStatus.SENT).count() >= 4
    assert mailbox.kinds() == _sent_mail(game.pk)  # one email per row: none lost, none twice


def test_the_worker_plays_the_bots_turns_between_the_players_moves(processes, players):
    processes.worker()
    processes.beat()
    processes.ready()

    created = lobby.game_create(
        creator=players["ann"],
        variant="classic",
        players=4,
        options={"seating": "invitation"},
        bots=["basic", "basic", "basic"],
        turn_seconds=600,
    )
    game = Game.objects.get(pk=created.pk)
    assert game.status == "active"
    human = next(s.number for s in game.seats.all() if s.user_id == players["ann"].pk)

    def humans_turn() -> Game | None:
        current = Game.objects.get(pk=game.pk)
        return current if current.turn_seat == human and not current.bot_turn else None

    game = wait_until(humans_turn, timeout=WAIT, what="the bots to play up to the human")
    table = engine.from_json(GameState.objects.get(game=game).table)
    drawn = engine.apply(table, human, {"type": "draw"}).table
    before = Move.objects.filter(game=game).count()
    moves_submit(
        game_id=game.pk,
        user=players["ann"],
        actions=[{"type": "draw"}, {"type": "discard", "card": drawn.hands[human][0]}],
        expected_version=game.version,
    )

    game = wait_until(humans_turn, timeout=WAIT, what="three bot turns, then the human's")
    bot_moves = Move.objects.filter(game=game, seq__gt=before + 2)
    assert bot_moves.exists() and {m.actor for m in bot_moves} == {Actor.BOT}
    assert [s for s in dict.fromkeys(m.seat for m in bot_moves)] == [
        (human + 1) % 4,
        (human + 2) % 4,
        (human + 3) % 4,
    ]
    assert game.deadline is not None  # the human's clock runs again


def test_the_same_with_the_embedded_broker_through_scripts_serve_and_the_api(
    embedded_env, mailbox, tmp_path
):
    assert "REDIS_URL" not in embedded_env and "CELERY_BROKER_URL" not in embedded_env
    with serve(embedded_env, tmp_path / "serve.log") as http:
        tokens = {}
        for name in NAMES:
            status, body = http.call(
                "POST",
                "/auth/register/",
                {"username": name, "password": PASSWORD, "email": f"{name}@example.com"},
            )
            assert status == 201, body
            tokens[name] = body["token"]
            # Each opens the confirmation link of their address (docs/accounts.md): until
            # then the service mails it nothing else.
            user = get_user_model().objects.get(username=name)
            http.token = tokens[name]
            status, body = http.call(
                "POST",
                "/me/email/confirm/",
                {"token": confirmation_token(user=user, address=user.email)},
            )
            assert status == 200, body
        http.token = tokens["ann"]
        status, body = http.call(
            "POST",
            "/games/",
            {
                "variant": "classic",
                "players": 4,
                "options": {"seating": "invitation"},
                "turn_seconds": TURN_SECONDS,
                "timeout_policy": "autoplay",
                "invite": ["ben", "cat", "dan"],
            },
        )
        assert status == 201, body
        game_id = body["id"]
        for name in ("ben", "cat", "dan"):
            http.token = tokens[name]
            status, body = http.call("POST", f"/games/{game_id}/join/")
            assert status == 200, body
        assert body["status"] == "active" and body["deadline"] is not None
        silent = body["turn"]

        def system_moves() -> list[dict[str, Any]]:
            log = http.call("GET", f"/games/{game_id}/moves/")[1]["results"]
            return [m for m in log if m["actor"] == "system"]

        timeout_moves = wait_until(system_moves, timeout=WAIT, what="the timeout in the log")
        assert timeout_moves[0]["seat"] == silent
        try:
            _check_the_first_timeout(game_id, silent, mailbox)
        except AssertionError:
            print((tmp_path / "serve.log").read_text()[-6000:])
            raise
        status, body = http.call("GET", f"/games/{game_id}/")
        presence, timeouts = _presence(body, silent)
        assert presence in ("human", "away") and timeouts >= 1

    # Everything stopped (Ctrl-C): each row marked sent was mailed once, and nothing else
    # but the one confirmation mail of each new account.
    sent = mailbox.kinds()
    confirmations = Counter({key: n for key, n in sent.items() if key[1] == "verify_email"})
    assert confirmations == Counter((f"{name}@example.com", "verify_email") for name in NAMES)
    assert sent - confirmations == _sent_mail(game_id)


def _presence(body: dict[str, Any], seat: int) -> tuple[str, int]:
    shown = next(s for s in body["seats"] if s["seat"] == seat)
    return shown["presence"], shown["timeouts_in_a_row"]
