"""Deadlines, reminders, timeouts, bots and the notifications moves write (background work).

Time is moved, never slept: the services take `now`, and the clock is set from it.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from games import engine
from games.models import Actor, Game, Move, Seat
from games.services import lobby
from games.services.bots import bot_take_turn, stale_bot_games
from games.services.clock import clock_refresh_for_user
from games.services.moves import moves_submit
from games.services.timeouts import autoplay_actions, deadlines_sweep, timeout_apply
from notifications.models import Outbox
from tests.game_fixtures import current_table, start_game, user_at

pytestmark = pytest.mark.django_db

HOUR = 3600


def _game(users, **kw):
    return start_game(users, turn_seconds=HOUR, **kw)


def _kinds(user=None, game=None):
    rows = Outbox.objects.all()
    if user is not None:
        rows = rows.filter(recipient=user)
    if game is not None:
        rows = rows.filter(game=game)
    return list(rows.order_by("pk").values_list("kind", flat=True))


def test_it_sets_the_deadline_and_reminder_when_the_turn_begins(users):
    game = _game(users)
    assert game.deadline is not None and game.turn_started_at is not None
    assert game.deadline - game.turn_started_at == timedelta(hours=1)
    assert game.reminder_at - game.turn_started_at == timedelta(minutes=48)


def test_the_first_player_is_told_it_is_their_turn_once(users):
    game = _game(users)
    first = user_at(game, current_table(game).turn)
    assert _kinds(first) == ["your_turn"]
    others = [u for n, u in users.items() if u != first and n != "eve"]
    assert all(_kinds(u) == [] for u in others)


def test_a_whole_turn_notifies_the_next_player_and_only_them(users):
    for user in users.values():  # a row that will be sent keeps its payload until then
        user.email = f"{user.username}@example.com"
        user.save(update_fields=["email"])
    game = _game(users)
    table = current_table(game)
    mover = user_at(game, table.turn)
    after = engine.apply(table, table.turn, {"type": "draw"}).table
    discard = after.hands[table.turn][0]
    game = moves_submit(
        game_id=game.pk,
        user=mover,
        actions=[{"type": "draw"}],
        expected_version=game.version,
    )
    assert Outbox.objects.filter(kind="your_turn").count() == 1  # same turn: nothing new
    game = moves_submit(
        game_id=game.pk,
        user=mover,
        actions=[{"type": "discard", "card": discard}],
        expected_version=game.version,
    )
    nxt = user_at(game, game.turn_seat)
    assert _kinds(nxt) == ["your_turn"]
    assert Outbox.objects.filter(kind="your_turn").count() == 2
    payload = Outbox.objects.get(recipient=nxt).payload
    assert payload["view"]["hand"] == current_table(game).hands[game.turn_seat]
    assert "stock" not in payload["view"] and "hands" not in payload["view"]


def test_a_timeout_is_not_applied_before_the_deadline(users):
    game = _game(users)
    assert timeout_apply(game_id=game.pk, now=game.deadline - timedelta(seconds=1)) is False
    assert Move.objects.filter(game=game).count() == 0


def test_autoplay_draws_and_discards_for_the_silent_player_as_a_system_move(users):
    game = _game(users)
    seat = game.turn_seat
    silent = user_at(game, seat)
    result = deadlines_sweep(now=game.deadline + timedelta(seconds=1))
    assert result["timeouts"] == 1
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    assert [m.action["type"] for m in moves][:2] == ["draw", "discard"]
    assert all(m.actor == Actor.SYSTEM and m.seat == seat for m in moves)
    game.refresh_from_db()
    assert game.turn_seat == (seat + 1) % 4
    assert "timeout" in _kinds(silent)
    assert _kinds(user_at(game, game.turn_seat)).count("your_turn") == 1
    # The next sweep finds nothing more to do: the new deadline lies an hour ahead.
    assert deadlines_sweep(now=game.deadline - timedelta(minutes=30))["timeouts"] == 0
    assert Seat.objects.get(game=game, number=seat).timeouts_in_a_row == 1


def test_a_claimed_timeout_is_applied_once(users):
    game = _game(users)
    late = game.deadline + timedelta(seconds=1)
    assert timeout_apply(game_id=game.pk, now=late) is True
    count = Move.objects.filter(game=game).count()
    assert timeout_apply(game_id=game.pk, now=late) is False
    assert Move.objects.filter(game=game).count() == count


def test_forfeit_ends_the_match_against_the_silent_side(users):
    game = _game(users, timeout_policy="forfeit")
    seat = game.turn_seat
    deadlines_sweep(now=game.deadline + timedelta(seconds=1))
    game.refresh_from_db()
    assert game.status == "finished" and game.end_reason == "forfeit"
    assert game.winner_side == (seat + 1) % 2
    assert game.deadline is None
    assert all("match_over" in _kinds(u) for n, u in users.items() if n != "eve")


@override_settings(CANASTA_TIMEOUTS_BEFORE_BOT=2)
def test_after_repeated_timeouts_a_bot_stands_in_and_plays_that_seat(users):
    game = _game(users)
    seat = game.turn_seat
    now = timezone.now()
    for _ in range(12):
        game.refresh_from_db()
        if game.bot_turn:
            break
        now = max(now, game.deadline) + timedelta(seconds=1)
        deadlines_sweep(now=now)
    stand_in = Seat.objects.get(game=game, number=seat)
    assert stand_in.away and stand_in.bot_level == "basic" and stand_in.timeouts_in_a_row == 2
    game.refresh_from_db()
    assert game.turn_seat == seat and game.bot_turn and game.deadline is None
    assert bot_take_turn(game_id=game.pk) is True
    last = Move.objects.filter(game=game).order_by("seq").last()
    assert last.actor == Actor.BOT and last.seat == seat
    game.refresh_from_db()
    assert game.turn_seat != seat  # (every seat timed out twice: the next one is away too)


def test_a_players_own_move_takes_the_seat_back_from_the_bot(users):
    from games.services.clock import clock_update

    game = _game(users)
    seat = Seat.objects.get(game=game, number=game.turn_seat)
    Seat.objects.filter(pk=seat.pk).update(away=True, bot_level="basic", timeouts_in_a_row=3)
    game = Game.objects.get(pk=game.pk)
    clock_update(game=game)
    game.save()
    assert game.bot_turn and game.deadline is None
    game = moves_submit(
        game_id=game.pk, user=seat.user, actions=[{"type": "draw"}], expected_version=game.version
    )
    seat.refresh_from_db()
    assert not seat.away and seat.timeouts_in_a_row == 0 and seat.bot_level == ""
    assert Move.objects.filter(game=game).last().actor == Actor.PLAYER


def test_a_reminder_goes_out_once_before_the_deadline(users):
    game = _game(users)
    player = user_at(game, game.turn_seat)
    at = game.reminder_at + timedelta(seconds=1)
    assert deadlines_sweep(now=at)["reminders"] == 1
    assert deadlines_sweep(now=at)["reminders"] == 0
    assert _kinds(player).count("reminder") == 1


def test_an_absence_moves_the_deadline_of_the_player_to_move(users):
    from notifications.services.absences import absence_declare

    game = _game(users)
    player = user_at(game, game.turn_seat)
    before = game.deadline
    absence_declare(
        user=player,
        starts_at=timezone.now() + timedelta(minutes=1),
        ends_at=timezone.now() + timedelta(days=2),
    )
    assert clock_refresh_for_user(user=player) == 1
    game.refresh_from_db()
    assert game.deadline > before + timedelta(days=1)


def test_a_table_against_three_bots_starts_at_once_and_the_bots_play_their_turns(users):
    game = lobby.game_create(
        creator=users["alice"],
        variant="classic",
        players=4,
        options={"seating": "invitation"},
        bots=["basic", "basic", "random"],
    )
    game = Game.objects.get(pk=game.pk)
    assert game.status == "active"
    human = next(s.number for s in game.seats.all() if s.user_id == users["alice"].pk)
    for _ in range(30):
        game.refresh_from_db()
        if game.turn_seat == human or game.status != "active":
            break
        assert game.bot_turn and game.deadline is None
        assert bot_take_turn(game_id=game.pk) is True
    game.refresh_from_db()
    assert game.turn_seat == human and not game.bot_turn
    bot_moves = Move.objects.filter(game=game, actor=Actor.BOT)
    assert bot_moves.exists() or human == current_table(game).turn
    assert bot_take_turn(game_id=game.pk) is False  # not a bot's turn: nothing happens


def test_lost_bot_turns_are_found_by_the_sweep(users):
    game = lobby.game_create(
        creator=users["alice"],
        variant="classic",
        players=2,
        bots=["basic"],
        options={"seating": "invitation"},
    )
    bot_seat = Seat.objects.get(game=game, kind="bot").number
    Game.objects.filter(pk=game.pk).update(
        turn_seat=bot_seat, bot_turn=True, turn_started_at=timezone.now() - timedelta(hours=1)
    )
    assert game.pk in stale_bot_games()
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now())
    assert game.pk not in stale_bot_games()


def test_bots_cannot_be_more_than_the_free_seats(users):
    from games.services.errors import GameError

    with pytest.raises(GameError) as err:
        lobby.game_create(
            creator=users["alice"], variant="classic", players=2, bots=["basic", "basic"]
        )
    assert err.value.code == "invalid_bots"
    with pytest.raises(GameError) as err:
        lobby.game_create(creator=users["alice"], variant="classic", players=2, bots=["genius"])
    assert err.value.code == "invalid_bots"


def test_autoplay_takes_the_pile_when_the_empty_stock_leaves_no_choice():
    table = engine.from_json(
        {
            "variant": "classic",
            "players": 4,
            "dealer": 3,
            "turn": 0,
            "phase": "draw",
            "scores": [0, 0],
            "hands": [["7H", "9D", "9S"], ["4C"], ["JK", "8D"], ["QH", "QS"]],
            "stock": [],
            "discard": ["5S", "7S"],
            "melds": [{"7": ["7D", "7C", "7C"]}, {}],
            "red_threes": [[], []],
        }
    )
    actions = autoplay_actions(table, 0)
    assert actions[0]["type"] == "pickup"
    table = engine.apply(table, 0, actions[0]).table
    for action in actions[1:]:
        table = engine.apply(table, 0, action).table
    assert table.turn == 1 or table.over
