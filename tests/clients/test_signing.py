"""Webhook signatures: HMAC-SHA256 over "<timestamp>.<body>", checked by the example receiver
exactly as a third party would check them."""

from __future__ import annotations

import importlib.util
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients import signing

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SECRET = "whsec_test-secret"
BODY = b'{"id":7,"kind":"move","game":"g","seq":3,"created_at":"x","data":{}}'


def load_example(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


receiver = load_example("webhook_receiver")


def test_it_signs_timestamp_and_body_with_hmac_sha256():
    import hashlib
    import hmac

    expected = hmac.new(SECRET.encode(), b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert signing.signature(SECRET, 1700000000, BODY) == "sha256=" + expected
    # The example receiver computes the same, with nothing of ours.
    assert receiver.signature(SECRET, "1700000000", BODY) == "sha256=" + expected


@pytest.mark.parametrize("verify", [signing.verify, receiver.verify], ids=["server", "example"])
def test_a_good_signature_verifies(verify):
    now = time.time()
    stamp = str(int(now))
    assert verify(SECRET, stamp, BODY, signing.signature(SECRET, stamp, BODY), now=now)


@pytest.mark.parametrize("verify", [signing.verify, receiver.verify], ids=["server", "example"])
@pytest.mark.parametrize(
    "tamper",
    [
        lambda stamp, body, sig: (stamp, body.replace(b'"seq":3', b'"seq":4'), sig),
        lambda stamp, body, sig: (stamp, body, sig[:-1] + ("0" if sig[-1] != "0" else "1")),
        lambda stamp, body, sig: (str(int(stamp) - 1), body, sig),
        lambda stamp, body, sig: (stamp, body, signing.signature("whsec_other", stamp, body)),
        lambda stamp, body, sig: (stamp, body, None),
        lambda stamp, body, sig: (None, body, sig),
    ],
    ids=["body", "signature", "timestamp", "other-secret", "no-signature", "no-timestamp"],
)
def test_a_tampered_delivery_does_not_verify(verify, tamper):
    now = time.time()
    stamp = str(int(now))
    args = tamper(stamp, BODY, signing.signature(SECRET, stamp, BODY))
    assert not verify(SECRET, *args, now=now)


@pytest.mark.parametrize("verify", [signing.verify, receiver.verify], ids=["server", "example"])
@pytest.mark.parametrize("age", [301, -301, 86400])
def test_a_stale_or_future_timestamp_does_not_verify(verify, age):
    now = time.time()
    stamp = str(int(now - age))
    assert not verify(SECRET, stamp, BODY, signing.signature(SECRET, stamp, BODY), now=now)
    # Inside the tolerance it does.
    recent = str(int(now - 299))
    assert verify(SECRET, recent, BODY, signing.signature(SECRET, recent, BODY), now=now)


@pytest.fixture
def running_receiver() -> Iterator[Any]:
    received: list[dict[str, Any]] = []
    server = receiver.Receiver(("127.0.0.1", 0), SECRET, received.append)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.received = received
    server.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    yield server
    server.shutdown()
    server.server_close()


def _post(url: str, body: bytes, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _headers(stamp: int, body: bytes, event_id: str = "7", secret: str = SECRET) -> dict:
    return {
        "Content-Type": "application/json",
        "X-Canasta-Event-Id": event_id,
        "X-Canasta-Timestamp": str(stamp),
        "X-Canasta-Signature": signing.signature(secret, stamp, body),
    }


def test_the_example_receiver_accepts_good_refuses_bad_and_dedupes(running_receiver):
    now = int(time.time())
    url = running_receiver.url

    assert _post(url, BODY, _headers(now, BODY)) == 200
    assert _post(url, BODY, _headers(now, BODY)) == 200  # a retry: acknowledged, not handled
    assert [event["id"] for event in running_receiver.received] == [7]

    tampered = BODY.replace(b'"seq":3', b'"seq":9')
    assert _post(url, tampered, _headers(now, BODY, "8")) == 401
    assert _post(url, BODY, _headers(now - 3600, BODY, "9")) == 401
    assert _post(url, BODY, _headers(now, BODY, "10", secret="whsec_wrong")) == 401
    assert len(running_receiver.received) == 1
    assert json.loads(BODY) == running_receiver.received[0]
