"""The published client (sdk/, issue 29): installed with pip from its directory, it plays a
whole match against a bot through a live server, with nothing but its own calls: the event
stream (resumed with Last-Event-ID), a turn from `your_turn`, the next batch from the
answer's `your_move`, idempotency keys and RateLimit pacing. It prints the figures of
docs/clients.md (requests per turn, latency from your_turn to the accepted move)."""

from __future__ import annotations

import importlib
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from clients.services.tokens import token_create
from games.models import Game, Hand
from tests.game_fixtures import make_user

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """canasta_sdk as pip installs it from sdk/ (no network: its build needs setuptools only)."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(ROOT / "sdk")],
        check=True,
        capture_output=True,
        timeout=300,
    )  # fmt: skip
    sys.path.insert(0, str(target))
    _forget_sdk()  # another test may have imported it from sdk/src
    try:
        module = importlib.import_module("canasta_sdk")
        assert Path(module.__file__).is_relative_to(target)  # the installed copy
        yield module
    finally:
        sys.path.remove(str(target))
        _forget_sdk()


def _forget_sdk() -> None:
    for name in [name for name in sys.modules if name.split(".")[0] == "canasta_sdk"]:
        del sys.modules[name]


@pytest.fixture(autouse=True)
def bots_in_process(settings: Any) -> Iterator[None]:
    """Bot turns run in the server's thread after each commit; streams end every 3 s so the
    client must resume them."""
    from canasta_site.celery import app

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.CANASTA_EVENTS_POLL_SECONDS = 0.05
    # Short streams, so that even a quick match sees the client resume one (Last-Event-ID).
    settings.CANASTA_EVENTS_STREAM_SECONDS = 0.5
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def _play(sdk: ModuleType, url: str, transport: str) -> tuple[Any, Any]:
    ann = make_user("ann")
    _, key = token_create(owner=ann, name="sdk", scopes=["read", "play"])
    client = sdk.Client(url, key)
    game = client.create_game(players=2, bots=["basic"], options={"target": 100})
    return client, client.play_match(game.id, sdk.simple_strategy, transport=transport)


def _check(client: Any, summary: Any) -> None:
    finished = Game.objects.get(pk=summary.game_id)
    assert finished.status == "finished" and summary.winner_side is not None
    assert summary.hands == Hand.objects.filter(game=finished, finished_at__isnull=False).count()
    assert summary.totals == client.game(summary.game_id).totals
    assert finished.moves.filter(actor="player").count() >= summary.batches > 0
    calls = client.stats.by_operation
    # No GET before a move: the turn's data came with your_turn and your_move. One at most:
    # when the first turn is ours, its your_turn was written before the client's cursor.
    assert calls["GET games/{id}/legal/"] <= 1, calls
    assert calls["GET games/{id}/"] == 2  # once at the start, once for the totals above
    assert calls["POST games/{id}/actions/"] >= summary.batches
    assert client.stats.retries == 0 and client.stats.replays == 0, client.stats


def _report(client: Any, summary: Any, transport: str) -> str:
    calls = client.stats.by_operation
    posts = calls["POST games/{id}/actions/"]
    feed = calls["GET events/"] + calls["GET events/stream/"]
    latencies = sorted(summary.latencies)
    median = statistics.median(latencies) * 1000
    p90 = latencies[int(0.9 * (len(latencies) - 1))] * 1000
    return (
        f"\nsdk match ({transport}): {summary.hands} hand(s), {summary.turns} turns, "
        f"{summary.batches} batches; {posts / summary.turns:.2f} POSTs per turn, "
        f"{(posts + feed) / summary.turns:.2f} requests per turn with the feed's; "
        f"your_turn -> accepted move: median {median:.0f} ms, p90 {p90:.0f} ms; {dict(calls)}"
    )


def test_the_sdk_plays_a_whole_match_against_a_bot_by_long_polls(sdk, live_server, capsys):
    # SQLite (the unit pass) serializes a stream's reads with the moves' writes: long polls.
    client, summary = _play(sdk, live_server.url, "poll")
    _check(client, summary)
    with capsys.disabled():
        print(_report(client, summary, "long polls"))


@pytest.mark.integration
def test_the_sdk_plays_a_whole_match_against_a_bot_by_the_stream(sdk, live_server, capsys):
    # Streams end every 0.5 s on the server: the client resumes them with Last-Event-ID.
    client, summary = _play(sdk, live_server.url, "stream")
    _check(client, summary)
    assert client.stats.by_operation["GET events/stream/"] >= 2  # resumed at least once
    with capsys.disabled():
        print(_report(client, summary, "stream"))
