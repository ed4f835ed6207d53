"""Moves a day old packed into chunks while the game goes on (games.services.coldmoves, issue
25): the log reads the same through games.movelog, every field and every reader; the game
goes on; an old email's reply, the turn email's table talk and the feed still see the packed
moves; the archive takes the chunks; going back unpacks them."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from clients.payloads import event_entry
from clients.selectors import events_after
from games.models import Game, Move, MoveArchive, MoveChunk, Seat
from games.movelog import game_moves, moves_per_hand
from games.services import coldmoves
from games.services.archive import game_archive
from games.services.chat import chat_post
from games.services.coldmoves import game_pack_cold, moves_pack_cold
from games.services.retention import Budget
from mailplay.models import ReplyToken
from mailplay.services.turns import reply_is_current
from notifications.payloads import turn_chat, turn_chat_news
from tests.game_fixtures import current_table, play_random, user_at
from tests.games.test_move_archive import (
    _ended_games,
    _fields,
    _game,
    _readers,
    assert_no_private_draws,
    operator_page,
)
from tests.migrations import migrate_latest, migrate_to


def _aged(game: Game, upto: int, hours: int = 30, first: int = 1) -> None:
    """Moves first..upto as if logged `hours` ago (the rest stays as played: now)."""
    then = timezone.now() - timedelta(hours=hours)
    Move.objects.filter(game=game, seq__gte=first, seq__lte=upto).update(created_at=then)
    oldest = Move.objects.filter(game=game).order_by("seq").first()
    Game.objects.filter(pk=game.pk).update(moves_cold_since=oldest and oldest.created_at)


def _log(game: Game) -> list[tuple[Any, ...]]:
    return _fields(game_moves(Game.objects.get(pk=game.pk)))


@pytest.fixture
def played(users: dict[str, Any]) -> Game:
    """A classic game for four, 90 moves in (a hand and more at this seed), still on."""
    game = play_random(_game(users, "classic", 4, {"target": 5000}), 90, random.Random(5))
    assert game.status == "active"
    return game


def test_only_the_moves_a_day_old_are_packed_and_the_log_reads_the_same(played: Game) -> None:
    _aged(played, 60)
    logged = _log(played)

    assert moves_pack_cold(budget=Budget()).deleted == 60

    chunk = MoveChunk.objects.get(game=played)
    assert (chunk.first_seq, chunk.last_seq) == (1, 60)
    assert list(Move.objects.filter(game=played).values_list("seq", flat=True)) == list(
        range(61, played.last_seq + 1)
    )
    assert _log(played) == logged
    game = Game.objects.get(pk=played.pk)
    assert game.moves_cold_since == Move.objects.get(game=played, seq=61).created_at
    # Nothing more is due until the oldest row is a day old.
    assert moves_pack_cold(budget=Budget()).deleted == 0


FILTERS = [
    {},
    {"after": 0},
    {"after": 30, "upto": 70},
    {"after": 59, "limit": 3},
    {"after": 61},
    {"upto": 12},
    {"hand": 1},
    {"seat": 2, "after": 40},
    {"latest_first": True, "limit": 40},
    {"latest_first": True, "limit": 5},
    {"latest_first": True, "seat": 1},
    {"after": 55, "upto": 65, "latest_first": True},
    {"after": 500},
]


def test_every_filter_of_the_log_answers_the_same_across_chunks_and_rows(played: Game) -> None:
    _aged(played, 20, hours=50)
    _aged(played, 60, hours=30, first=21)
    before = {str(f): _fields(game_moves(played, **f)) for f in FILTERS}
    moves_pack_cold(budget=Budget(), now=timezone.now() - timedelta(hours=10))
    moves_pack_cold(budget=Budget())  # a second run: a second chunk, 21..60
    assert list(MoveChunk.objects.filter(game=played).values_list("first_seq", "last_seq")) == [
        (1, 20),
        (21, 60),
    ]
    game = Game.objects.get(pk=played.pk)
    for name, answer in before.items():
        assert _fields(game_moves(game, **eval(name))) == answer, name
    assert sum(moves_per_hand(game).values()) == played.last_seq


def test_every_reader_answers_the_same_and_the_game_goes_on(played: Game, users: Any) -> None:
    _aged(played, played.last_seq)
    before = _readers(played, users["alice"])
    feed = [event_entry(e) for e in events_after(user=users["alice"], after=0, limit=500)]
    moves_pack_cold(budget=Budget())
    assert not Move.objects.filter(game=played).exists()

    after = _readers(played, users["alice"])
    for name, answer in before.items():
        assert after[name] == answer, name
    assert [event_entry(e) for e in events_after(user=users["alice"], after=0, limit=500)] == feed
    game = play_random(played, 12, random.Random(8))
    assert game.last_seq == played.last_seq + 12
    assert _readers(game, users["alice"])["verify"] == []


def test_a_reply_to_an_old_turn_stays_refused_once_its_moves_are_packed(played: Game) -> None:
    table = current_table(played)
    seat = table.turn
    token = ReplyToken(
        game=played,
        user=user_at(played, seat),
        seat_number=seat,
        hand=table.hand,
        issued_seq=played.last_seq,
        on_turn=True,
    )
    game = played
    while current_table(game).turn == seat:  # the player moves on from another door
        game = play_random(game, 1, random.Random(3))
    game = play_random(game, 1, random.Random(4))
    assert not reply_is_current(token=token, game=game)
    _aged(game, game.last_seq)
    moves_pack_cold(budget=Budget())
    assert not Move.objects.filter(game=game, seq__gt=played.last_seq).exists()
    assert not reply_is_current(token=token, game=Game.objects.get(pk=game.pk))


def test_table_talk_since_your_last_move_counts_from_a_packed_move(
    played: Game, users: Any
) -> None:
    """The turn email's table talk starts after the player's last move, also when that move
    is packed (its seat keeps it): an older line is not news."""
    seat_number = current_table(played).turn
    mover = user_at(played, seat_number)
    talker = next(user_at(played, n) for n in range(4) if user_at(played, n) != mover)
    chat_post(game_id=played.pk, user=talker, text="Gut gespielt!")
    game = played
    while current_table(game).turn == seat_number:
        game = play_random(game, 1, random.Random(3))
    _aged(game, game.last_seq)
    moves_pack_cold(budget=Budget())

    seat = Seat.objects.annotate(**turn_chat_news()).get(game=game, number=seat_number)
    assert seat.last_packed_seq == max(m.seq for m in game_moves(game) if m.seat == seat_number)
    assert seat.chat_news is False
    assert turn_chat(game=game, seat=seat) == []
    chat_post(game_id=game.pk, user=talker, text="Jetzt du.")
    seat = Seat.objects.annotate(**turn_chat_news()).get(game=game, number=seat_number)
    assert seat.chat_news is True
    assert [line["text"] for line in turn_chat(game=game, seat=seat)] == ["Jetzt du."]


def test_the_archive_takes_the_chunks_and_the_rows(users: Any) -> None:
    game = _ended_games(users, 1)[0]
    _aged(game, game.last_seq // 2, hours=24 * 40)
    logged = _log(game)
    assert game_pack_cold(game_id=game.pk, cutoff=timezone.now()) == game.last_seq
    assert game_archive(game_id=game.pk, now=timezone.now()) == game.last_seq
    assert not MoveChunk.objects.filter(game=game).exists()
    assert not Move.objects.filter(game=game).exists()
    assert MoveArchive.objects.get(game=game).moves == game.last_seq
    assert _log(game) == logged


def test_a_chunk_that_would_not_come_back_the_same_keeps_the_rows(
    played: Game, monkeypatch: Any, caplog: Any
) -> None:
    monkeypatch.setattr(coldmoves, "moves_unpacked", lambda game_id, packed: [])
    _aged(played, 40)
    assert game_pack_cold(game_id=played.pk, cutoff=timezone.now() - timedelta(hours=24)) is None
    assert Move.objects.filter(game=played).count() == played.last_seq
    assert not MoveChunk.objects.exists()
    assert "rows kept" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_going_back_unpacks_every_chunk_into_its_rows(users: Any) -> None:
    game = play_random(_game(users, "classic", 2, {"target": 5000}), 40, random.Random(6))
    _aged(game, 25)
    logged = _fields(list(Move.objects.filter(game=game).order_by("seq")))
    moves_pack_cold(budget=Budget())
    assert MoveChunk.objects.filter(game=game).exists()
    try:
        migrate_to([("games", "0017_move_archive_unpack")])
        rows = list(Move.objects.filter(game=game).order_by("seq"))
        assert _fields(rows) == logged
    finally:
        migrate_latest()
    assert not MoveChunk.objects.exists()


def test_the_operators_page_shows_a_chunks_moves_as_a_spectator_sees_them(played: Game) -> None:
    _aged(played, 30)
    moves_pack_cold(budget=Budget())
    chunk = MoveChunk.objects.get(game=played)
    _, text = operator_page(f"/admin/games/movechunk/{chunk.pk}/change/")
    assert text.count("<tr><td>") == 30
    assert_no_private_draws(text)
