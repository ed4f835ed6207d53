"""Oracle check for the forced draw of play by email (issue 14, fair-play.md): whether the
service draws for a player is seen by the whole table, so it may not depend on that player's
hand. Two twin games differ only in carol's hand (she can take the pile in one, not in the
other); what alice sees after her move must be the same in both."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games import engine
from games.engine.legal import pickup_actions
from games.models import Game, Move
from games.services.moves import moves_submit
from mailplay.services.autodraw import mail_player_set
from tests.api.helpers import url
from tests.game_fixtures import (  # noqa: F401
    client_for,
    current_table,
    fast_password_hashing,
    pinned_seeds,
    start_game,
    users,
)
from tests.leaks.twins import KEEP_TOP, table_set

CAROL = 1


def _rank_to_discard(table: dict[str, Any]) -> str:
    """An ace in alice's hand (seat 0): on top of the pile it blocks nobody, and three aces
    are worth an initial meld (60 points), so a natural pair of aces takes the pile."""
    hand = table["hands"][0]
    if not any(c[0] == "A" for c in hand):
        place, where = next(
            (place, i)
            for place, start in [(table["stock"], KEEP_TOP), (table["hands"][2], 0)]
            for i in range(start, len(place))
            if place[i][0] == "A"
        )
        hand[0], place[where] = place[where], hand[0]
    return next(c for c in hand if c[0] == "A")


def _swap(table: dict[str, Any], wanted: Any, unwanted: Any, count: int) -> None:
    """Give carol ``count`` cards that match ``wanted`` in place of cards matching
    ``unwanted``, swapped with the stock below its top and with the other players but alice
    (alice's view must not change)."""
    hand = table["hands"][CAROL]
    places = [(table["stock"], range(KEEP_TOP, len(table["stock"])))]
    places += [(table["hands"][s], range(len(table["hands"][s]))) for s in (2, 3)]
    for _ in range(count):
        mine = next(i for i, c in enumerate(hand) if unwanted(c))
        place, where = next(
            (place, i) for place, indexes in places for i in indexes if wanted(place[i])
        )
        hand[mine], place[where] = place[where], hand[mine]


def _twins(base: dict[str, Any]) -> list[dict[str, Any]]:
    card = _rank_to_discard(base)
    rank = card[0]
    other_cards = [c for c in base["hands"][0] if c != card]

    def natural(c: str) -> bool:
        return c[0] == rank and c not in other_cards

    def harmless(c: str) -> bool:
        return c[0] not in (rank, "2", "3") and c != "JK"

    can = json.loads(json.dumps(base))
    held = sum(1 for c in can["hands"][CAROL] if c[0] == rank)
    _swap(can, natural, lambda c: c[0] != rank, max(0, 2 - held))
    cannot = json.loads(json.dumps(base))
    held = sum(1 for c in cannot["hands"][CAROL] if c[0] == rank or c[0] == "2" or c == "JK")
    _swap(cannot, harmless, lambda c: c[0] == rank or c[0] == "2" or c == "JK", held)
    return [can, cannot]


@pytest.mark.parametrize("choice", [True, "always"], ids=["pile_closed", "always"])
def test_the_forced_draw_does_not_tell_whether_a_hand_can_take_the_pile(
    users: dict[str, Any],  # noqa: F811
    settings: Any,
    choice: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.CANASTA_MAIL_AUTO_DRAW = True
    # The twins are built by moving cards between hands and the stock; some deals leave too
    # few of them to move, so every run deals the same cards.
    monkeypatch.setattr(engine, "new_seed", pinned_seeds("forced-draw-oracle"))
    games = [start_game(users), start_game(users)]
    base = current_table(games[0]).to_json()
    assert base["turn"] == 0 and base["phase"] == "draw"
    card = _rank_to_discard(base)  # gives alice an ace if she has none
    twins = _twins(base)
    for game, table in zip(games, twins, strict=True):
        table_set(game, table)
    # The twins are what they claim: carol can take the pile in the first, not the second.
    after = [
        engine.apply(
            engine.apply(engine.from_json(t), 0, {"type": "draw"}).table,
            0,
            {"type": "discard", "card": card},
        ).table
        for t in twins
    ]
    assert [bool(pickup_actions(t, CAROL)) for t in after] == [True, False]
    mail_player_set(user=users["carol"], auto_draw=choice)

    seen = []
    for game in games:
        game = Game.objects.get(pk=game.pk)
        moves_submit(
            game_id=game.pk,
            user=users["alice"],
            actions=[{"type": "draw"}, {"type": "discard", "card": card}],
            expected_version=game.version,
        )
        log = list(Move.objects.filter(game=game).values_list("seat", "actor", "action"))
        view = client_for(users["alice"]).get(url(game)).json()["table"]
        seen.append((log, view))

    assert seen[0] == seen[1], "the forced draw tells whether carol can take the pile"
    drew = any(seat == CAROL for seat, _, _ in seen[0][0])
    assert drew == (choice == "always")
