"""The embedded broker (canasta_site/broker.py) with real processes racing on one folder: a
writer and two readers, as the web process, beat and the worker's processes share the queue
of scripts/serve. Every message is read whole, by exactly one reader, and no reader dies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from kombu import Connection

from canasta_site.broker import Channel, Transport
from tests.notifications import broker_race

ROOT = Path(__file__).resolve().parents[2]
OURS = "canasta_site.broker:Transport"


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.notifications.broker_race", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_readers_racing_a_writer_read_every_message_once_and_whole(tmp_path):
    for name in ("queue", "claimed"):
        (tmp_path / name).mkdir()
    readers = [_start("get", str(tmp_path), OURS) for _ in range(2)]
    writer = _start("put", str(tmp_path), "400", "2", OURS)

    assert writer.wait(timeout=120) == 0, writer.stderr.read() if writer.stderr else ""
    seen: list[int] = []
    for reader in readers:
        out, err = reader.communicate(timeout=120)
        assert reader.returncode == 0, err
        seen += json.loads(out)

    assert sorted(seen) == list(range(400))
    assert list((tmp_path / "queue").iterdir()) == []
    assert list((tmp_path / "claimed").iterdir()) == []


def test_a_message_is_never_visible_under_its_queue_name_before_it_is_whole(tmp_path):
    channel = broker_race.channel(tmp_path, OURS)
    (tmp_path / "queue").mkdir()
    (tmp_path / "claimed").mkdir()
    written: list[str] = []
    real_write = Path.write_bytes

    def watching_write(path: Path, data: bytes) -> int:
        written.append(path.name)
        # Mid-write, nothing a reader would take is in the folder.
        assert [p for p in (tmp_path / "queue").iterdir() if p.name.endswith(".msg")] == []
        return real_write(path, data)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "write_bytes", watching_write)
        channel._put("celery", {"n": 1})
    assert written and written[0].startswith(".")
    assert channel._get("celery") == {"n": 1}


def test_an_unreadable_message_is_dropped_and_the_next_one_read(tmp_path, caplog):
    channel = broker_race.channel(tmp_path, OURS)
    (tmp_path / "queue").mkdir()
    (tmp_path / "claimed").mkdir()
    # "-" sorts before the digits every written message's name begins with.
    (tmp_path / "queue" / "-broken.celery.msg").write_bytes(b"")
    channel._put("celery", {"n": 2})

    assert channel._get("celery") == {"n": 2}
    assert "unreadable message" in caplog.text


def test_one_writers_messages_are_read_in_the_order_it_wrote_them(tmp_path):
    channel = broker_race.channel(tmp_path, OURS)
    (tmp_path / "queue").mkdir()
    (tmp_path / "claimed").mkdir()
    for number in range(300):  # many within one millisecond
        channel._put("celery", {"n": number})
    assert [channel._get("celery")["n"] for _ in range(300)] == list(range(300))


def test_the_settings_select_it_for_the_embedded_broker():
    if not settings.CELERY_BROKER_URL.startswith("filesystem://"):
        pytest.skip("a broker is configured (REDIS_URL or CELERY_BROKER_URL)")
    assert settings.CELERY_BROKER_TRANSPORT == OURS
    assert Transport.Channel is Channel
    folders = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    assert Path(folders["processed_folder"]).parent == Path(folders["data_folder_in"]).parent


def test_without_a_claim_folder_configured_one_is_made_next_to_the_queue(tmp_path):
    (tmp_path / "queue").mkdir()
    options = {
        "data_folder_in": str(tmp_path / "queue"),
        "data_folder_out": str(tmp_path / "queue"),
    }
    channel = Connection("filesystem://", transport=OURS, transport_options=options).channel()
    channel._put("celery", {"n": 3})
    assert channel._get("celery") == {"n": 3}
    assert (tmp_path / "claimed").is_dir()
