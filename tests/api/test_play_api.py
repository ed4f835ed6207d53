import random

import pytest

from games import engine
from games.engine.randomplay import random_action
from games.models import Hand, Move
from tests.api.helpers import code_of, error_of, url
from tests.game_fixtures import current_table, play_random, play_until_hand_ends

NAME_AT = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}


def _post(client, game, actions, **extra):
    body = {"actions": actions}
    if "version" in extra:
        body["expected_version"] = extra.pop("version")
    return client.post(url(game, "actions"), body, format="json", **extra)


def test_the_game_shows_my_hand_and_nobody_elses(clients, game):
    table = current_table(game)

    body = clients["bob"].get(url(game)).json()

    assert body["table"] == engine.player_view(table, 2)
    assert sorted(body["table"]["hand"]) == sorted(table.hands[2])
    assert "hands" not in body["table"] and "stock" not in body["table"]
    assert body["current_hand"] == {
        "number": 1,
        "commitment": Hand.objects.get(game=game).commitment,
    }
    assert (body["my_seat"], body["my_side"], body["totals"]) == (2, 0, [0, 0])


def test_a_spectator_of_a_public_game_sees_no_hand(clients, game):
    body = clients["eve"].get(url(game)).json()

    assert body["table"] == engine.player_view(current_table(game), None)
    assert "hand" not in body["table"] and body["my_seat"] is None


def test_it_answers_if_none_match_with_304_until_the_game_changes(clients, game):
    first = clients["bob"].get(url(game))
    tag = first["ETag"]
    assert tag == f'W/"{game.pk}-{game.version}-2"'

    again = clients["bob"].get(url(game), HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304 and again["ETag"] == tag and not again.content

    assert clients["eve"].get(url(game))["ETag"] == f'W/"{game.pk}-{game.version}-spectator"'
    play_random(game, 1)
    assert clients["bob"].get(url(game), HTTP_IF_NONE_MATCH=tag).status_code == 200


def test_legal_actions_are_mine_now(clients, game):
    table = current_table(game)
    mover, waiter = NAME_AT[table.turn], NAME_AT[(table.turn + 1) % 4]

    mine = clients[mover].get(url(game, "legal")).json()
    theirs = clients[waiter].get(url(game, "legal")).json()

    assert mine["my_turn"] is True and {"type": "draw"} in mine["actions"]
    assert mine["legal"] == engine.legal_actions(table, table.turn).to_json()
    assert theirs["my_turn"] is False and theirs["actions"] == []
    assert code_of(clients["eve"].get(url(game, "legal")), 403) == "not_seated"


def test_legal_needs_a_game_in_play(clients, game):
    clients["alice"].post(url(game, "abort"))
    assert code_of(clients["alice"].get(url(game, "legal")), 409) == "game_not_active"


def test_it_plays_a_batch_and_answers_with_the_new_game(clients, game):
    table = current_table(game)
    mover = NAME_AT[table.turn]
    drawn = engine.apply(table, table.turn, {"type": "draw"}).table
    card = drawn.hands[table.turn][0]

    response = _post(
        clients[mover],
        game,
        [{"type": "draw"}, {"type": "discard", "card": card}],
        version=game.version,
    )

    assert response.status_code == 200
    body = response.json()
    assert body["version"] == game.version + 1 and body["moves"] == 2
    assert body["table"]["turn"] == (table.turn + 1) % 4
    assert body["my_turn"] is False
    assert response["ETag"] == f'W/"{game.pk}-{body["version"]}-{table.turn}"'


def test_if_match_carries_the_version(clients, game):
    table = current_table(game)
    mover = clients[NAME_AT[table.turn]]
    tag = mover.get(url(game))["ETag"]

    assert _post(mover, game, [{"type": "draw"}], HTTP_IF_MATCH=tag).status_code == 200
    stale = _post(mover, game, [{"type": "draw"}], HTTP_IF_MATCH=tag)
    assert error_of(stale, 409) == {
        "code": "stale_version",
        "message": error_of(stale, 409)["message"],
        "details": {"version": game.version + 1},
    }


@pytest.mark.parametrize(
    ("headers", "body_version"),
    [({}, None), ({"HTTP_IF_MATCH": "yesterday"}, None), ({"HTTP_IF_MATCH": '"4"'}, 5)],
)
def test_the_version_is_required_and_must_be_consistent(clients, game, headers, body_version):
    table = current_table(game)
    extra = dict(headers)
    if body_version is not None:
        extra["version"] = body_version
    response = _post(clients[NAME_AT[table.turn]], game, [{"type": "draw"}], **extra)
    assert code_of(response, 400) == "invalid_request"


@pytest.mark.parametrize(
    "body",
    [{}, {"actions": [], "expected_version": 4}, {"actions": "draw", "expected_version": 4}],
)
def test_a_malformed_body_is_400(clients, game, body):
    response = clients["alice"].post(url(game, "actions"), body, format="json")
    assert code_of(response, 400) == "invalid_request"


def test_an_illegal_action_is_422_with_the_engines_code_and_nothing_changes(clients, game):
    table = current_table(game)
    mover = clients[NAME_AT[table.turn]]

    response = _post(mover, game, [{"type": "pickup"}, {"type": "draw"}], version=game.version)

    error = error_of(response, 422)
    assert error["details"]["index"] == 0 and error["details"]["applied"] == 0
    assert not Move.objects.exists()
    assert mover.get(url(game)).json()["version"] == game.version
    other = clients[NAME_AT[(table.turn + 1) % 4]]
    assert (
        code_of(_post(other, game, [{"type": "draw"}], version=game.version), 422)
        == "not_your_turn"
    )


def test_playing_in_a_finished_game_is_409(clients, game):
    clients["dave"].post(url(game, "abort"))
    assert (
        code_of(_post(clients["alice"], game, [{"type": "draw"}], version=5), 409)
        == "game_not_active"
    )


def test_resign_ends_the_match_for_the_other_side(clients, game):
    response = clients["dave"].post(url(game, "resign"))  # seat 3, side 1

    assert response.status_code == 200
    assert response.json()["result"] == {"reason": "resigned", "winner": 0}
    assert code_of(clients["alice"].post(url(game, "resign")), 409) == "game_not_active"
    log = clients["alice"].get(url(game, "moves")).json()["results"]
    assert log[-1]["action"] == {"type": "resign"}
    assert clients["alice"].get(url(game, "hands")).json()["hands"][0]["seed"] is not None


def test_the_move_log_hides_other_players_draws(clients, game):
    game = play_random(game, 6, random.Random(1))
    moves = Move.objects.filter(game=game).order_by("seq")

    for name, seat in (("alice", 0), ("carol", 1), ("eve", None)):
        log = clients[name].get(url(game, "moves")).json()
        assert log["last_seq"] == 6 and log["results"][-1]["seq"] == 6
        for entry, move in zip(log["results"], moves, strict=True):
            assert entry["events"] == [engine.event_for(e, seat) for e in move.events]
            for event in entry["events"]:
                if event["type"] == "draw" and event["seat"] != seat:
                    assert "cards" not in event and event["count"] >= 1


def test_the_move_log_pages_with_after(clients, game):
    play_random(game, 7, random.Random(2))

    page = clients["alice"].get(url(game, "moves"), {"after": 2, "limit": 3}).json()
    assert [m["seq"] for m in page["moves"]] == [3, 4, 5] and page["has_more"] is True
    rest = clients["alice"].get(url(game, "moves"), {"after": 5}).json()
    assert [m["seq"] for m in rest["moves"]] == [6, 7] and rest["has_more"] is False
    for bad in ({"after": -1}, {"limit": 0}, {"limit": 10_000}, {"after": "x"}):
        assert code_of(clients["alice"].get(url(game, "moves"), bad), 400) == "invalid_request"


def test_hands_show_commitments_and_reveal_seeds_only_when_over(clients, game):
    assert clients["carol"].get(url(game, "hands")).json()["hands"][0]["seed"] is None

    game = play_until_hand_ends(game, random.Random(3))

    first, second = clients["carol"].get(url(game, "hands")).json()["hands"]
    stored = Hand.objects.get(game=game, number=1)
    assert first["seed"] == stored.seed and first["commitment"] == engine.commitment(stored.seed)
    assert first["scores"] == stored.result["scores"] and first["end_reason"] == stored.end_reason
    assert second["seed"] is None and second["finished_at"] is None


def test_the_hand_that_ends_reveals_its_seed_in_the_log(clients, game):
    rng = random.Random(8)
    while True:
        table = current_table(game)
        action = random_action(table, rng)
        mover = clients[NAME_AT[table.turn]]
        response = _post(mover, game, [action], version=mover.get(url(game)).json()["version"])
        assert response.status_code == 200, response.content
        if response.json()["current_hand"]["number"] == 2:
            break
    after = response.json()["moves"] - 1
    last = clients["eve"].get(url(game, "moves"), {"after": after}).json()["results"]
    events = {e["type"]: e for e in last[-1]["events"]}
    assert events["hand_result"]["seed"] == Hand.objects.get(game=game, number=1).seed
    assert events["deal"]["commitment"] == Hand.objects.get(game=game, number=2).commitment


def test_from_the_second_hand_on_the_table_still_shows_my_cards(clients, game):
    game = play_until_hand_ends(game, random.Random(3))
    table = current_table(game)
    assert table.hand == 2

    body = clients["alice"].get(url(game)).json()

    assert sorted(body["table"]["hand"]) == sorted(table.hands[0])
