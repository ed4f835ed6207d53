"""One webhook POST with a wall-clock deadline over connect, TLS handshake, send and read.

A socket timeout bounds each read, not the request: a receiver that sends one header line
every few seconds keeps every read within it and could hold a worker for as long as it likes.
So a timer hangs up on the receiver when the deadline passes, whatever the request is doing,
and every socket operation is given at most the time that is left.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import time

from clients.services.netguard import Target

# What we read of a receiver's answer: only its status matters.
MAX_RESPONSE_BYTES = 64 * 1024


class _Deadline:
    """The request's deadline, and the socket to hang up when it passes."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()

    def remaining(self) -> float:
        left = self.ends - time.monotonic()
        if left <= 0 or self.expired:
            raise self.error()
        return left

    def error(self) -> TimeoutError:
        return TimeoutError(f"no complete answer within the deadline of {self.seconds:g} s")

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            if self.expired:
                self._hang_up()

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            self._hang_up()

    def _hang_up(self) -> None:
        if self._sock is not None:
            # Wakes up a recv or send blocked in the worker's thread at once.
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)


def _connect(target: Target, deadline: _Deadline) -> socket.socket:
    sock = socket.create_connection((target.address, target.port), deadline.remaining())
    deadline.watch(sock)
    sock.settimeout(deadline.remaining())
    return sock


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to the address netguard checked, whatever the name resolves to by now."""

    def __init__(self, target: Target, deadline: _Deadline) -> None:
        super().__init__(target.host, target.port, timeout=deadline.seconds)
        self._target = target
        self._deadline = deadline

    def connect(self) -> None:
        self.sock = _connect(self._target, self._deadline)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, target: Target, deadline: _Deadline) -> None:
        context = ssl.create_default_context()
        super().__init__(target.host, target.port, timeout=deadline.seconds, context=context)
        self._tls = context
        self._target = target
        self._deadline = deadline

    def connect(self) -> None:
        sock = _connect(self._target, self._deadline)
        # The certificate is checked against the URL's host name, not the address. The
        # handshake runs after the wrapped socket is watched, so the deadline covers it too.
        wrapped = self._tls.wrap_socket(
            sock, server_hostname=self.host, do_handshake_on_connect=False
        )
        self._deadline.watch(wrapped)
        wrapped.settimeout(self._deadline.remaining())
        wrapped.do_handshake()
        self.sock = wrapped


def http_post(target: Target, body: bytes, headers: dict[str, str], timeout: float) -> int:
    """POST and return the status; TimeoutError once `timeout` seconds have passed in all.

    Redirects are not followed: a 3xx is a failed delivery."""
    deadline = _Deadline(timeout)
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = kind(target, deadline)
    timer = threading.Timer(timeout, deadline.expire)
    timer.daemon = True
    timer.start()
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        deadline.remaining()
        response = connection.getresponse()
        response.read(MAX_RESPONSE_BYTES)
        deadline.remaining()
        return response.status
    except (OSError, http.client.HTTPException):
        if deadline.expired:
            raise deadline.error() from None
        raise
    finally:
        timer.cancel()
        connection.close()
