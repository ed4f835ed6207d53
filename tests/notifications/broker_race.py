"""One side of the embedded broker race (tests/notifications/test_embedded_broker.py), run as
its own process: `put <folder> <count> <readers> <transport>` writes `count` messages of 64 KB
and then one end mark per reader; `get <folder> <transport>` reads until its end mark and
prints the numbers it read as JSON. An exception ends the process with an error."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from queue import Empty

from kombu import Connection

QUEUE = "celery"


def channel(folder: Path, transport: str):  # type: ignore[no-untyped-def]
    options = {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "processed_folder": str(folder / "claimed"),
    }
    return Connection("filesystem://", transport=transport, transport_options=options).channel()


def put(folder: Path, count: int, readers: int, transport: str) -> None:
    out = channel(folder, transport)
    blob = "x" * 65536  # a write long enough for a reader to look in the middle of it
    for number in range(count):
        out._put(QUEUE, {"n": number, "blob": blob})
    for _ in range(readers):
        out._put(QUEUE, {"n": -1})


def get(folder: Path, transport: str) -> None:
    source = channel(folder, transport)
    seen = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            message = source._get(QUEUE)
        except Empty:
            continue
        if message["n"] == -1:
            break
        assert len(message["blob"]) == 65536
        seen.append(message["n"])
    print(json.dumps(seen))


if __name__ == "__main__":
    if sys.argv[1] == "put":
        put(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        get(Path(sys.argv[2]), sys.argv[3])
