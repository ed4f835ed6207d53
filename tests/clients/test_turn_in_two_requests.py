"""A turn in two requests (issue 29): `your_turn` carries the version and the concrete legal
actions, and the answer to an accepted batch carries the mover's next legal actions while the
turn is still theirs. Only the seat's own, only to that seat."""

from __future__ import annotations

from clients import selectors
from clients.models import Event
from clients.payloads import event_entry
from tests.api.helpers import url
from tests.clients.helpers import token_client, whole_turn
from tests.game_fixtures import current_table, user_at


def _your_turns(user, after=0):
    events = selectors.events_after(user=user, after=after, limit=500)
    return [event_entry(e) for e in events if e.kind == "your_turn"]


def test_your_turn_carries_the_version_and_the_actions_get_legal_would_give(users, game):
    game = whole_turn(game)
    player = user_at(game, game.turn_seat)
    client = token_client(player)

    (turn,) = _your_turns(player)
    legal = client.get(url(game, "legal")).json()

    assert turn["data"]["version"] == game.version == legal["version"]
    assert turn["data"]["actions"] == legal["actions"] and legal["actions"]
    assert turn["data"]["legal"] == legal["legal"]


def test_the_actions_in_your_turn_are_accepted_as_they_are(users, game):
    game = whole_turn(game)
    player = user_at(game, game.turn_seat)
    client = token_client(player)
    (turn,) = _your_turns(player)
    draw = next(a for a in turn["data"]["actions"] if a["type"] == "draw")

    # The second request of the turn's first batch: no GET in between.
    answer = client.post(
        url(game, "actions"),
        {"actions": [draw], "expected_version": turn["data"]["version"]},
        format="json",
    )

    assert answer.status_code == 200, answer.content
    body = answer.json()
    # Still my turn (now meld or discard): the next batch's actions come with the answer.
    mine = body["your_move"]
    assert mine["my_turn"] is True and mine["version"] == body["version"]
    assert mine["seat"] == game.turn_seat and mine["phase"] == "play"
    assert mine == client.get(url(game, "legal")).json()
    assert {a["type"] for a in mine["actions"]} >= {"discard"}
    # And they are accepted as they are: the discard ends the turn, and says so.
    discard = next(a for a in mine["actions"] if a["type"] == "discard")
    done = client.post(
        url(game, "actions"),
        {"actions": [discard], "expected_version": mine["version"]},
        format="json",
    )
    assert done.status_code == 200, done.content
    assert done.json()["your_move"] is None


def test_only_the_seat_on_turn_gets_your_turn_and_only_its_own_cards(users, game):
    before = Event.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    game = whole_turn(game)
    table = current_table(game)
    on_turn = game.turn_seat
    for seat in range(4):
        turns = _your_turns(user_at(game, seat), after=before)
        assert len(turns) == (1 if seat == on_turn else 0)
    (turn,) = _your_turns(user_at(game, on_turn), after=before)
    hand = set(table.hands[on_turn])
    others = {card for seat, cards in enumerate(table.hands) if seat != on_turn for card in cards}
    named = {
        card
        for action in turn["data"]["actions"]
        for card in ([action["card"]] if "card" in action else []) + action.get("cards", [])
    }
    # Every card an action names is the seat's own (or the pile's top), never another hand's.
    assert not (named & (others - hand))
    assert "hands" not in turn["data"]["view"]
