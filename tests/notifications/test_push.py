"""Web Push against a push endpoint this test runs on loopback: the message must decrypt with
the subscription's own keys (RFC 8291, aes128gcm) and carry a VAPID signature (RFC 8292) that
our public key verifies; the presence rules are the email's; a 410 removes the subscription.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from games.models import Game
from games.services.errors import GameError
from games.services.moves import moves_submit
from notifications.models import Outbox, OutboxChannel, OutboxStatus, PushSubscription
from notifications.services.outbox import outbox_deliver
from notifications.services.presence import presence_record
from notifications.services.push import push_subscribe, push_unsubscribe
from tests.game_fixtures import start_game
from tests.web.tables import SHOWN_TABLE, set_table

pytestmark = pytest.mark.django_db


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def point(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


class PushService:
    """A push service on 127.0.0.1: keeps what it was sent, answers ``status``."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.status = 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                headers = {k.lower(): v for k, v in self.headers.items()}
                service.received.append((headers, self.rfile.read(length)))
                self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.origin = f"http://127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def service() -> Iterator[PushService]:
    running = PushService()
    yield running
    running.close()


@pytest.fixture
def vapid(settings: Any) -> ec.EllipticCurvePrivateKey:
    key = ec.generate_private_key(ec.SECP256R1())
    settings.VAPID_PRIVATE_KEY = b64(key.private_numbers().private_value.to_bytes(32, "big"))
    settings.VAPID_PUBLIC_KEY = b64(point(key))
    settings.VAPID_SUBJECT = "mailto:ops@example.org"
    settings.CANASTA_PUSH_HOSTS = ["127.0.0.1"]
    settings.CANASTA_PUSH_ALLOW_HTTP = True
    return key


def _device(service: PushService, user: Any) -> tuple[ec.EllipticCurvePrivateKey, bytes]:
    """A browser's subscription: its own key pair and auth secret (RFC 8291)."""
    browser = ec.generate_private_key(ec.SECP256R1())
    secret = os.urandom(16)
    push_subscribe(
        user=user,
        subscription={
            "endpoint": f"{service.origin}/push/{b64(os.urandom(8))}",
            "keys": {"p256dh": b64(point(browser)), "auth": b64(secret)},
        },
    )
    return browser, secret


def _alices_turn(people: dict[str, Any]) -> Game:
    """dave (seat 3) draws and discards: the turn passes to alice (seat 0)."""
    game = set_table(start_game(people), {**SHOWN_TABLE, "turn": 3, "dealer": 2})
    for action in ({"type": "draw"}, {"type": "discard", "card": "6H"}):
        game = moves_submit(
            game_id=game.pk, user=people["dave"], actions=[action], expected_version=game.version
        )
    return game


def _push_row(game: Game) -> Outbox:
    """The push of alice's turn after dave's move (the deal's first turn was pushed too)."""
    return Outbox.objects.filter(game=game, channel=OutboxChannel.PUSH).latest("move_seq")


def _vapid_claims(headers: dict[str, str], key: ec.EllipticCurvePrivateKey) -> dict[str, Any]:
    """The VAPID header's JWT, verified with our public key (ES256), and its claims."""
    scheme, _sep, params = headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert unb64(fields["k"]) == point(key)
    head, body, signature = fields["t"].split(".")
    raw = unb64(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key.public_key().verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    assert json.loads(unb64(head))["alg"] == "ES256"
    return json.loads(unb64(body))


def test_a_turn_is_pushed_encrypted_for_the_device_and_signed(
    people: dict[str, Any], service: PushService, vapid: ec.EllipticCurvePrivateKey
) -> None:
    browser, secret = _device(service, people["alice"])
    game = _alices_turn(people)
    row = _push_row(game)
    assert outbox_deliver(row.pk) == OutboxStatus.SENT
    ((headers, body),) = service.received
    assert headers["content-encoding"] == "aes128gcm" and int(headers["ttl"]) > 0
    message = json.loads(
        http_ece.decrypt(body, private_key=browser, auth_secret=secret, version="aes128gcm")
    )
    assert message["title"].startswith("Your turn: ")
    assert message["body"].startswith("It is your turn in ")
    assert message["url"].endswith(f"/games/{game.pk}/")
    claims = _vapid_claims(headers, vapid)
    assert claims["aud"] == service.origin and claims["sub"] == "mailto:ops@example.org"
    assert claims["exp"] > time.time()
    # Another device's keys cannot read it.
    with pytest.raises(Exception):  # noqa: B017 (http_ece raises a bare Exception subclass)
        http_ece.decrypt(
            body,
            private_key=ec.generate_private_key(ec.SECP256R1()),
            auth_secret=secret,
            version="aes128gcm",
        )


def test_no_push_while_the_page_is_open(
    people: dict[str, Any], service: PushService, vapid: ec.EllipticCurvePrivateKey
) -> None:
    _device(service, people["alice"])
    game = set_table(start_game(people), {**SHOWN_TABLE, "turn": 3, "dealer": 2})
    presence_record(user=people["alice"], game=game)  # the page polls
    for action in ({"type": "draw"}, {"type": "discard", "card": "6H"}):
        game = moves_submit(
            game_id=game.pk, user=people["dave"], actions=[action], expected_version=game.version
        )
    assert outbox_deliver(_push_row(game).pk) == OutboxStatus.SKIPPED
    assert service.received == []


def test_an_expired_subscription_is_removed(
    people: dict[str, Any], service: PushService, vapid: ec.EllipticCurvePrivateKey
) -> None:
    _device(service, people["alice"])
    service.status = 410  # the browser dropped it
    game = _alices_turn(people)
    assert outbox_deliver(_push_row(game).pk) == OutboxStatus.SENT
    assert len(service.received) == 1
    assert not PushSubscription.objects.filter(user=people["alice"]).exists()


def test_subscriptions_only_for_push_services_and_per_device_opt_out(
    people: dict[str, Any], service: PushService, vapid: ec.EllipticCurvePrivateKey, settings: Any
) -> None:
    keys = {"p256dh": b64(point(ec.generate_private_key(ec.SECP256R1()))), "auth": "c2VjcmV0"}
    for endpoint in ("http://10.0.0.1/x", "https://evil.example/push", "file:///etc/passwd"):
        with pytest.raises(GameError):
            push_subscribe(user=people["alice"], subscription={"endpoint": endpoint, "keys": keys})
    with pytest.raises(GameError):
        push_subscribe(user=people["alice"], subscription={"endpoint": service.origin})
    _device(service, people["alice"])
    endpoint = PushSubscription.objects.get(user=people["alice"]).endpoint
    assert push_unsubscribe(user=people["bob"], endpoint=endpoint) == 0  # not bob's
    assert push_unsubscribe(user=people["alice"], endpoint=endpoint) == 1
    # Without a push subscription a turn writes no push row.
    game = _alices_turn(people)
    assert not Outbox.objects.filter(game=game, channel=OutboxChannel.PUSH).exists()
    settings.VAPID_PRIVATE_KEY = ""
    with pytest.raises(GameError):
        _device(service, people["alice"])


def test_the_pages_offer_push_and_take_a_devices_subscription(
    people: dict[str, Any], service: PushService, vapid: ec.EllipticCurvePrivateKey
) -> None:
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(people["alice"])
    page = client.get("/settings/").content.decode()
    assert 'id="push"' in page and b64(point(vapid)) in page
    token = client.cookies["csrftoken"].value
    subscription = {
        "endpoint": f"{service.origin}/push/device",
        "keys": {"p256dh": b64(point(ec.generate_private_key(ec.SECP256R1()))), "auth": "YXV0aA"},
    }
    url = "/settings/push/"
    assert client.post(url, subscription, content_type="application/json").status_code == 403
    made = client.post(url, subscription, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert (
        made.status_code == 201
        and PushSubscription.objects.filter(user=people["alice"]).count() == 1
    )
    bad = client.post(url, "[1", content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_subscription"
    off = client.post(
        "/settings/push/off/",
        {"endpoint": subscription["endpoint"]},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert off.json() == {"removed": 1}
    worker = client.get("/sw.js")
    assert (
        worker["Content-Type"].startswith("text/javascript")
        and b"showNotification" in worker.content
    )
    manifest = client.get("/manifest.webmanifest").json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"


def test_without_vapid_keys_settings_offer_no_push(people: dict[str, Any], settings: Any) -> None:
    from django.test import Client

    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    client = Client()
    client.force_login(people["alice"])
    assert 'id="push"' not in client.get("/settings/").content.decode()
