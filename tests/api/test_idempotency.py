from datetime import timedelta

from django.utils import timezone

from games.models import Game, IdempotencyRecord, Move
from tests.api.helpers import code_of, url
from tests.game_fixtures import current_table

NAME_AT = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}


def _draw(client, game, key, version=None):
    return client.post(
        url(game, "actions"),
        {"actions": [{"type": "draw"}], "expected_version": version or game.version},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


def test_a_retry_gets_the_first_response_and_applies_nothing_twice(clients, game):
    mover = clients[NAME_AT[current_table(game).turn]]

    first = _draw(mover, game, "k-1")
    again = _draw(mover, game, "k-1")

    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again["ETag"] == first["ETag"]
    assert again["Idempotent-Replayed"] == "true" and not first.has_header("Idempotent-Replayed")
    assert Move.objects.count() == 1


def test_an_error_is_replayed_too(clients, game):
    waiter = clients[NAME_AT[(current_table(game).turn + 1) % 4]]

    assert code_of(_draw(waiter, game, "k-2"), 422) == "not_your_turn"
    assert code_of(_draw(waiter, game, "k-2"), 422) == "not_your_turn"
    assert IdempotencyRecord.objects.get(key="k-2").response_status == 422


def test_the_same_key_with_another_body_is_refused(clients, game):
    mover = clients[NAME_AT[current_table(game).turn]]
    _draw(mover, game, "k-3")

    response = _draw(mover, game, "k-3", version=game.version + 1)

    assert code_of(response, 422) == "idempotency_key_reused"
    assert Move.objects.count() == 1


def test_keys_belong_to_one_user(clients, users):
    for name in ("alice", "bob"):
        response = clients[name].post(
            "/api/v1/games/",
            {"variant": "classic", "players": 2},
            format="json",
            HTTP_IDEMPOTENCY_KEY="same",
        )
        assert response.status_code == 201
    assert Game.objects.count() == 2


def test_creating_a_table_twice_with_one_key_creates_one(clients, users):
    body = {"variant": "classic", "players": 2}
    first = clients["alice"].post("/api/v1/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="t")
    again = clients["alice"].post("/api/v1/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="t")

    assert again.json()["id"] == first.json()["id"] and again["Location"] == first["Location"]
    assert Game.objects.count() == 1


def test_a_request_still_in_flight_is_409_until_it_is_abandoned(clients, users, game):
    mover = clients[NAME_AT[current_table(game).turn]]
    _draw(mover, game, "k-4")
    record = IdempotencyRecord.objects.get(key="k-4")
    # As if the first request were still running: claimed, no response yet.
    IdempotencyRecord.objects.filter(pk=record.pk).update(response_status=None, response_body=None)

    assert code_of(_draw(mover, game, "k-4"), 409) == "request_in_progress"

    IdempotencyRecord.objects.filter(pk=record.pk).update(
        created_at=timezone.now() - timedelta(minutes=5)
    )
    # The abandoned claim is taken over and the request runs again (the game moved on: 409).
    assert code_of(_draw(mover, game, "k-4"), 409) == "stale_version"


def test_a_bad_key_is_400(clients, game):
    assert code_of(_draw(clients["alice"], game, "x" * 256), 400) == "invalid_request"
