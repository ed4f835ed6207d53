"""The admin shows no hidden card and no credential, and nothing in it can change what a player
receives: every ModelAdmin of the project is checked, on a game played by email (so the outbox
holds turn emails, answers with their hands, and reply tokens exist)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from clients.models import Webhook
from clients.services import webhook_delivery
from clients.services.tokens import token_create
from clients.services.webhook_delivery import webhook_run
from clients.services.webhooks import webhook_create
from games.models import Game
from notifications.models import Outbox
from tests.clients.helpers import FakeReceiver, fake_dns
from tests.leaks.conftest import reply_tokens
from tests.mailplay.conftest import deliver, game, mail_settings, mails_to, people, receive  # noqa: F401
from tests.mailplay.helpers import a_discard, reply

OUR_APPS = {"games", "notifications", "mailplay", "clients", "authtoken"}
# What an operator may still edit, by model: taking a table off the public list.
EDITABLE = {"games.game": {"is_public"}}
# Deleting a whole game stays possible (moderation); nothing else of ours may be deleted.
DELETABLE = {"games.game"}


@pytest.fixture
def played(game, people, monkeypatch):  # noqa: F811
    """alice answers her turn email (draw, then discard); every row is sent but one turn
    email; bob has a token and a webhook."""
    fake_dns(monkeypatch, {"hooks.example": ["93.184.215.14"]})
    monkeypatch.setattr(webhook_delivery, "transport", FakeReceiver())
    token_create(owner=people["bob"], name="bot", scopes=["read"])
    webhook_create(owner=people["bob"], url="https://hooks.example/x")
    deliver()
    turn = mails_to("alice@example.com")[-1]
    receive(reply(turn, "draw", sender="alice@example.com"))
    deliver()
    answer = mails_to("alice@example.com")[-1]
    receive(reply(answer, a_discard(answer.body), sender="alice@example.com"))
    waiting = Outbox.objects.filter(status="pending", payload__has_key="view").first()
    deliver()
    for hook_id in Webhook.objects.values_list("pk", flat=True):
        webhook_run(hook_id)  # the delivery log has rows too
    # A sent row keeps no payload: one turn email is put back as still waiting, with the
    # recipient's view and legal actions, for the admin to hide.
    Outbox.objects.filter(pk=waiting.pk).update(status="pending", payload=waiting.payload)
    return Game.objects.get(pk=game.pk)


@pytest.fixture
def operator(people):  # noqa: F811
    return get_user_model().objects.create_superuser("root", "root@example.com", "x")


def _ours() -> list[tuple[Any, Any]]:
    return [(m, a) for m, a in admin.site._registry.items() if m._meta.app_label in OUR_APPS]


def test_no_admin_page_shows_a_hand_or_a_credential(played, operator, client):
    client.force_login(operator)
    tokens = list(reply_tokens())
    assert tokens and Outbox.objects.filter(payload__has_key="view").exists()
    pages = 0
    for model, _ in _ours():
        info = (model._meta.app_label, model._meta.model_name)
        listing = client.get(f"/admin/{info[0]}/{info[1]}/")
        assert listing.status_code == 200, info
        bodies = [listing.content.decode()]
        for obj in model._default_manager.all()[:30]:
            page = client.get(f"/admin/{info[0]}/{info[1]}/{obj.pk}/change/")
            assert page.status_code == 200, (info, obj.pk)
            bodies.append(page.content.decode())
        for body in bodies:
            pages += 1
            for token in tokens:
                assert token not in body, f"{info}: a reply token"
            assert not re.search(r"play\+[a-z2-7]{20,}@", body, re.IGNORECASE), info
            assert "&quot;hand&quot;:" not in body and '"hand":' not in body, f"{info}: a hand"
            assert "&quot;legal&quot;:" not in body, f"{info}: a player's choices"
            assert "key_hash" not in body, info
    assert pages > 20


def test_no_admin_can_edit_add_or_delete_what_a_player_receives(played, operator):
    request = RequestFactory().get("/admin/")
    request.user = operator
    checked = 0
    for model, model_admin in _ours():
        label = model._meta.label_lower
        for obj in [None, model._default_manager.first()]:
            admins = [model_admin]
            if obj is not None:
                admins += model_admin.get_inline_instances(request, obj)
            for each in admins:
                editable: set[str] = set()
                can_change = obj is not None and each.has_change_permission(request, obj)
                if each is model_admin:
                    can_add = each.has_add_permission(request)
                else:
                    can_add = each.has_add_permission(request, obj)
                if can_change or can_add:
                    form = each.get_form(request, obj) if each is model_admin else None
                    fields = set(form.base_fields) if form else {"(inline)"}
                    editable = fields - set(each.get_readonly_fields(request, obj))
                assert editable <= EDITABLE.get(label, set()), (label, type(each), editable)
                if obj is not None and label not in DELETABLE:
                    assert not each.has_delete_permission(request, obj), (label, type(each))
                checked += 1
    assert checked >= 15


def test_an_outbox_row_cannot_be_changed_through_the_admin(played, operator, client):
    client.force_login(operator)
    row = Outbox.objects.filter(kind="your_turn").first()
    before = row.payload

    response = client.post(
        f"/admin/notifications/outbox/{row.pk}/change/",
        {"payload": '{"text": "changed"}', "recipient": row.recipient_id, "kind": "your_turn"},
    )

    assert response.status_code == 403
    row.refresh_from_db()
    assert row.payload == before
