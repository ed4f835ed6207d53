import random

import pytest
from django.core.management import CommandError, call_command

from games import selectors
from games.models import GameState, Hand, Move
from games.services import lobby
from games.services.errors import GameError
from games.services.replay import game_verify
from tests.game_fixtures import play_random, play_until_hand_ends, start_game


def test_my_games_are_filtered_by_status_and_turn(users, game):
    open_game = lobby.game_create(creator=users["bob"], variant="classic", players=2)
    turn_name = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}[game.turn_seat]

    assert set(selectors.games_of_user(user=users["bob"])) == {game, open_game}
    assert list(selectors.games_of_user(user=users["bob"], status="open")) == [open_game]
    assert list(selectors.games_of_user(user=users[turn_name], my_turn=True)) == [game]
    others = {"alice", "bob", "carol", "dave"} - {turn_name}
    for name in others:
        assert list(selectors.games_of_user(user=users[name], my_turn=True)) == []
    assert list(selectors.games_of_user(user=users["eve"])) == []


def test_open_games_are_invitations_and_public_tables_with_room(users):
    public = lobby.game_create(creator=users["alice"], variant="classic", players=2)
    lobby.game_create(creator=users["alice"], variant="classic", players=2, is_public=False)
    full = lobby.game_create(creator=users["alice"], variant="classic", players=2, invite=["bob"])
    invited = lobby.game_create(
        creator=users["carol"], variant="classic", players=4, is_public=False, invite=["eve"]
    )

    assert list(selectors.games_open_to(user=users["eve"])) == [invited, public]
    assert full not in selectors.games_open_to(user=users["dave"])
    assert list(selectors.games_open_to(user=users["alice"])) == []


def test_a_private_game_is_invisible_to_strangers(users, private_game):
    with pytest.raises(GameError) as info:
        selectors.game_visible_to(game_id=private_game.pk, user=users["eve"])
    assert info.value.code == "not_found"
    _, seat = selectors.game_visible_to(game_id=private_game.pk, user=users["bob"])
    assert seat.number == 2


def test_moves_after_pages_through_the_log(game):
    play_random(game, 12)

    page = selectors.moves_after(game=game, after=4, limit=5)
    assert [m.seq for m in page] == [5, 6, 7, 8, 9]
    assert [m.seq for m in selectors.moves_after(game=game, after=10)] == [11, 12]


def test_a_played_game_replays_to_its_snapshot(users):
    game = start_game(users, options={"target": 100})
    rng = random.Random(2)
    while game.status == "active":
        game = play_random(game, 40, rng)

    report = game_verify(game=game)
    assert report.ok, report.problems
    assert report.moves == game.last_seq and report.hands >= 1


def test_verify_games_reports_a_tampered_snapshot_and_exits_non_zero(users, capsys):
    healthy = start_game(users)
    play_random(healthy, 5)
    tampered = start_game(users)
    tampered = play_random(tampered, 5)
    state = GameState.objects.get(game=tampered)
    state.table["discard"].append("JK")
    state.save()

    with pytest.raises(CommandError, match="1 of 2 games differ"):
        call_command("verify_games")
    out = capsys.readouterr().out
    assert f"DIFFERS {tampered.pk}: the snapshot's table differs" in out
    assert str(healthy.pk) not in out

    call_command("verify_games", str(healthy.pk))
    assert "1 games checked, 0 differ" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("tamper", "problem"),
    [
        (lambda g: Move.objects.filter(game=g, seq=3).delete(), "where 3 belongs"),
        (
            lambda g: Move.objects.filter(game=g, seq=2).update(action={"type": "draw"}),
            "refused on replay",
        ),
        (
            lambda g: Hand.objects.filter(game=g, number=1).update(commitment="0" * 64),
            "does not match its commitment",
        ),
        (
            lambda g: GameState.objects.filter(game=g).update(totals=[5, 0]),
            "snapshot totals",
        ),
    ],
)
def test_verification_finds_each_kind_of_difference(game, tamper, problem):
    game = play_until_hand_ends(game, random.Random(4))
    tamper(game)

    report = game_verify(game=game)
    assert any(problem in p for p in report.problems), report.problems
