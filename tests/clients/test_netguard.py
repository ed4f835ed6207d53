"""Server-side request forgery: webhooks go to public http(s) addresses only, checked when the
hook is registered and again at every delivery."""

from __future__ import annotations

import pytest

from clients.models import Webhook, WebhookDelivery
from clients.services import netguard, webhook_delivery
from clients.services.netguard import UnsafeUrl, check_url
from clients.services.webhook_delivery import webhook_run
from clients.services.webhooks import webhook_create
from tests.api.helpers import error_of
from tests.clients.helpers import FakeReceiver, fake_dns, whole_turn

PUBLIC = "93.184.215.14"  # a public address: resolving an IP literal needs no DNS


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://127.8.9.10:8080/",
        "http://localhost:8000/hook",
        "http://10.1.2.3/",
        "http://172.16.0.1/",
        "http://192.168.1.10/",
        "http://169.254.169.254/latest/meta-data/",  # the cloud metadata service
        "http://100.64.0.1/",  # shared address space (carrier NAT)
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://[::1]/",
        "http://[fd00::1]/",
        "http://[fe80::1]/",
        "http://[::ffff:127.0.0.1]/",  # IPv4-mapped loopback
        "http://2130706433/",  # 127.0.0.1 as a single number
    ],
)
def test_it_refuses_private_loopback_and_internal_addresses(url, settings):
    settings.CANASTA_WEBHOOKS_ALLOW_PRIVATE = False
    with pytest.raises(UnsafeUrl):
        check_url(url)


@pytest.mark.parametrize(
    ("name", "addresses"),
    [
        ("metadata.google.internal", ["169.254.169.254"]),
        ("rebind.example", [PUBLIC, "127.0.0.1"]),  # one private answer is enough
        ("intranet.example", ["10.0.0.5"]),
        ("v6.example", ["::1"]),
    ],
)
def test_it_refuses_names_that_resolve_to_internal_addresses(name, addresses, monkeypatch):
    fake_dns(monkeypatch, {name: addresses})
    with pytest.raises(UnsafeUrl, match="private, loopback"):
        check_url(f"https://{name}/hook")


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/",
        "file:///etc/passwd",
        "gopher://example.com/",
        "javascript:alert(1)",
        "http:///nohost",
        "http://user:pass@example.com/",
        "http://example.com:99999/",
    ],
)
def test_it_refuses_other_schemes_and_malformed_urls(url):
    with pytest.raises(UnsafeUrl):
        check_url(url, allow_private=True)


def test_it_accepts_a_public_address_and_keeps_the_checked_one(monkeypatch):
    fake_dns(monkeypatch, {"hooks.example": [PUBLIC]})
    target = check_url("https://hooks.example:8443/in?x=1")
    assert (target.host, target.port, target.path, target.address) == (
        "hooks.example",
        8443,
        "/in?x=1",
        PUBLIC,
    )


def test_the_setting_allows_private_addresses_for_development(settings):
    settings.CANASTA_WEBHOOKS_ALLOW_PRIVATE = True
    assert check_url("http://127.0.0.1:8765/hook").address == "127.0.0.1"


def test_the_api_refuses_to_register_a_webhook_to_a_private_address(clients, settings):
    settings.CANASTA_WEBHOOKS_ALLOW_PRIVATE = False
    response = clients["alice"].post(
        "/api/v1/webhooks/", {"url": "http://169.254.169.254/"}, format="json"
    )
    error = error_of(response, 400)
    assert error["code"] == "unsafe_url"
    assert "169.254.169.254" in error["message"]
    assert not Webhook.objects.exists()


def test_a_name_that_turns_private_after_registration_is_refused_at_delivery(
    users, game, monkeypatch, queued
):
    fake_dns(monkeypatch, {"hooks.example": [PUBLIC]})
    hook, _ = webhook_create(owner=users["alice"], url="http://hooks.example/in")
    receiver = FakeReceiver()
    monkeypatch.setattr(webhook_delivery, "transport", receiver)
    whole_turn(game)
    # DNS rebinding: the same name now points at the loopback interface.
    fake_dns(monkeypatch, {"hooks.example": ["127.0.0.1"]})

    assert webhook_run(hook.pk) == "failed"  # a failed attempt, retried later

    assert receiver.calls == []
    attempt = WebhookDelivery.objects.get()
    assert not attempt.ok and attempt.status_code is None
    assert attempt.error.startswith("refused:") and "not a public host" in attempt.error
    assert "127.0.0.1" not in attempt.error  # the owner reads it: no resolver for our network
    assert netguard.address_refusal("127.0.0.1")


def test_site_local_ipv6_is_refused_and_a_refusal_does_not_say_what_a_name_resolves_to(
    monkeypatch, settings
):
    # Issue 26, item 10: fec0::/10 was admitted; "vm resolves to 127.0.0.1" answered a
    # question about the service's own network.
    settings.CANASTA_WEBHOOKS_ALLOW_PRIVATE = False
    for url in ("http://[fec0::1]/", "http://[feff::1]/"):
        with pytest.raises(UnsafeUrl):
            check_url(url)
    fake_dns(monkeypatch, {"vm": ["127.0.0.1"], "v6site.example": ["fec0::5"]})
    for name in ("vm", "v6site.example"):
        with pytest.raises(UnsafeUrl) as refused:
            check_url(f"https://{name}/hook")
        assert "127.0.0.1" not in str(refused.value) and "fec0" not in str(refused.value)
        assert "not a public host" in str(refused.value)
