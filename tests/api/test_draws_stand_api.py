"""POST /games/<id>/actions/: a refusal after a draw from the stock is a 422 that says what
was applied (the draw stands), and a retry with the same Idempotency-Key replays it."""

from __future__ import annotations

from typing import Any

from games import engine
from games.models import Game, Move
from tests.api.helpers import error_of, url
from tests.game_fixtures import current_table

NAME_AT = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}
BATCH = [{"type": "draw"}, {"type": "meld", "melds": [engine.get_rules("classic").deck()]}]


def _post(client: Any, game: Game, key: str) -> Any:
    return client.post(
        url(game, "actions"),
        {"actions": BATCH, "expected_version": game.version},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


def test_the_refusal_says_the_draw_stands_and_gives_the_new_version(
    clients: dict[str, Any], game: Game
) -> None:
    table = current_table(game)
    mover = clients[NAME_AT[table.turn]]

    error = error_of(_post(mover, game, "draw-1"), 422)

    details = error["details"]
    assert (error["code"], details["index"], details["applied"]) == ("card_not_in_hand", 1, 1)
    assert details["version"] == game.version + 1
    assert "draw from the stock stands" in error["message"]
    now = mover.get(url(game)).json()
    assert now["version"] == details["version"]
    assert now["table"]["phase"] == "play"
    assert set(details["drawn"]) <= set(now["table"]["hand"])
    assert len(now["table"]["hand"]) == len(table.hands[table.turn]) + len(details["drawn"])


def test_a_retry_replays_the_refusal_and_draws_nothing_more(
    clients: dict[str, Any], game: Game
) -> None:
    mover = clients[NAME_AT[current_table(game).turn]]

    first = _post(mover, game, "draw-2")
    again = _post(mover, game, "draw-2")

    assert first.status_code == again.status_code == 422
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Move.objects.filter(game=game).count() == 1
    assert Game.objects.get(pk=game.pk).version == game.version + 1
    # Without the key, the same body is now stale: nothing is drawn twice.
    stale = mover.post(
        url(game, "actions"), {"actions": BATCH, "expected_version": game.version}, format="json"
    )
    assert error_of(stale, 409)["code"] == "stale_version"
    assert Move.objects.filter(game=game).count() == 1
