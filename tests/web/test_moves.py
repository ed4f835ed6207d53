"""Moves from the game page's plain form (no JavaScript), and the selection it is made of."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.http import QueryDict

from games.models import Game
from tests.game_fixtures import current_table
from tests.web.tables import SHOWN_TABLE, set_table
from web import moves


def _form(**fields: Any) -> moves.MoveForm:
    data = QueryDict(mutable=True)
    for key, value in fields.items():
        for item in value if isinstance(value, list) else [value]:
            data.appendlist(key, str(item))
    return moves.parse(data)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"op": "draw"}, [{"type": "draw"}]),
        ({"op": "pickup"}, [{"type": "pickup"}]),
        (
            {"op": "pickup", "card": ["7h", "7D"], "meld": "KH KS JK"},
            [{"type": "pickup", "cards": ["7H", "7D"], "melds": [["KH", "KS", "JK"]]}],
        ),
        (
            {"op": "meld", "card": ["7H", "7D", "2C"], "meld": "KH KS KD"},
            [{"type": "meld", "melds": [["KH", "KS", "KD"], ["7H", "7D", "2C"]]}],
        ),
        ({"op": "add", "card": ["AH", "2C"]}, [{"type": "meld", "add": {"A": ["AH", "2C"]}}]),
        ({"op": "add", "card": ["JK"], "add_to": "q"}, [{"type": "meld", "add": {"Q": ["JK"]}}]),
        ({"op": "discard", "card": "9C"}, [{"type": "discard", "card": "9C"}]),
        (
            {"op": "discard", "card": "9C", "meld": "4H 4S 4D"},
            [{"type": "meld", "melds": [["4H", "4S", "4D"]]}, {"type": "discard", "card": "9C"}],
        ),
        ({"op": "ask"}, [{"type": "ask_partner"}]),
        ({"op": "yes"}, [{"type": "answer", "yes": True}]),
        ({"op": "no"}, [{"type": "answer", "yes": False}]),
    ],
)
def test_it_turns_the_selection_into_actions(fields: dict[str, Any], expected: list) -> None:
    assert moves.actions(_form(**fields), ["A", "Q", "T"]) == expected


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"op": "discard"}, "exactly one card"),
        ({"op": "discard", "card": ["9C", "8C"]}, "exactly one card"),
        ({"op": "meld"}, "Select the cards to meld"),
        ({"op": "add", "card": ["JK"]}, "Choose the meld"),
        ({"op": "add", "card": ["AH", "KH"]}, "one rank at a time"),
        ({"op": "fly"}, "Unknown button"),
    ],
)
def test_it_explains_a_selection_that_makes_no_action(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(moves.SelectionError, match=message):
        moves.actions(_form(**fields), ["A", "Q"])


def test_setting_aside_makes_a_plan_and_clear_drops_it() -> None:
    form = moves.apply_plan_op(_form(op="set_aside", card=["4H", "4S", "4D"], meld="KH KS KD"))
    assert form.plan == [["KH", "KS", "KD"], ["4H", "4S", "4D"]] and form.cards == []
    assert moves.apply_plan_op(_form(op="clear", meld="KH KS KD")).plan == []
    with pytest.raises(moves.SelectionError):
        moves.apply_plan_op(_form(op="set_aside"))


def _post(client: Any, game: Game, **fields: Any) -> Any:
    data = {"version": str(Game.objects.get(pk=game.pk).version), **fields}
    return client.post(f"/games/{game.pk}/move/", data)


def test_it_plays_a_turn_with_plain_forms(game: Game, browser_for: Any) -> None:
    game = set_table(game, SHOWN_TABLE)
    alice = browser_for("alice")
    response = _post(alice, game, op="draw")
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    table = current_table(game)
    assert table.phase == "play" and len(table.hands[0]) == 9
    response = _post(alice, game, op="add", card=["KH", "KS"], add_to="")  # no K meld yet
    assert response.status_code == 422
    response = _post(alice, game, op="meld", card=["7D", "7C", "2C"])
    assert response.status_code == 302
    assert current_table(game).melds[0]["7"] == ["7D", "7C", "2C"]
    response = _post(alice, game, op="discard", card="5S")
    assert response.status_code == 302
    assert current_table(game).turn == 1


def test_an_illegal_move_is_explained_in_place(game: Game, browser_for: Any) -> None:
    game = set_table(game, SHOWN_TABLE)
    alice = browser_for("alice")
    _post(alice, game, op="draw")
    before = current_table(game)
    response = _post(alice, game, op="meld", card=["KH", "7D"])
    assert response.status_code == 422
    html = response.content.decode()
    alert = re.search(
        r'<div class="alert" id="move-error" role="alert" tabindex="-1" data-code="([^"]*)">'
        r"(.*?)</div>",
        html,
        re.S,
    )
    assert alert is not None
    assert "The K♥ and 7♦ are of different ranks" in alert.group(2)
    # Words, not codes: the code is kept for scripts and tests, out of the sentence.
    assert alert.group(1) == "invalid_meld" and "<code>" not in alert.group(2)
    # nothing changed, and the selection is kept
    assert current_table(game).to_json() == before.to_json()
    assert re.search(r'value="KH" id="c-KH-1" [^>]*checked', html)
    assert re.search(r'value="7D" id="c-7D-1" [^>]*checked', html)


def test_it_explains_moves_out_of_turn_and_stale_pages(game: Game, browser_for: Any) -> None:
    game = set_table(game, SHOWN_TABLE)
    response = _post(browser_for("carol"), game, op="draw")
    assert response.status_code == 422
    assert b"not_your_turn" in response.content
    stale = browser_for("alice").post(
        f"/games/{game.pk}/move/", {"version": str(game.version - 1), "op": "draw"}
    )
    assert stale.status_code == 409
    assert b"The table changed since you loaded it" in stale.content
    assert current_table(game).phase == "draw"


def test_a_wrong_selection_is_explained_before_the_engine(game: Game, browser_for: Any) -> None:
    game = set_table(game, SHOWN_TABLE)
    alice = browser_for("alice")
    _post(alice, game, op="draw")
    response = _post(alice, game, op="discard", card=["KH", "KS"])
    assert response.status_code == 400
    assert b"Select exactly one card to discard." in response.content


def test_cards_set_aside_come_back_with_the_page_and_are_laid_together(
    game: Game, browser_for: Any
) -> None:
    game = set_table(game, SHOWN_TABLE)
    alice = browser_for("alice")
    _post(alice, game, op="draw")
    page = _post(alice, game, op="set_aside", card=["KH", "KS", "JK"])
    assert page.status_code == 200
    html = page.content.decode()
    assert '<input type="hidden" name="meld" value="KH KS JK">' in html
    assert 'value="KH" id=' not in html  # set aside: no longer in the hand
    response = _post(alice, game, op="meld", meld="KH KS JK", card=["7D", "7C", "2C"])
    assert response.status_code == 302
    melds = current_table(game).melds[0]
    assert melds["K"] == ["KH", "KS", "JK"] and melds["7"] == ["7D", "7C", "2C"]


def test_resigning_ends_the_match(game: Game, browser_for: Any) -> None:
    response = browser_for("bob").post(f"/games/{game.pk}/resign/")
    assert response.status_code == 302
    game = Game.objects.get(pk=game.pk)
    assert game.status == "finished" and game.winner_side == 1
    html = browser_for("alice").get(f"/games/{game.pk}/").content.decode()
    assert "The match is over (a side resigned): carol &amp; dave won." in html


def test_move_forms_need_the_csrf_token(game: Game, browser_for: Any) -> None:
    game = set_table(game, SHOWN_TABLE)
    client = browser_for("alice", csrf=True)
    assert _post(client, game, op="draw").status_code == 403
    for url in ("resign/", "abort/", "leave/", "join/"):
        assert client.post(f"/games/{game.pk}/{url}").status_code == 403
    html = client.get(f"/games/{game.pk}/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert token is not None
    response = _post(client, game, op="draw", csrfmiddlewaretoken=token.group(1))
    assert response.status_code == 302
    assert current_table(game).phase == "play"


def test_the_api_accepts_the_pages_session_with_its_csrf_header(
    game: Game, browser_for: Any
) -> None:
    """What game.js does: POST actions to the REST API with the session and X-CSRFToken."""
    game = set_table(game, SHOWN_TABLE)
    client = browser_for("alice", csrf=True)
    url = f"/api/v1/games/{game.pk}/actions/"
    body = {"actions": [{"type": "draw"}], "expected_version": game.version}
    refused = client.post(url, body, content_type="application/json")
    assert refused.status_code == 403
    client.get(f"/games/{game.pk}/")
    token = client.cookies["csrftoken"].value
    response = client.post(url, body, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200
    assert current_table(game).phase == "play"


def test_it_takes_the_pile_with_a_pair_and_melds_set_aside(game: Game, browser_for: Any) -> None:
    table = {**SHOWN_TABLE, "discard": ["4S", "8C", "KC"]}
    game = set_table(game, table)
    response = _post(browser_for("alice"), game, op="pickup", card=["KH", "KS"], meld="7D 7C 2C")
    assert response.status_code == 302
    after = current_table(game)
    assert sorted(after.melds[0]["K"]) == ["KC", "KH", "KS"]
    assert after.melds[0]["7"] == ["7D", "7C", "2C"]
    assert after.discard == [] and after.phase == "play"
    assert {"4S", "8C"} <= set(after.hands[0])


def _post_in_place(client: Any, game: Game, **fields: Any) -> Any:
    """What game.js does with what it cannot build itself: the same form, asking for JSON."""
    data = {"version": str(Game.objects.get(pk=game.pk).version), **fields}
    return client.post(f"/games/{game.pk}/move/", data, HTTP_ACCEPT="application/json")


def test_in_place_the_form_answers_in_the_one_error_shape(game: Game, browser_for: Any) -> None:
    game = set_table(game, {**SHOWN_TABLE, "discard": ["4S", "8C", "KC"]})
    alice = browser_for("alice")
    # The pile with nothing selected: the engine's first way, played, no page.
    taken = _post_in_place(alice, game, op="pickup")
    assert taken.status_code == 200 and taken.json() == {"played": 1}
    assert current_table(game).phase == "play" and current_table(game).discard == []
    before = current_table(game).to_json()
    refusals = [
        ({"op": "discard", "card": ["KH", "7D"]}, 400, "Select exactly one card to discard."),
        ({"op": "meld"}, 400, "Select the cards to meld first."),
        ({"op": "set_aside"}, 400, "Select the cards of the meld to set aside first."),
        ({"op": "fold"}, 400, "Unknown button."),
        ({"op": "meld", "card": ["7D", "4H"]}, 422, "are of different ranks"),
    ]
    for fields, status, words in refusals:
        refused = _post_in_place(alice, game, **fields)
        assert refused.status_code == status, fields
        error = refused.json()["error"]
        assert words in error["message"] and error["code"]
        assert error["details"].get("applied", 0) == 0
    assert current_table(game).to_json() == before  # nothing changed
    stale = alice.post(
        f"/games/{game.pk}/move/",
        {"version": "1", "op": "discard", "card": "KH"},
        HTTP_ACCEPT="application/json",
    )
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale_version"
