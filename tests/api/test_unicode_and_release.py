"""Strings that are not Unicode text, and Idempotency-Keys after any failure (issue 15,
item 6): a lone surrogate in a JSON body is a 400 in the error shape, never a 500, and a key
is free again after a request that failed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from api.views.lobby import GamesView
from clients.models import ApiToken, Webhook
from games.models import Game, IdempotencyRecord
from notifications.models import NotificationPreference
from tests.api.helpers import error_of

LONE = "\ud800"

# Each field the issue found, and a few more: every one used to reach an error message.
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("patch", "/api/v1/me/preferences/", {"email_mode": LONE}),
    ("post", "/api/v1/games/", {"variant": "classic", "players": 2, "timeout_policy": LONE}),
    ("post", "/api/v1/games/", {"variant": "classic", "players": 2, "bots": [LONE]}),
    ("post", "/api/v1/games/", {"variant": LONE, "players": 2}),
    ("post", "/api/v1/games/", {"variant": "classic", "players": 2, "options": {LONE: 1}}),
    ("post", "/api/v1/webhooks/", {"url": "https://hooks.example.org/", "kinds": [LONE]}),
    ("post", "/api/v1/tokens/", {"name": "t", "scopes": [LONE]}),
    ("post", "/api/v1/auth/register/", {"username": "zed", "password": LONE * 12}),
]


def _send(client: Any, method: str, path: str, body: dict[str, Any], **headers: Any) -> Any:
    # json.dumps escapes the surrogate as \ud800: valid JSON syntax, but not Unicode text.
    raw = json.dumps(body)
    return getattr(client, method)(path, data=raw, content_type="application/json", **headers)


@pytest.mark.parametrize(("method", "path", "body"), CASES, ids=lambda v: str(v)[:30])
@pytest.mark.parametrize("key", [None, "surrogate-key"])
def test_a_lone_surrogate_is_a_400_in_the_error_shape(clients, users, method, path, body, key):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    before = (Game.objects.count(), Webhook.objects.count(), ApiToken.objects.count())

    response = _send(clients["alice"], method, path, body, **headers)

    assert error_of(response, 400)["code"] == "malformed_request"
    assert LONE not in response.content.decode("utf-8")
    assert (Game.objects.count(), Webhook.objects.count(), ApiToken.objects.count()) == before
    assert not IdempotencyRecord.objects.exists()


def test_preferences_are_unchanged_by_a_refused_patch(clients, users):
    clients["alice"].patch("/api/v1/me/preferences/", {"digest_hour": 9}, format="json")
    before = clients["alice"].get("/api/v1/me/preferences/").json()

    _send(clients["alice"], "patch", "/api/v1/me/preferences/", {"email_mode": LONE})

    assert clients["alice"].get("/api/v1/me/preferences/").json() == before
    assert NotificationPreference.objects.filter(user=users["alice"]).count() == 1


def test_a_key_is_released_when_the_answer_cannot_be_stored(clients, users, monkeypatch):
    """Any failure before the answer is stored (here: storing it) leaves the key free, and
    undoes what the request did: the work and the answer are one transaction
    (docs/move-path-speed.md), so the retry does it once."""
    from api import idempotency

    def broken_store(**kwargs: Any) -> None:
        raise RuntimeError("the database refused the stored answer")

    monkeypatch.setattr(idempotency, "idempotency_store", broken_store)
    body = {"variant": "classic", "players": 2}
    client = clients["alice"]
    client.raise_request_exception = False

    assert client.post("/api/v1/games/", body, HTTP_IDEMPOTENCY_KEY="k").status_code == 500
    assert not IdempotencyRecord.objects.exists()
    assert not Game.objects.exists()

    monkeypatch.undo()
    again = client.post("/api/v1/games/", body, HTTP_IDEMPOTENCY_KEY="k")
    assert again.status_code == 201 and Game.objects.count() == 1


def test_an_answer_with_a_lone_surrogate_still_renders(clients, users, monkeypatch):
    """Defence in depth: if a string that is not Unicode text reaches an answer anyway, the
    renderer escapes it instead of failing, and the key keeps that answer."""

    def odd_answer(view: Any, request: Any) -> Any:
        from rest_framework.response import Response

        return Response({"error": {"code": "x", "message": LONE, "details": {}}}, status=400)

    from api.idempotency import idempotent

    monkeypatch.setattr(GamesView, "post", idempotent(odd_answer))

    first = clients["alice"].post("/api/v1/games/", {}, HTTP_IDEMPOTENCY_KEY="odd")
    again = clients["alice"].post("/api/v1/games/", {}, HTTP_IDEMPOTENCY_KEY="odd")

    assert first.status_code == again.status_code == 400
    assert json.loads(first.content)["error"]["message"] == LONE
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
