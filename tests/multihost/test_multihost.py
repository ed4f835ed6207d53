"""Nothing assumes one host: two web hosts, two worker hosts and one beat host, each a network
namespace with its own address, hostname and disk, run the Procfile's commands against one
PostgreSQL and one Redis (docs/multi-host.md). Games with bot seats and humans who get every
turn by email are played through both web hosts; one web host and one worker host die
mid-run. Then:

- no request failed except those in flight on the web host when it died;
- every move the client was told was accepted is in the server's move log exactly once, and
  the log has no human move the client did not send (a move whose answer died with the host
  is there at most once);
- every email was sent exactly once (the file backend writes into one shared folder, which
  stands in for the mail server; the outbox rows say what should have gone);
- `manage.py verify_games` replays every game without a difference.

Run: DATABASE_URL=postgres://... REDIS_URL=redis://.../N pytest -m multihost tests/multihost
"""

from __future__ import annotations

import io
import os
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection

from clients.services.tokens import account_token_create
from games.models import Actor, Game, Move
from notifications.models import OPEN_STATUSES, Outbox, OutboxStatus
from tests.integration.processes import Mailbox, wait_until
from tests.multihost.client import Balancer, HostFailed, Table, table_play, table_watch
from tests.multihost.hosts import SERVICES_ADDRESS, VENV_BIN, Host, Lan

pytestmark = pytest.mark.multihost

GAMES = 8
PORT = 8000  # every web host listens on the same port, as separate machines would
PLAY_SECONDS = 36
KILL_AFTER = 14  # seconds into the play: the web and worker host die together
START_TIMEOUT = 90
SETTLE_TIMEOUT = 60


def _database_url(lan_port: int) -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{urllib.parse.quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{SERVICES_ADDRESS}:{lan_port}/{db['NAME']}"


def _redis_parts() -> tuple[str, int, str]:
    url = urllib.parse.urlsplit(settings.REDIS_URL)
    return url.hostname or "127.0.0.1", url.port or 6379, url.path.strip("/") or "0"


def _host_env(host: Host, shared: dict[str, str]) -> dict[str, str]:
    """What one host's processes see: the shared settings, and its own disk."""
    return {
        **shared,
        "CANASTA_VAR_DIR": str(host.disk / "var"),
        "STATIC_ROOT": str(host.disk / "static"),
    }


def _shared_env(lan: Lan, mail_dir: Path) -> dict[str, str]:
    """The settings every host must share (docs/multi-host.md), read here from a clean
    environment: nothing of the developer's shell leaks in."""
    pg_port = lan.forward(
        connection.settings_dict["HOST"] or "127.0.0.1",
        int(connection.settings_dict["PORT"] or 5432),
    )
    redis_host, redis_port, redis_db = _redis_parts()
    redis_lan_port = lan.forward(redis_host, redis_port)
    return {
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "PYTHONUNBUFFERED": "1",
        "DJANGO_SETTINGS_MODULE": "canasta_site.settings",
        "PORT": str(PORT),
        "DEBUG": "0",
        "SECRET_KEY": "multi-host-test-only-" + "s" * 40,
        "ALLOWED_HOSTS": ",".join(
            h.address for h in lan.hosts.values() if h.name.startswith("web")
        ),
        # Plain HTTP between the balancer and the web hosts (TLS ends at the balancer).
        "SECURE_SSL_REDIRECT": "0",
        "CANASTA_SITE_URL": "https://canasta.example",
        "DATABASE_URL": _database_url(pg_port),
        "REDIS_URL": f"redis://{SERVICES_ADDRESS}:{redis_lan_port}/{redis_db}",
        # One client plays every seat as fast as it can: the per-client limits would cap it.
        "THROTTLE_ANON_RATE": "100000000/min",
        "THROTTLE_READ_RATE": "100000000/min",
        "THROTTLE_PLAY_RATE": "100000000/min",
        # The mail server: one folder every worker host writes into.
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": str(mail_dir),
        # Recovery after a host dies, in seconds instead of minutes: a row claimed by the dead
        # worker is taken again after the visibility timeout, a lost bot turn is queued again.
        "CANASTA_SWEEP_SECONDS": "1",
        "CANASTA_DEADLINE_SWEEP_SECONDS": "1",
        "CANASTA_DIGEST_SECONDS": "3600",
        # Turn and hand-over emails at once: the test waits for every row to be delivered.
        "CANASTA_TURN_EMAIL_DELAY_MINUTES": "0",
        "CANASTA_OUTBOX_VISIBILITY_SECONDS": "5",
        "CANASTA_OUTBOX_BACKOFF_SECONDS": "1",
        "CANASTA_BOT_STALE_SECONDS": "3",
        "LOG_LEVEL": "INFO",
    }


def _hosts_start(lan: Lan, mail_dir: Path) -> None:
    for name in ("web1", "web2", "work1", "work2", "beat"):
        lan.host(name)
    shared = _shared_env(lan, mail_dir)
    kinds = {"web1": "web", "web2": "web", "work1": "worker", "work2": "worker", "beat": "beat"}
    for name, kind in kinds.items():
        host = lan.hosts[name]
        host.start(kind, _host_env(host, shared))


def _ready(host: Host, marker: str) -> bool:
    host.check_running()
    return marker in host.log_text()


def _web_ready(balancer: Balancer, host: Host) -> bool:
    host.check_running()
    try:
        return balancer.call("GET", "/health/", "").status == 200
    except HostFailed:
        return False


def _hosts_ready(lan: Lan) -> None:
    for name in ("work1", "work2"):
        wait_until(lambda n=name: _ready(lan.hosts[n], " ready."), timeout=START_TIMEOUT, what=name)
    wait_until(
        lambda: _ready(lan.hosts["beat"], "Sending due task"), timeout=START_TIMEOUT, what="beat"
    )
    for name in ("web1", "web2"):
        one = Balancer({name: f"http://{lan.hosts[name].address}:{PORT}/api/v1"})
        wait_until(
            lambda h=lan.hosts[name], b=one: _web_ready(b, h), timeout=START_TIMEOUT, what=name
        )


def _players(count: int) -> list[tuple[str, str]]:
    """(username, token) of ``count`` people (no password: the API token is how they play)."""
    made = []
    for number in range(count):
        user = get_user_model().objects.create_user(
            username=f"p{number:02d}", email=f"p{number:02d}@example.com"
        )
        made.append((user.username, account_token_create(owner=user)[1]))
    return made


def _table_create(balancer: Balancer, first: tuple[str, str], second: tuple[str, str]) -> Table:
    """A four-seat game of two people and two bots, created on one web host, joined on
    whichever the balancer picks next."""
    for _, token in (first, second):
        answer = balancer.call("PATCH", "/me/preferences/", token, {"email_mode": "every_turn"})
        assert answer.status == 200, answer
    answer = balancer.call(
        "POST",
        "/games/",
        first[1],
        {
            "variant": "classic",
            "players": 4,
            "options": {"seating": "invitation"},
            "invite": [second[0]],
            "bots": ["basic", "basic"],
        },
    )
    assert answer.status == 201, answer
    game_id = answer.body["id"]
    answer = balancer.call("POST", f"/games/{game_id}/join/", second[1])
    assert answer.status in (200, 201), answer
    answer = balancer.call("GET", f"/games/{game_id}/", first[1])
    assert answer.status == 200 and answer.body["status"] == "active", answer
    tokens = dict((first, second))
    humans = {
        s["seat"]: tokens[s["username"]] for s in answer.body["seats"] if s["username"] in tokens
    }
    assert len(humans) == 2, answer.body["seats"]
    return Table(id=game_id, humans=humans)


def _guarded(table: Table, play: Callable[..., None], *args: Any) -> None:
    """Run a player or watcher thread; whatever it raises is reported with its game."""
    try:
        play(*args)
    except Exception as error:  # any: reported by the test, with its game
        table.problems.append(f"{play.__name__}: {error!r}")


@dataclass
class Deaths:
    """What the run looked like when web1 and work1 died."""

    served: dict[str, int]  # requests each web host had answered
    in_flight: int  # requests on web1 when the balancer took it out
    tasks: int  # tasks work1 had finished


def _play_with_deaths(lan: Lan, balancer: Balancer, tables: list[Table]) -> Deaths:
    """A player thread per game and a watcher on every other game (the load) for
    PLAY_SECONDS; web1 and work1 die KILL_AFTER seconds in."""
    until = time.monotonic() + PLAY_SECONDS
    threads = [
        threading.Thread(target=_guarded, args=(t, table_play, balancer, t, until, n))
        for n, t in enumerate(tables)
    ] + [
        threading.Thread(target=_guarded, args=(t, table_watch, balancer, t, until))
        for t in tables[1::2]
    ]
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, until - PLAY_SECONDS + KILL_AFTER - time.monotonic()))
    served = dict(balancer.served)
    in_flight = balancer.take_out("web1")
    lan.hosts["web1"].kill()
    lan.hosts["work1"].kill()
    deaths = Deaths(served=served, in_flight=in_flight, tasks=_tasks_done(lan.hosts["work1"]))
    for thread in threads:
        thread.join(timeout=PLAY_SECONDS + 60)
    assert not any(t.is_alive() for t in threads), _report(lan, balancer, tables)
    return deaths


def _tasks_done(host: Host) -> int:
    return host.log_text().count("] succeeded in ")


def _quiet(game_ids: list[str], seen: list[tuple[int, int]]) -> bool:
    """No bot turn waiting, no outbox row waiting, and nothing new since the last look."""
    if Game.objects.filter(pk__in=game_ids, status="active", bot_turn=True).exists():
        return False
    if Outbox.objects.filter(status__in=OPEN_STATUSES).exists():
        return False
    now = (Move.objects.filter(game_id__in=game_ids).count(), Outbox.objects.count())
    settled = bool(seen) and seen[-1] == now
    seen.append(now)
    return settled


def _log_matches(table: Table) -> str | None:
    """None if the server's human moves are exactly the accepted ones, each once, plus
    possibly each unknown one (at most once, in its place); else what differs."""
    server = [
        (move.seat, move.action)
        for move in Move.objects.filter(game_id=table.id, actor=Actor.PLAYER).order_by("seq")
    ]
    # Every way the attempts can line up with the log: positions reached so far.
    positions = {0}
    for seat, action, outcome in table.attempts:
        reached = {j + 1 for j in positions if j < len(server) and server[j] == (seat, action)}
        if outcome == "unknown":
            reached |= positions
        positions = reached
        if not positions:
            return f"no match at the attempt {(seat, action, outcome)}"
    if len(server) not in positions:
        return f"the server log has {len(server)} human moves; the client accounts for fewer"
    return None


def _sent_mail(game_ids: list[str]) -> Counter[tuple[str, str]]:
    """(recipient, kind) of every row marked sent (a sent row keeps no payload to render its
    subject from: Mailbox.kinds reads the kind from the message's X-Canasta-Kind)."""
    rows = Outbox.objects.filter(game_id__in=game_ids, status=OutboxStatus.SENT)
    return Counter((row.recipient.email, str(row.kind)) for row in rows.select_related("recipient"))


def _report(lan: Lan, balancer: Balancer, tables: list[Table]) -> str:
    lines = [f"served: {dict(balancer.served)}", f"failures: {balancer.failures}"]
    for table in tables:
        lines.append(f"game {table.id}: {table.problems}")
    for host in lan.hosts.values():
        lines.append(f"== {host.name} ==\n{host.log_text()[-3000:]}")
    return "\n".join(lines)


def test_web_and_worker_hosts_die_mid_run_and_nothing_is_lost_or_doubled(
    lan: Lan, tmp_path: Path
) -> None:
    mail_dir = tmp_path / "mail"
    mail_dir.mkdir()
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.flushdb()  # no message left from an earlier run
    client.close()
    _hosts_start(lan, mail_dir)
    _hosts_ready(lan)
    balancer = Balancer(
        {name: f"http://{lan.hosts[name].address}:{PORT}/api/v1" for name in ("web1", "web2")}
    )
    people = _players(2 * GAMES)
    tables = [_table_create(balancer, people[2 * n], people[2 * n + 1]) for n in range(GAMES)]
    game_ids = [t.id for t in tables]

    deaths = _play_with_deaths(lan, balancer, tables)
    for name in ("web2", "work2", "beat"):
        lan.hosts[name].check_running()

    seen: list[tuple[int, int]] = []
    try:
        wait_until(lambda: _quiet(game_ids, seen), timeout=SETTLE_TIMEOUT, what="bots and mail")
    except AssertionError as error:
        raise AssertionError(f"{error}\n{_report(lan, balancer, tables)}") from None
    report = _report(lan, balancer, tables)

    # Both web hosts and both worker hosts did work, the survivors after the deaths too.
    assert deaths.served.get("web1", 0) > 0 and deaths.served.get("web2", 0) > 0, report
    assert balancer.served["web2"] > deaths.served["web2"], report
    assert deaths.tasks > 0, report
    assert _tasks_done(lan.hosts["work2"]) > 0, report

    # No error beyond the dead host's requests in flight.
    assert all(t.problems == [] for t in tables), report
    assert all(f.host == "web1" for f in balancer.failures), report
    assert len(balancer.failures) <= deaths.in_flight, report

    # No lost or duplicated move; the bots played (on the worker hosts).
    for table in tables:
        assert sum(o == "accepted" for *_, o in table.attempts) > 0, report
        assert _log_matches(table) is None, (_log_matches(table), report)
        assert Move.objects.filter(game_id=table.id, actor=Actor.BOT).exists(), report

    # Every email exactly once.
    rows = Outbox.objects.filter(game_id__in=game_ids)
    assert set(rows.values_list("status", flat=True)) <= {OutboxStatus.SENT, OutboxStatus.SKIPPED}
    sent = _sent_mail(game_ids)
    assert sum(sent.values()) >= GAMES, sent
    assert Mailbox(mail_dir).kinds() == sent

    out = io.StringIO()
    call_command("verify_games", *game_ids, stdout=out)
    assert f"{GAMES} games checked, 0 differ" in out.getvalue(), out.getvalue()
    print(_summary(lan, balancer, tables, deaths.in_flight, sent))  # shown with -rP or -s


def _summary(
    lan: Lan, balancer: Balancer, tables: list[Table], in_flight: int, sent: Counter[Any]
) -> str:
    outcomes = Counter(o for t in tables for *_, o in t.attempts)
    bot_moves = Move.objects.filter(game_id__in=[t.id for t in tables], actor=Actor.BOT).count()
    tasks = {name: _tasks_done(lan.hosts[name]) for name in ("work1", "work2")}
    return (
        f"requests served {dict(balancer.served)}; in flight on web1 when it died: "
        f"{in_flight}, failed: {len(balancer.failures)}; human moves {dict(outcomes)}, "
        f"answered on retry from the key's record: {sum(t.replayed for t in tables)}; "
        f"bot moves {bot_moves}; worker tasks {tasks}; emails {sum(sent.values())}"
    )
