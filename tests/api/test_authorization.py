"""Who may do what, for every game endpoint: owner (alice, seat 0), partner (bob, seat 2),
opponent (carol, seat 1), stranger (eve) and anonymous; on a public and a private game.

Expected statuses: 401 for anonymous everywhere; a private game is a 404 to strangers; a
public game can be watched by strangers but not played in.
"""

import pytest

from tests.api.helpers import code_of, url
from tests.game_fixtures import current_table

ROLES = ("owner", "partner", "opponent", "stranger", "anonymous")
NAME = {"owner": "alice", "partner": "bob", "opponent": "carol", "stranger": "eve"}
SEAT = {"owner": 0, "partner": 2, "opponent": 1}

# endpoint -> role -> (public game status, private game status)
READS = {
    "": {"stranger": (200, 404)},
    "legal": {"stranger": (403, 404)},
    "moves": {"stranger": (200, 404)},
    "hands": {"stranger": (200, 404)},
}
WRITES = {
    "join": {"player": 409, "stranger": (409, 404)},
    "leave": {"player": 409, "stranger": (403, 404)},
    "resign": {"player": 200, "stranger": (403, 404)},
    "abort": {"player": 200, "stranger": (403, 404)},
    "actions": {"player": None, "stranger": (403, 404)},
}


def _client(clients, role):
    return clients["anonymous" if role == "anonymous" else NAME[role]]


@pytest.mark.parametrize("public", [True, False], ids=["public", "private"])
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", list(READS))
def test_reads(clients, users, game, private_game, role, endpoint, public):
    target = game if public else private_game
    response = _client(clients, role).get(url(target, endpoint))

    if role == "anonymous":
        assert code_of(response, 401) == "not_authenticated"
    elif role == "stranger":
        expected = READS[endpoint]["stranger"][0 if public else 1]
        assert response.status_code == expected, response.content
        if expected != 200:
            assert code_of(response, expected) in ("not_found", "not_seated")
    else:
        assert response.status_code == 200, response.content
        if endpoint == "":
            assert response.json()["my_seat"] == SEAT[role]
            assert response.json()["table"]["seat"] == SEAT[role]


@pytest.mark.parametrize("public", [True, False], ids=["public", "private"])
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", list(WRITES))
def test_writes(clients, users, game, private_game, role, endpoint, public):
    target = game if public else private_game
    body = None
    if endpoint == "actions":
        body = {"actions": [{"type": "draw"}], "expected_version": target.version}
    response = _client(clients, role).post(url(target, endpoint), body, format="json")

    if role == "anonymous":
        assert code_of(response, 401) == "not_authenticated"
    elif role == "stranger":
        expected = WRITES[endpoint]["stranger"][0 if public else 1]
        assert response.status_code == expected, response.content
    elif endpoint == "actions":
        on_turn = current_table(target).turn == SEAT[role]
        if on_turn:
            assert response.status_code == 200, response.content
        else:
            assert code_of(response, 422) == "not_your_turn"
    else:
        assert response.status_code == WRITES[endpoint]["player"], response.content


@pytest.mark.parametrize("role", ROLES)
def test_the_lobby_needs_an_account(clients, users, role):
    client = _client(clients, role)
    for response in (
        client.get("/api/v1/games/"),
        client.get("/api/v1/games/open/"),
        client.post("/api/v1/games/", {"variant": "classic", "players": 2}, format="json"),
    ):
        if role == "anonymous":
            assert code_of(response, 401) == "not_authenticated"
        else:
            assert response.status_code in (200, 201)


def test_an_invitee_sees_a_private_table_before_joining(clients, users):
    response = clients["alice"].post(
        "/api/v1/games/",
        {"variant": "classic", "players": 2, "public": False, "invite": ["eve"]},
        format="json",
    )
    game_id = response.json()["id"]

    seen = clients["eve"].get(url(game_id))
    assert seen.status_code == 200 and seen.json()["my_status"] == "invited"
    assert code_of(clients["carol"].get(url(game_id)), 404) == "not_found"
