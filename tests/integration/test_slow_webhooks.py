"""Two webhook receivers that trickle their answers (one header line at a time, far within
each read's timeout) cannot stop email: a real worker (prefork, two processes, as the
Procfile runs it) cuts each delivery off at its deadline and backs the hooks off, and the
email written meanwhile goes out at once. Before, each delivery held a worker process for as
long as the receiver kept trickling."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from clients.models import WebhookDelivery
from clients.services.webhooks import webhook_create
from games.services import lobby
from tests.integration.processes import Mailbox, process_env, running, wait_until, with_redis_broker
from tests.integration.test_celery_outbox import enqueue, subject

pytestmark = [pytest.mark.integration]

DEADLINE = 2.0  # CANASTA_WEBHOOK_TIMEOUT_SECONDS of the worker
TRICKLE_SECONDS = 120.0


class Trickler:
    """Accepts any number of connections; answers each one header line every 0.3 s."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.stop = threading.Event()
        self.connections = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            threading.Thread(target=self._trickle, args=(connection,), daemon=True).start()

    def _trickle(self, connection: socket.socket) -> None:
        with connection:
            try:
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 200 OK\r\n")
                ends = time.monotonic() + TRICKLE_SECONDS
                while time.monotonic() < ends and not self.stop.is_set():
                    time.sleep(0.3)
                    connection.sendall(b"X-Slow: one more line\r\n")
            except OSError:
                return


@pytest.fixture
def trickler() -> Iterator[Trickler]:
    server = Trickler()
    server.thread.start()
    yield server
    server.stop.set()
    server.thread.join(5)
    server.server.close()


@pytest.fixture
def worker_env(transactional_db: None, tmp_path: Path, redis_cache: Any) -> dict[str, str]:
    env = process_env(
        tmp_path / "var",
        tmp_path / "mail",
        CANASTA_WEBHOOKS_ALLOW_PRIVATE="1",
        CANASTA_WEBHOOK_TIMEOUT_SECONDS=str(DEADLINE),
    )
    return with_redis_broker(env, settings.REDIS_URL)


def test_two_trickling_hooks_cannot_hold_up_email(worker_env, tmp_path, trickler, settings):
    settings.CANASTA_WEBHOOKS_ALLOW_PRIVATE = True
    people = [
        get_user_model().objects.create_user(username=name, email=f"{name}@example.com")
        for name in ("ann", "ben")
    ]
    hooks = [
        webhook_create(owner=person, url=f"http://127.0.0.1:{trickler.port}/hook")[0]
        for person in people
    ]
    mailbox = Mailbox(tmp_path / "mail")
    with running(worker_env, tmp_path) as processes:
        processes.worker("--pool", "prefork", "--concurrency", "2")
        processes.ready()
        # Each person's table against a bot: their your_turn events wake both hooks.
        for person in people:
            lobby.game_create(
                creator=person, variant="classic", players=2, options={}, bots=["basic"]
            )
        wait_until(lambda: trickler.connections >= 2, timeout=30, what="both hooks to be tried")
        # Both worker processes are now (or were) in a trickling delivery.
        started = time.monotonic()
        enqueue(people[0], "slowhook")

        wait_until(
            lambda: mailbox.has("ann@example.com", subject("slowhook")),
            timeout=20,
            what="the email, while both hooks trickle",
        )
        waited = time.monotonic() - started
        wait_until(
            lambda: WebhookDelivery.objects.filter(webhook__in=hooks).count() >= 2,
            timeout=20,
            what="both deliveries to be cut off and logged",
        )

    attempts = list(WebhookDelivery.objects.filter(webhook__in=hooks))
    assert all(not a.ok and "deadline" in a.error for a in attempts), [a.error for a in attempts]
    # Cut off at the deadline (a margin for a loaded machine), not after TRICKLE_SECONDS.
    assert all(a.duration_ms < (DEADLINE + 3) * 1000 for a in attempts)
    assert waited < 20
