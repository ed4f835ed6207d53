"""The OpenAPI contract (issue 15, item 8): the schema validates, offers JSON bodies only, types
actions and events, and a client generated from it with openapi-python-client plays a hand
against three bots through a live server."""

from __future__ import annotations

import hashlib
import importlib
import json
import pkgutil
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from uuid import UUID

import pytest
from openapi_spec_validator import validate
from rest_framework.test import APIClient

from notifications.models import NotificationPreference
from tests.api.helpers import error_of

PASSWORD = "correct-horse-battery-staple-9"


@pytest.fixture
def schema(db: Any) -> dict[str, Any]:
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return json.loads(response.content)


def test_the_schema_passes_openapi_spec_validator(schema):
    validate(schema)


def test_every_request_body_is_json_only(schema):
    bodies = [
        (path, method, list(operation["requestBody"]["content"]))
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
        if "requestBody" in operation
    ]
    assert bodies
    assert all(types == ["application/json"] for _, _, types in bodies), bodies


def _properties(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return schema["components"]["schemas"][name]["properties"]


def test_actions_and_events_are_unions_on_their_type(schema):
    components = schema["components"]["schemas"]
    for union in ("Action", "ActionRequest", "LoggedAction", "MoveEvent"):
        discriminator = components[union]["discriminator"]
        assert discriminator["propertyName"] == "type"
        for value, ref in discriminator["mapping"].items():
            member = components[ref.rsplit("/", 1)[-1]]
            assert member["properties"]["type"]["enum"] == [value], (union, value)
    assert set(components["MoveEvent"]["discriminator"]["mapping"]) >= {
        "draw", "pickup", "meld", "discard", "deal", "hand_result", "match_over", "resign",
    }  # fmt: skip
    legal = _properties(schema, "LegalOut")
    assert legal["actions"]["items"] == {"$ref": "#/components/schemas/Action"}
    assert _properties(schema, "Move")["events"]["items"]["$ref"].endswith("/MoveEvent")
    # OpenAPI 3.1: null is a type beside the reference (3.0's bare `nullable` was not).
    assert _properties(schema, "Hand")["result"]["oneOf"] == [
        {"$ref": "#/components/schemas/HandResult"},
        {"type": "null"},
    ]
    options = _properties(schema, "GameDetail")["options"]["additionalProperties"]
    assert options == {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]}
    assert _properties(schema, "Event")["data"]["allOf"][0]["$ref"].endswith("/EventData")
    assert "nullable" not in json.dumps(schema)


# --- PATCH is partial, forms are refused -----------------------------------------------------


def test_a_form_patch_is_415_and_changes_nothing(clients, users):
    NotificationPreference.objects.update_or_create(user=users["alice"], defaults={})
    before = clients["alice"].get("/api/v1/me/preferences/").json()

    for content_type, body in (
        ("application/x-www-form-urlencoded", "digest_hour=9"),
        ("multipart/form-data; boundary=b", '--b\r\nContent-Disposition: form-data; name="digest_hour"\r\n\r\n9\r\n--b--\r\n'),
    ):  # fmt: skip
        response = clients["alice"].generic(
            "PATCH", "/api/v1/me/preferences/", body, content_type=content_type
        )
        assert error_of(response, 415)["code"] == "unsupported_media_type"
    assert clients["alice"].get("/api/v1/me/preferences/").json() == before


def test_a_json_patch_changes_only_the_fields_sent(clients, users):
    alice = clients["alice"]
    alice.patch("/api/v1/me/preferences/", {"email_mode": "digest"}, format="json")
    before = alice.get("/api/v1/me/preferences/").json()

    after = alice.patch("/api/v1/me/preferences/", {"digest_hour": 9}, format="json").json()

    assert after == {**before, "digest_hour": 9}


def test_a_webhook_patch_of_its_url_leaves_it_on(clients, users, monkeypatch):
    monkeypatch.setattr("clients.services.netguard._resolve", lambda host, port: ["93.184.215.14"])
    alice = clients["alice"]
    hook = alice.post(
        "/api/v1/webhooks/", {"url": "https://hooks.example.org/a"}, format="json"
    ).json()
    form = alice.generic(
        "PATCH",
        f"/api/v1/webhooks/{hook['id']}/",
        "url=https%3A%2F%2Fhooks.example.org%2Fb",
        content_type="application/x-www-form-urlencoded",
    )
    assert error_of(form, 415)["code"] == "unsupported_media_type"

    patched = alice.patch(
        f"/api/v1/webhooks/{hook['id']}/", {"url": "https://hooks.example.org/b"}, format="json"
    ).json()

    assert patched["url"] == "https://hooks.example.org/b"
    assert patched["active"] is True and patched["kinds"] == hook["kinds"]


# --- a generated client plays a hand ----------------------------------------------------------


def _generate(schema: dict[str, Any], where: Path) -> ModuleType:
    """openapi-python-client's client for the schema, imported as `canasta_client`."""
    (where / "openapi.json").write_text(json.dumps(schema))
    # No post hooks: they would run ruff over the generated code, which needs nothing else.
    (where / "config.yaml").write_text("post_hooks: []\n")
    generator = Path(sys.executable).parent / "openapi-python-client"
    run = subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            str(where / "openapi.json"),
            "--config",
            str(where / "config.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(where / "canasta_client"),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # Every operation and model was generated: the generator names what it had to skip.
    assert "Unable to parse" not in run.stdout + run.stderr, run.stdout + run.stderr
    sys.path.insert(0, str(where))
    package = importlib.import_module("canasta_client")
    # Every operation and model imports (some did not, with the old schema).
    for module in pkgutil.walk_packages(package.__path__, "canasta_client."):
        importlib.import_module(module.name)
    return package


@pytest.fixture
def generated(schema: dict[str, Any], tmp_path: Path) -> Iterator[ModuleType]:
    package = _generate(schema, tmp_path)
    yield package
    sys.path.remove(str(tmp_path))
    for name in [
        n for n in sys.modules if n == "canasta_client" or n.startswith("canasta_client.")
    ]:
        del sys.modules[name]


@pytest.fixture(scope="session")
def one_request_at_a_time() -> Iterator[None]:
    """The live server answers one request at a time, as in tests/browser/conftest.py: the
    in-memory test database is one SQLite connection, shared with the server's threads."""
    from django.core.servers.basehttp import WSGIServer
    from django.test.testcases import LiveServerThread

    class OneAtATimeServer(WSGIServer):
        def __init__(self, *args: Any, connections_override: Any = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)

    threaded = LiveServerThread.server_class
    LiveServerThread.server_class = OneAtATimeServer
    yield
    LiveServerThread.server_class = threaded


@pytest.fixture
def bots_in_process(settings: Any) -> Iterator[None]:
    """Bot turns (Celery tasks) run as they are sent, inside the live server's request."""
    from canasta_site.celery import app

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def _module(package: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{package.__name__}.{name}")


def _choose(legal: Any, rng: random.Random) -> Any:
    if legal.legal.going_out:
        return legal.legal.going_out[0]
    discards = [a for a in legal.actions if a.to_dict()["type"] == "discard"]
    if discards and rng.random() < 0.6:
        return rng.choice(discards)
    return rng.choice(legal.actions)


def test_a_generated_client_plays_a_hand_against_bots(
    generated, one_request_at_a_time, live_server, bots_in_process, settings
):
    settings.ALLOWED_HOSTS = ["*"]
    models = _module(generated, "models")
    auth = _module(generated, "api.auth.auth_register")
    games_create = _module(generated, "api.lobby.games_create")
    games_retrieve = _module(generated, "api.play.games_retrieve")
    games_legal = _module(generated, "api.play.games_legal")
    games_actions = _module(generated, "api.play.games_actions")
    games_moves = _module(generated, "api.log.games_moves")
    games_hands = _module(generated, "api.log.games_hands")

    anonymous = generated.Client(base_url=live_server.url, raise_on_unexpected_status=True)
    token = auth.sync(
        client=anonymous, body=models.RegisterInRequest(username="gen", password=PASSWORD)
    ).token
    client = generated.AuthenticatedClient(
        base_url=live_server.url, token=token, prefix="Token", raise_on_unexpected_status=True
    )

    created = games_create.sync(
        client=client,
        body=models.GameCreateInRequest(
            variant="classic", players=4, bots=[models.BotLevelEnum.BASIC] * 3
        ),
    )
    assert isinstance(created, models.GameDetail), created
    game_id = UUID(str(created.id))
    assert created.status == models.GameStatusEnum.ACTIVE
    assert isinstance(created.options.additional_properties["target"], int)

    request_class = {
        "draw": models.DrawActionRequest,
        "pickup": models.PickupActionRequest,
        "meld": models.MeldActionRequest,
        "discard": models.DiscardActionRequest,
        "ask_partner": models.AskPartnerActionRequest,
        "answer": models.AnswerActionRequest,
    }
    rng = random.Random(7)
    for _ in range(400):
        game = games_retrieve.sync(client=client, game_id=game_id)
        if game.current_hand.number > 1 or game.status != models.GameStatusEnum.ACTIVE:
            break
        legal = games_legal.sync(client=client, game_id=game_id)
        assert isinstance(legal, models.LegalOut), legal
        assert legal.my_turn, "the bot has moved before the answer"
        action = _choose(legal, rng)
        body = models.ActionsInRequest(
            actions=[request_class[action.to_dict()["type"]].from_dict(action.to_dict())],
            expected_version=legal.version,
        )
        played = games_actions.sync(client=client, game_id=game_id, body=body)
        assert isinstance(played, models.ActionsOut), played
        # The next legal actions come with the answer while the turn is still mine.
        if played.your_move is not None:
            assert isinstance(played.your_move, models.LegalOut) and played.your_move.my_turn
    else:
        pytest.fail("the hand did not end in 400 moves")

    hands = games_hands.sync(client=client, game_id=game_id).hands
    first = hands[0]
    assert first.seed and hashlib.sha256(bytes.fromhex(first.seed)).hexdigest() == first.commitment
    assert isinstance(first.result, models.HandResult) and len(first.result.totals) == 2  # sides

    # The whole log parses into the typed events, a page at a time.
    after, kinds = 0, set()
    while True:
        page = games_moves.sync(client=client, game_id=game_id, after=after, limit=500)
        for move in page.moves:
            kinds |= {type(event).__name__ for event in move.events}
        if not page.has_more:
            break
        after = page.moves[-1].seq
    assert {"DrawEvent", "DiscardEvent", "HandResultEvent"} <= kinds
