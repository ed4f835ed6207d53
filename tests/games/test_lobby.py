from datetime import timedelta

import pytest

from games import engine
from games.models import EndReason, Game, GameState, GameStatus, Hand, SeatStatus
from games.services import lobby
from games.services.errors import ErrorKind, GameError
from tests.game_fixtures import make_user, start_game


def _error(call, **kwargs) -> GameError:
    with pytest.raises(GameError) as info:
        call(**kwargs)
    return info.value


def test_it_creates_a_table_with_the_creator_seated_and_defaults_filled_in(users):
    game = lobby.game_create(creator=users["alice"], variant="classic", players=2)

    assert game.status == GameStatus.OPEN
    assert game.version == 1
    assert game.options == {
        "seating": "draw",
        "black_three": "freeze",
        "target": 5000,
        "ask_partner": False,
    }
    [seat] = game.seats.all()
    assert (seat.user, seat.status, seat.number) == (users["alice"], SeatStatus.JOINED, None)


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"variant": "poker", "players": 4}, "unknown_variant"),
        ({"variant": "classic", "players": 3}, "invalid_players"),
        ({"variant": "classic", "players": 4, "options": {"colour": "red"}}, "invalid_options"),
        ({"variant": "classic", "players": 4, "options": {"target": 50}}, "invalid_options"),
        ({"variant": "classic", "players": 4, "turn_seconds": 5}, "invalid_time_control"),
        ({"variant": "classic", "players": 4, "timeout_policy": "nap"}, "invalid_time_control"),
        ({"variant": "classic", "players": 4, "invite": ["nobody"]}, "unknown_user"),
        ({"variant": "classic", "players": 4, "invite": ["bob", "bob"]}, "invalid_invite"),
        ({"variant": "classic", "players": 4, "invite": ["alice"]}, "invalid_invite"),
        ({"variant": "classic", "players": 2, "invite": ["bob", "carol"]}, "invalid_invite"),
    ],
)
def test_it_refuses_an_invalid_table(users, kwargs, code):
    error = _error(lobby.game_create, creator=users["alice"], **kwargs)

    assert (error.kind, error.code) == (ErrorKind.INVALID, code)
    assert not Game.objects.exists()


def test_it_starts_when_the_last_seat_fills_and_deals_hand_one(users):
    game = start_game(users, turn_seconds=3600)

    assert game.status == GameStatus.ACTIVE
    assert game.version == 4  # created, then three joins
    assert [(s.number, s.user.username) for s in game.seats.order_by("number")] == [
        (0, "alice"),
        (1, "carol"),
        (2, "bob"),
        (3, "dave"),
    ]
    hand = Hand.objects.get(game=game)
    assert (hand.number, hand.finished_at) == (1, None)
    assert engine.commitment(hand.seed) == hand.commitment
    state = GameState.objects.get(game=game)
    assert state.table == engine.deal("classic", 4, hand.seed, options=game.options).to_json()
    assert state.hand_commitment == hand.commitment
    assert game.turn_seat == engine.from_json(state.table).turn
    assert game.deadline == pytest.approx(
        game.started_at + timedelta(seconds=3600), abs=timedelta(seconds=5)
    )


def test_seating_by_the_draw_follows_the_engine_and_keeps_its_seed(users):
    game = lobby.game_create(creator=users["alice"], variant="classic", players=4)
    for name in ("bob", "carol", "dave"):
        lobby.game_join(game_id=game.pk, user=users[name])
    game.refresh_from_db()

    in_join_order = list(game.seats.order_by("joined_at"))
    drawn = engine.draw_cards(game.seating_seed, 4)
    assert [s.drew for s in in_join_order] == drawn
    assert [s.number for s in in_join_order] == engine.seats_by_draw(drawn, 2)


def test_random_seating_gives_every_player_a_distinct_seat(users):
    game = lobby.game_create(
        creator=users["alice"], variant="classic", players=4, options={"seating": "random"}
    )
    for name in ("bob", "carol", "dave"):
        lobby.game_join(game_id=game.pk, user=users[name])

    assert sorted(game.seats.values_list("number", flat=True)) == [0, 1, 2, 3]
    assert Game.objects.get(pk=game.pk).seating_seed == ""


def test_an_invited_seat_is_kept_for_the_invitee(users):
    game = lobby.game_create(creator=users["alice"], variant="classic", players=2, invite=["bob"])

    error = _error(lobby.game_join, game_id=game.pk, user=users["eve"])
    assert (error.kind, error.code) == (ErrorKind.CONFLICT, "game_full")

    joined = lobby.game_join(game_id=game.pk, user=users["bob"])
    assert joined.status == GameStatus.ACTIVE


def test_a_private_game_is_joinable_by_link_but_hidden_once_full(users):
    game = lobby.game_create(creator=users["alice"], variant="classic", players=2, is_public=False)

    lobby.game_join(game_id=game.pk, user=users["bob"])

    error = _error(lobby.game_join, game_id=game.pk, user=users["eve"])
    assert (error.kind, error.code) == (ErrorKind.NOT_FOUND, "not_found")


def test_it_refuses_to_join_twice_or_a_started_game(users, game):
    error = _error(lobby.game_join, game_id=game.pk, user=users["bob"])
    assert error.code == "already_joined"

    error = _error(lobby.game_join, game_id=game.pk, user=users["eve"])
    assert (error.kind, error.code) == (ErrorKind.CONFLICT, "game_not_open")


def test_leaving_frees_the_seat_and_the_last_one_out_closes_the_table(users):
    game = lobby.game_create(creator=users["alice"], variant="classic", players=4)
    lobby.game_join(game_id=game.pk, user=users["bob"])

    after = lobby.game_leave(game_id=game.pk, user=users["bob"])
    assert after.version == 3
    assert [s.user.username for s in after.seats.all()] == ["alice"]

    closed = lobby.game_leave(game_id=game.pk, user=users["alice"])
    assert (closed.status, closed.end_reason) == (GameStatus.ABORTED, EndReason.CANCELLED)


def test_an_invitee_declines_by_leaving(users):
    game = lobby.game_create(creator=users["alice"], variant="classic", players=2, invite=["bob"])

    lobby.game_leave(game_id=game.pk, user=users["bob"])

    assert lobby.game_join(game_id=game.pk, user=users["eve"]).status == GameStatus.ACTIVE


def test_it_refuses_to_leave_a_started_game_or_one_without_a_seat(users, game):
    assert _error(lobby.game_leave, game_id=game.pk, user=users["bob"]).code == "game_not_open"
    error = _error(lobby.game_leave, game_id=game.pk, user=users["eve"])
    assert (error.kind, error.code) == (ErrorKind.FORBIDDEN, "not_seated")


def test_a_started_game_is_aborted_before_the_first_move_and_its_seed_revealed(users, game):
    aborted = lobby.game_abort(game_id=game.pk, user=users["dave"])

    assert (aborted.status, aborted.end_reason, aborted.winner_side) == (
        GameStatus.ABORTED,
        EndReason.ABORTED,
        None,
    )
    hand = Hand.objects.get(game=game)
    assert hand.finished_at is not None and hand.end_reason == "aborted"


def test_only_the_creator_calls_off_an_open_table(users):
    game = lobby.game_create(creator=users["alice"], variant="classic", players=4)
    lobby.game_join(game_id=game.pk, user=users["bob"])

    assert _error(lobby.game_abort, game_id=game.pk, user=users["bob"]).code == "permission_denied"
    assert lobby.game_abort(game_id=game.pk, user=users["alice"]).status == GameStatus.ABORTED


def test_inactive_users_cannot_be_invited(users):
    ghost = make_user("ghost")
    ghost.is_active = False
    ghost.save()

    error = _error(
        lobby.game_create, creator=users["alice"], variant="classic", players=2, invite=["ghost"]
    )
    assert error.code == "unknown_user"
