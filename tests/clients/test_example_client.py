"""The client kit: examples/canasta_client.py plays a seat against three bots through the
event feed until the hand ends, and a real webhook receiver gets signed deliveries."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rest_framework.throttling import SimpleRateThrottle

from clients import selectors
from clients.models import WebhookDelivery
from clients.services.tokens import token_create
from clients.services.webhooks import webhook_create
from games.models import Game, Hand
from tests.clients.test_signing import load_example
from tests.game_fixtures import make_user

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "examples" / "canasta_client.py"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def background_work_in_process(settings: Any, monkeypatch: Any) -> Iterator[None]:
    """Celery tasks (bot turns, outbox deliveries) run in the server's thread as they are
    queued, after each commit; mail stays in memory; the limits stay out of the way."""
    from canasta_site.celery import app

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.CANASTA_EVENTS_POLL_SECONDS = 0.05
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "100000/min", "anon": "100000/min", "auth": "1000/min"},
    )
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def test_the_example_client_plays_a_hand_against_three_bots(live_server):
    ann = make_user("ann")
    _, key = token_create(owner=ann, name="example", scopes=["read", "play"])

    run = subprocess.run(
        [
            sys.executable,
            str(CLIENT),
            "--url",
            live_server.url,
            "--token",
            key,
            "--hands",
            "1",
            "--wait",
            "5",
            "new",
            "--bots",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert run.returncode == 0, run.stderr[-1500:]
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["hands"] == 1
    game = Game.objects.get(pk=summary["game"])
    first = Hand.objects.get(game=game, number=1)
    assert first.finished_at is not None and first.result is not None
    assert summary["totals"] == first.result["totals"]
    assert "played draw" in run.stderr  # it played its own turns
    assert game.moves.filter(actor="player").exists()
    # The hand ended in play: its last move and hand_over were written together.
    feed = selectors.events_after(user=ann, after=0, limit=500)
    (hand_over,) = [e for e in feed if e.game_id == game.pk and e.kind == "hand_over"]
    assert hand_over.payload["hand_result"]["seed"] == first.seed
    last_move = [e for e in feed if e.kind == "move" and e.pk < hand_over.pk][-1]
    assert last_move.seq == hand_over.seq


def test_the_example_client_library_can_be_driven_in_process(live_server):
    client_module = load_example("canasta_client")
    ann = make_user("ann")
    account = client_module.CanastaClient(live_server.url)
    from tests.game_fixtures import PASSWORD

    key = client_module.personal_token(live_server.url, "ann", PASSWORD, "lib")
    client = client_module.CanastaClient(live_server.url, key)
    game = client.create_game(players=2, bots=["basic"])
    assert game["status"] == "active"
    with pytest.raises(client_module.ApiError) as refused:
        client.act(game["id"], [{"type": "discard", "card": "XX"}], game["version"] + 5)
    assert refused.value.status == 409 and refused.value.code == "stale_version"
    assert account.token is None
    # The account token the example signed in with was revoked: only the personal one lives.
    assert ann.api_tokens.filter(kind="account", revoked_at__isnull=False).count() == 1
    assert [t.name for t in ann.api_tokens.filter(kind="personal")] == ["lib"]


def test_webhooks_reach_a_real_receiver_that_verifies_them(live_server, settings):
    settings.CANASTA_WEBHOOKS_ALLOW_PRIVATE = True
    receiver_module = load_example("webhook_receiver")
    received: list[dict[str, Any]] = []
    ann = make_user("ann")
    hook_url = "http://127.0.0.1:{port}/canasta"
    server = receiver_module.Receiver(("127.0.0.1", 0), "pending", received.append)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        hook, secret = webhook_create(
            owner=ann, url=hook_url.format(port=server.server_address[1]), kinds=["your_turn"]
        )
        server.secret = secret
        from games.services import lobby

        game = lobby.game_create(
            creator=ann, variant="classic", players=2, options={}, bots=["basic"]
        )
    finally:
        server.shutdown()
        server.server_close()

    assert received, "no delivery arrived"
    assert all(event["kind"] == "your_turn" for event in received)
    assert received[0]["game"] == str(game.pk) and received[0]["data"]["seat"] is not None
    delivery = WebhookDelivery.objects.filter(webhook=hook).first()
    assert delivery.ok and delivery.status_code == 200
