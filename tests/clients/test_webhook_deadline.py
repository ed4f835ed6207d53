"""A webhook delivery has one wall-clock deadline for connect, send and read together: a
receiver that answers a header line at a time (each read well within the socket timeout)
cannot hold a worker past it. Real sockets on loopback."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from clients.services.netguard import Target
from clients.services.posting import http_post

TIMEOUT = 1.0
# The slow receiver keeps going for this long unless we hang up: far beyond the deadline.
TRICKLE_SECONDS = 12.0


def _trickle(server: socket.socket, interval: float, stop: threading.Event) -> None:
    connection, _ = server.accept()
    with connection:
        connection.settimeout(0.2)
        try:
            connection.recv(65536)  # the request
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            ends = time.monotonic() + TRICKLE_SECONDS
            while time.monotonic() < ends and not stop.is_set():
                time.sleep(interval)
                connection.sendall(b"X-Slow: one more line\r\n")
        except OSError:
            return  # the client hung up: what we want


@pytest.fixture
def slow_receiver() -> Iterator[Target]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    stop = threading.Event()
    thread = threading.Thread(target=_trickle, args=(server, TIMEOUT / 4, stop), daemon=True)
    thread.start()
    yield Target(
        url=f"http://127.0.0.1:{port}/hook",
        scheme="http",
        host="127.0.0.1",
        port=port,
        path="/hook",
        address="127.0.0.1",
    )
    stop.set()
    thread.join(5)
    server.close()


def test_a_receiver_answering_one_line_at_a_time_is_cut_off_at_the_deadline(slow_receiver):
    started = time.monotonic()

    with pytest.raises(TimeoutError) as raised:
        http_post(slow_receiver, b"{}", {"Content-Type": "application/json"}, TIMEOUT)

    elapsed = time.monotonic() - started
    # Each line comes well within the socket timeout; only the total deadline stops it. The
    # margin is for a loaded machine; the receiver would go on for TRICKLE_SECONDS.
    assert TIMEOUT <= elapsed < TIMEOUT + 3, elapsed
    assert "deadline" in str(raised.value)


def test_a_prompt_receiver_is_not_affected():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]

    def answer() -> None:
        connection, _ = server.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    target = Target(f"http://127.0.0.1:{port}/", "http", "127.0.0.1", port, "/", "127.0.0.1")
    try:
        assert http_post(target, b"{}", {}, TIMEOUT) == 204
    finally:
        thread.join(5)
        server.close()
