"""A client that knows only the OpenAPI schema and the issue's text: it registers four users,
creates a classic table, plays complete hands with the legal actions the API offers, and
checks every revealed seed against its commitment and against the cards it was dealt."""

import hashlib
import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import engine

PASSWORD = "correct-horse-battery-staple-9"


class SchemaClient:
    """Calls operations by operationId, with paths and methods taken from the schema."""

    def __init__(self, schema: dict[str, Any], token: str | None = None) -> None:
        self.operations = {
            op["operationId"]: (method.upper(), path)
            for path, methods in schema["paths"].items()
            for method, op in methods.items()
        }
        self.http = APIClient()
        if token:
            self.http.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    def call(self, operation: str, body: Any = None, *, expect: int = 200, **params: Any) -> Any:
        method, path = self.operations[operation]
        path = path.format(**{k: params.pop(k) for k in list(params) if "{" + k + "}" in path})
        if method == "GET":
            response = self.http.get(path, params)
        else:
            response = self.http.generic(method, path, _json(body), content_type="application/json")
        assert response.status_code == expect, (operation, response.status_code, response.content)
        return response.json()


def _json(body: Any) -> str:
    import json

    return json.dumps(body if body is not None else {})


def _choose(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    if legal["legal"]["going_out"]:
        return legal["legal"]["going_out"][0]
    actions = legal["actions"]
    discards = [a for a in actions if a["type"] == "discard"]
    if discards and rng.random() < 0.6:
        return rng.choice(discards)
    return rng.choice(actions)


@pytest.mark.django_db
def test_a_schema_only_client_plays_hands_and_verifies_the_shuffle():
    anonymous = APIClient()
    schema = anonymous.get("/api/schema/", {"format": "json"}).json()
    public = SchemaClient(schema)
    names = ["north", "east", "south", "west"]
    players = {}
    for name in names:
        token = public.call("auth_register", {"username": name, "password": PASSWORD}, expect=201)[
            "token"
        ]
        players[name] = SchemaClient(schema, token)

    game = players["north"].call("games_create", {"variant": "classic", "players": 4}, expect=201)
    for name in names[1:]:
        players[name].call("games_join", game_id=game["id"])

    first_views = {name: players[name].call("games_retrieve", game_id=game["id"]) for name in names}
    by_seat = {view["my_seat"]: players[name] for name, view in first_views.items()}
    # Hand number -> seat -> the cards that seat was shown before anyone played in that hand.
    dealt = {1: {view["my_seat"]: sorted(view["table"]["hand"]) for view in first_views.values()}}
    assert sorted(by_seat) == [0, 1, 2, 3]

    rng = random.Random(7)
    state = first_views["north"]
    finished: list[dict[str, Any]] = []
    for _ in range(3000):
        turn = state["table"]["turn"]
        client = by_seat[turn]
        legal = client.call("games_legal", game_id=game["id"])
        state = client.call(
            "games_actions",
            {"actions": [_choose(legal, rng)], "expected_version": legal["version"]},
            game_id=game["id"],
        )
        number = state["current_hand"]["number"]
        if state["status"] == "active" and number not in dealt:
            views = [c.call("games_retrieve", game_id=game["id"]) for c in by_seat.values()]
            dealt[number] = {v["my_seat"]: sorted(v["table"]["hand"]) for v in views}
        hands = client.call("games_hands", game_id=game["id"])["hands"]
        finished = [hand for hand in hands if hand["seed"] is not None]
        if len(finished) >= 2 or state["status"] != "active":
            break
    assert finished, "no hand was completed"

    options = first_views["north"]["options"]
    for hand in finished:
        seed = hand["seed"]
        assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == hand["commitment"]
        assert hand["end_reason"] in ("went_out", "stock_exhausted", "red_three_last")
    totals = [0, 0]
    for hand in finished:
        if hand["number"] in dealt:
            table = engine.deal(
                "classic",
                4,
                hand["seed"],
                hand_number=hand["number"],
                scores=totals,
                options=options,
            )
            for seat, cards in dealt[hand["number"]].items():
                assert sorted(table.hands[seat]) == cards
        totals = hand["totals"]
    assert 1 in dealt
    assert first_views["north"]["current_hand"]["commitment"] == finished[0]["commitment"]
