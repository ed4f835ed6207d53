"""Hostile request bodies against every write endpoint of the API: each gets a clean 4xx in the
one error shape (api/errors.py) and changes nothing (moves, the game's version and state, the
outbox, the users, hooks, tokens and absences)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from clients.models import ApiToken, Webhook
from games.models import Game, GameState, Move
from notifications.models import Absence, Outbox
from tests.api.helpers import error_of
from tests.game_fixtures import account_token_key, client_for, current_table, user_at

LIMIT = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
DEEP = 100_000


def _snapshot(game: Game) -> tuple:
    game.refresh_from_db()
    return (
        Move.objects.count(),
        game.version,
        game.status,
        json.dumps(GameState.objects.get(game=game).table, sort_keys=True),
        Outbox.objects.count(),
        get_user_model().objects.count(),
        Webhook.objects.count(),
        ApiToken.objects.count(),
        Absence.objects.count(),
        sorted(get_user_model().objects.values_list("email", flat=True)),
    )


@pytest.fixture
def player(game: Any) -> Any:
    """The player on turn, with an account token made now (before any snapshot)."""
    user = user_at(game, current_table(game).turn)
    user.api_key = account_token_key(user)
    return user


@pytest.fixture
def hook(player: Any, fuzz_settings: Any) -> Webhook:
    from clients.services.webhooks import webhook_create

    return webhook_create(owner=player, url="https://hooks.example.org/canasta")[0]


BODYLESS = ("join", "leave", "abort", "resign", "reclaim")


def _endpoints(game: Game, hook: Webhook) -> list[tuple[str, str]]:
    """Every write operation of the API: (method, path)."""
    base = f"/api/v1/games/{game.pk}/"
    return [
        ("post", "/api/v1/auth/register/"),
        ("post", "/api/v1/auth/token/"),
        ("post", "/api/v1/games/"),
        *(("post", f"{base}{what}/") for what in BODYLESS),
        ("post", base + "actions/"),
        ("patch", "/api/v1/me/preferences/"),
        ("post", "/api/v1/me/absences/"),
        ("post", "/api/v1/webhooks/"),
        ("patch", f"/api/v1/webhooks/{hook.pk}/"),
        ("post", "/api/v1/tokens/"),
    ]


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


BAD_BODIES: dict[str, tuple[bytes, str]] = {
    "oversized": (b'{"x": "' + b"a" * (LIMIT + 1024) + b'"}', "application/json"),
    "oversized_form": (b"x=" + b"a" * (LIMIT + 1024), "application/x-www-form-urlencoded"),
    "deeply_nested_array": (_nested(DEEP), "application/json"),
    "deeply_nested_object": (b'{"a":' * DEEP + b"1" + b"}" * DEEP, "application/json"),
    "nested_in_a_field": (b'{"actions": ' + _nested(DEEP) + b"}", "application/json"),
    "invalid_utf8": (b'{"name": "\xff\xfe\xfa"}', "application/json"),
    "truncated_json": (b'{"actions": [', "application/json"),
    "text_plain": (b"hello", "text/plain"),
    "xml": (b"<a>1</a>", "application/xml"),
    "json_array": (b"[1, 2, 3]", "application/json"),
    "json_string": (b'"actions"', "application/json"),
    "json_number": (b"42", "application/json"),
    "json_null": (b"null", "application/json"),
    "nan": (b'{"expected_version": NaN, "digest_hour": NaN, "players": NaN}', "application/json"),
    "infinity": (b'{"expected_version": Infinity, "players": -Infinity}', "application/json"),
    # One field per write operation, each a huge number or a string with NUL, so none of them
    # is a no-op PATCH.
    "huge_integers": (
        json.dumps(
            dict.fromkeys(
                ("expected_version", "players", "digest_hour", "active", "username", "name"),
                10**400,
            )
        ).encode(),
        "application/json",
    ),
    "nul_bytes": (
        json.dumps(
            dict.fromkeys(
                ("name", "username", "password", "variant", "email_mode", "url", "ends_at"),
                "a\x00b",
            )
        ).encode(),
        "application/json",
    ),
    "multipart_no_boundary": (b"abc", "multipart/form-data"),
    # JSON's escape for half a surrogate pair: valid JSON syntax, not Unicode text. Every
    # field a write operation reads, lists included (issue 15: a 500, and a stuck key).
    "lone_surrogate": (
        json.dumps(
            {
                **dict.fromkeys(
                    (
                        "email_mode",
                        "timeout_policy",
                        "variant",
                        "name",
                        "username",
                        "password",
                        "url",
                        "starts_at",
                        "ends_at",
                    ),
                    "\ud800",
                ),
                **{key: ["\ud800"] for key in ("bots", "kinds", "scopes", "invite")},
                "actions": [{"type": "discard", "card": "\ud800"}],
            }
        ).encode(),
        "application/json",
    ),
    "form": (
        b"digest_hour=9&url=https%3A%2F%2Fexample.org%2F",
        "application/x-www-form-urlencoded",
    ),
    "multipart": (
        b'--b\r\nContent-Disposition: form-data; name="digest_hour"\r\n\r\n9\r\n--b--\r\n',
        "multipart/form-data; boundary=b",
    ),
}


# Bodies that cannot be read at all. An operation without a request body (join, abort, ...)
# ignores what it is sent, like any HTTP server, unless it must read it: with an
# Idempotency-Key the body is part of the request's fingerprint.
UNREADABLE = {
    "oversized",
    "oversized_form",
    "deeply_nested_array",
    "deeply_nested_object",
    "nested_in_a_field",
    "invalid_utf8",
    "truncated_json",
    "text_plain",
    "xml",
    "nan",
    "infinity",
    "multipart_no_boundary",
    "lone_surrogate",
    "form",
    "multipart",
}


@pytest.mark.parametrize("kind", sorted(BAD_BODIES))
def test_every_write_endpoint_refuses_a_bad_body_cleanly(kind, game, player, hook):
    body, content_type = BAD_BODIES[kind]
    client = client_for(player)
    before = _snapshot(game)

    for n, (method, path) in enumerate(_endpoints(game, hook)):
        bodyless = path.rstrip("/").rsplit("/", 1)[-1] in BODYLESS
        for key in (None, f"bad-input-{kind}-{n}"):
            if bodyless and (key is None or kind not in UNREADABLE):
                continue
            headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
            response = getattr(client, method)(
                path, data=body, content_type=content_type, **headers
            )

            where = (method, path, key, response.status_code, response.content[:300])
            assert 400 <= response.status_code < 500, where
            assert response["Content-Type"] == "application/json", where
            error_of(response, response.status_code)
    assert _snapshot(game) == before


def _actions(client: Any, game: Game, actions: list[dict[str, Any]]) -> Any:
    return client.post(
        f"/api/v1/games/{game.pk}/actions/",
        {"actions": actions, "expected_version": game.version},
        format="json",
    )


@pytest.mark.parametrize(
    ("action", "status", "code"),
    [
        # Just under the body limit: the engine refuses it by its size, quickly.
        ({"type": "meld", "melds": [["7H"] * 40_000]}, 422, "invalid_action"),
        ({"type": "meld", "melds": [["7H", "7D", "7S"]] * 13_000}, 422, "invalid_action"),
        ({"type": "meld", "add": {"K": ["KH"] * 40_000}}, 422, "invalid_action"),
        ({"type": "pickup", "cards": ["7H"] * 40_000}, 422, "invalid_action"),
        ({"type": "discard", "card": "7" * 200_000}, 422, "invalid_action"),
        # Over it: 100k cards, a card code of 1 MB.
        ({"type": "meld", "melds": [["7H"] * 100_000]}, 413, "request_too_large"),
        ({"type": "discard", "card": "7" * 1_000_000}, 413, "request_too_large"),
        ({"type": "discard", "card": ["7H"]}, 422, "invalid_action"),
        ({"type": "meld", "melds": "7H 7D 7S"}, 422, "invalid_action"),
        ({"type": "draw", "extra": [[[[[]]]]]}, 422, "invalid_action"),
    ],
    ids=lambda value: str(value)[:40],
)
def test_it_refuses_huge_and_malformed_card_lists_and_changes_nothing(
    game, player, action, status, code
):
    before = _snapshot(game)

    response = _actions(client_for(player), game, [action])

    assert error_of(response, status)["code"] == code
    # The message names the refused input, shortened: a 200 KB card code is not echoed.
    assert len(response.content) < 2000
    assert _snapshot(game) == before


def test_it_refuses_fifty_one_actions_in_a_batch(game, player):
    before = _snapshot(game)

    response = _actions(client_for(player), game, [{"type": "draw"}] * 51)

    assert error_of(response, 400)["code"] == "invalid_request"
    assert _snapshot(game) == before


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/me/absences/{big}/",
        "/api/v1/webhooks/{big}/",
        "/api/v1/tokens/{big}/",
    ],
)
def test_huge_ids_in_paths_are_not_found(game, player, path):
    before = _snapshot(game)

    response = client_for(player).delete(path.format(big=10**40))

    assert error_of(response, 404)["code"] == "not_found"
    assert _snapshot(game) == before


@pytest.mark.parametrize(
    "query",
    [
        "games/?page=10000000000000000000000000000000",
        "games/?page_size=100000000000000000000000000000",
        "games/?page_size=-1",
        "games/{game}/moves/?after=100000000000000000000000000000",
        "games/{game}/moves/?limit=100000000000000000000000000000",
        "events/?after=1000000000000000000000000",
        "events/?wait=1e400",
        "events/?wait=nan",
        "webhooks/{hook}/deliveries/?before=100000000000000000000000000000",
    ],
)
def test_huge_numbers_in_queries_answer_cleanly(game, player, hook, query):
    response = client_for(player).get(
        "/api/v1/" + query.format(game=game.pk, hook=hook.pk), HTTP_ACCEPT="application/json"
    )

    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        error_of(response, response.status_code)


@pytest.mark.parametrize(
    "body",
    [
        {"ends_at": "9999-12-31T23:59:59Z"},
        {"starts_at": "9999-12-30T00:00:00Z", "ends_at": "9999-12-31T00:00:00Z"},
    ],
)
def test_an_absence_at_the_end_of_time_is_refused(game, player, body):
    # It was a 500: the days-per-year check computes with the year after.
    before = _snapshot(game)

    response = client_for(player).post("/api/v1/me/absences/", body, format="json")

    assert "fields" in error_of(response, 400)["details"]
    assert _snapshot(game) == before
