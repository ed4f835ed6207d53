import pytest

from games.models import Game
from games.services import lobby
from tests.api.helpers import code_of, error_of, url


def _create(client, **body):
    return client.post(
        "/api/v1/games/", {"variant": "classic", "players": 4, **body}, format="json"
    )


def test_it_creates_a_table_and_points_to_it(clients, users):
    response = _create(clients["alice"], invite=["bob"], public=False, turn_seconds=86400)

    assert response.status_code == 201
    body = response.json()
    assert response["Location"].endswith(url(body["id"]))
    assert body["status"] == "open"
    assert body["public"] is False
    assert body["turn_seconds"] == 86400
    assert body["table"] is None
    assert [(s["username"], s["status"]) for s in body["seats"]] == [
        ("alice", "joined"),
        ("bob", "invited"),
    ]
    assert body["my_status"] == "joined"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"variant": "poker"}, "unknown_variant"),
        ({"players": 5}, "invalid_players"),
        ({"options": {"target": "lots"}}, "invalid_options"),
        ({"invite": ["nobody"]}, "unknown_user"),
        ({"turn_seconds": 1}, "invalid_time_control"),
        ({"players": "four"}, "invalid_request"),
        ({"timeout_policy": "nap"}, "invalid_request"),
    ],
)
def test_it_refuses_an_invalid_table(clients, body, code):
    assert code_of(_create(clients["alice"], **body), 400) == code
    assert not Game.objects.exists()


def test_my_games_are_paginated_and_filtered(clients, users, game):
    for _ in range(3):
        lobby.game_create(creator=users["alice"], variant="classic", players=2)

    page = clients["alice"].get("/api/v1/games/", {"page_size": 2}).json()
    assert page["count"] == 4 and len(page["results"]) == 2 and page["next"]
    active = clients["alice"].get("/api/v1/games/", {"status": "active"}).json()
    assert [g["id"] for g in active["results"]] == [str(game.pk)]
    turn_name = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}[game.turn_seat]
    mine = clients[turn_name].get("/api/v1/games/", {"my_turn": "true"}).json()["results"]
    assert [(g["id"], g["my_turn"]) for g in mine] == [(str(game.pk), True)]
    assert (
        code_of(clients["alice"].get("/api/v1/games/", {"status": "won"}), 400) == "invalid_request"
    )


def test_open_games_list_what_i_can_join(clients, users):
    public = lobby.game_create(creator=users["alice"], variant="classic", players=2)
    lobby.game_create(creator=users["alice"], variant="classic", players=2, is_public=False)

    results = clients["eve"].get("/api/v1/games/open/").json()["results"]

    assert [g["id"] for g in results] == [str(public.pk)]
    assert clients["alice"].get("/api/v1/games/open/").json()["results"] == []


def test_joining_the_last_seat_starts_the_game(clients, users):
    game = lobby.game_create(creator=users["alice"], variant="classic", players=2)

    response = clients["bob"].post(url(game, "join"))

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "active"
    assert body["my_seat"] in (0, 1)
    assert len(body["table"]["hand"]) == 15
    assert body["seating_seed"] and all(s["drew"] for s in body["seats"])


def test_join_errors(clients, users, game):
    assert code_of(clients["bob"].post(url(game, "join")), 409) == "already_joined"
    assert code_of(clients["eve"].post(url(game, "join")), 409) == "game_not_open"
    full = lobby.game_create(creator=users["alice"], variant="classic", players=2, invite=["bob"])
    assert code_of(clients["eve"].post(url(full, "join")), 409) == "game_full"


def test_leave_before_the_start_and_not_after(clients, users, game):
    table = lobby.game_create(creator=users["alice"], variant="classic", players=4)
    clients["bob"].post(url(table, "join"))

    response = clients["bob"].post(url(table, "leave"))
    assert response.status_code == 200
    assert [s["username"] for s in response.json()["seats"]] == ["alice"]

    assert code_of(clients["bob"].post(url(table, "leave")), 403) == "not_seated"
    assert code_of(clients["bob"].post(url(game, "leave")), 409) == "game_not_open"


def test_abort_before_the_first_move_only(clients, game):
    response = clients["carol"].post(url(game, "abort"))

    assert response.status_code == 200
    assert response.json()["result"] == {"reason": "aborted", "winner": None}
    assert response.json()["status"] == "aborted"
    hands = clients["carol"].get(url(game, "hands")).json()["hands"]
    assert hands[0]["seed"] is not None and hands[0]["end_reason"] == "aborted"
    assert code_of(clients["carol"].post(url(game, "abort")), 409) == "cannot_abort"


def test_abort_of_an_open_table_is_for_its_creator(clients, users):
    table = lobby.game_create(creator=users["alice"], variant="classic", players=4)
    clients["bob"].post(url(table, "join"))

    assert code_of(clients["bob"].post(url(table, "abort")), 403) == "permission_denied"
    assert clients["alice"].post(url(table, "abort")).json()["status"] == "aborted"


def test_error_details_are_machine_readable(clients):
    error = error_of(_create(clients["alice"], players=3), 400)
    assert error["details"] == {"players": [2, 4]}
