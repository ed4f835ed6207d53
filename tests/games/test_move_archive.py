"""A finished game's move log packed into one row after 31 days (games.services.archive, issue
25): it comes back as the same moves, every field; every reader of the log answers the same
before and after; nothing can be written to it; the task is bounded and resumable."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.services.deletion import account_delete
from accounts.services.export import account_export
from games.models import Actor, Game, Move, MoveArchive
from games.movearchive import moves_packed, moves_unpacked
from games.movelog import game_moves, move_hand, moves_per_hand
from games.scoresheet import scoresheet_match
from games.selectors import moves_page, recent_moves
from games.services import archive, lobby
from games.services.archive import game_archive, moves_archive
from games.services.errors import GameError
from games.services.moves import game_resign, moves_submit
from games.services.ratings import _losing_side, turn_counts
from games.services.records import hand_steps, match_frames, record_export, replay_frame
from games.services.replay import game_verify, table_after
from games.services.retention import Budget, Pruned
from tests.game_fixtures import PASSWORD, client_for, play_random, user_at
from tests.migrations import migrate_latest, migrate_to

FIELDS = ("seq", "hand", "seat", "actor", "action", "events", "created_at")


def _fields(moves: list[Move]) -> list[tuple[Any, ...]]:
    # The JSON values as text too: their keys come back in their order.
    return [
        (*(getattr(m, name) for name in FIELDS), json.dumps(m.action), json.dumps(m.events))
        for m in moves
    ]


def _game(users: dict[str, Any], variant: str, players: int, options: dict[str, Any]) -> Game:
    game = lobby.game_create(
        creator=users["alice"],
        variant=variant,
        players=players,
        options={"seating": "invitation", **options},
    )
    for name in ("carol", "bob", "dave")[: players - 1]:
        game = lobby.game_join(game_id=game.pk, user=users[name])
    return game


def _played_out(game: Game, seed: int) -> Game:
    rng = random.Random(seed)
    while game.status == "active":
        game = play_random(game, 40, rng)
    return Game.objects.get(pk=game.pk)


def _resigned_after(game: Game, moves: int, seed: int) -> Game:
    game = play_random(game, moves, random.Random(seed))
    game_resign(game_id=game.pk, user=user_at(game, 1))
    return Game.objects.get(pk=game.pk)


def _ended(game: Game) -> datetime:
    assert game.finished_at is not None
    return game.finished_at


def _archived(game: Game) -> Game:
    later = _ended(game) + timedelta(days=32)
    assert moves_archive(budget=Budget(), now=later).done
    assert not Move.objects.filter(game=game).exists()
    return Game.objects.get(pk=game.pk)


@pytest.fixture
def finished(users: dict[str, Any]) -> Game:
    """A classic match for four played to its end (a low target: a hand or two)."""
    return _played_out(_game(users, "classic", 4, {"target": 100}), seed=2)


VARIANTS = [
    ("classic", 2, {"target": 100}, None),
    ("family", 4, {"target": 100}, None),
    ("party", 3, {"target": 100}, None),
    ("tiles", 4, {}, 90),  # resigned: a whole tiles match is many hands
]


@pytest.mark.parametrize(("variant", "players", "options", "resign_after"), VARIANTS)
def test_every_variant_comes_back_as_it_was_logged(
    users: Any, variant: Any, players: Any, options: Any, resign_after: Any
) -> None:
    game = _game(users, variant, players, options)
    if resign_after is None:
        game = _played_out(game, seed=7)
    else:
        game = _resigned_after(game, resign_after, seed=7)
    logged = list(Move.objects.filter(game=game).order_by("seq"))

    game = _archived(game)

    assert _fields(game_moves(game)) == _fields(logged)
    assert MoveArchive.objects.get(game=game).moves == len(logged)
    assert game_verify(game=game).ok


def test_every_field_comes_back_to_the_microsecond(game: Any) -> None:
    at = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
    moves = [
        Move(game=game, seq=1, hand=1, seat=0, actor=Actor.PLAYER, action={"type": "draw"},
             events=[{"type": "draw", "seat": 0, "private": 0, "cards": ["5H"]}], created_at=at),
        Move(game=game, seq=2, hand=1, seat=0, actor=Actor.SYSTEM,
             action={"type": "discard", "card": "5H"}, events=[], created_at=at - timedelta(1)),
        # A gap in seq and a later hand, a bot, text beyond ASCII, an event of another seat.
        Move(game=game, seq=5, hand=3, seat=3, actor=Actor.BOT, action={"type": "resign", "n": "é\t"},
             events=[{"type": "resign", "side": 1}, {"type": "draw", "seat": 1}],
             created_at=at + timedelta(days=40, microseconds=1)),
    ]  # fmt: skip
    packed = moves_packed(moves)

    assert packed[0] == 1
    assert _fields(moves_unpacked(game.pk, packed)) == _fields(moves)
    assert moves_unpacked(game.pk, moves_packed([])) == []
    with pytest.raises(ValueError, match="unknown format"):
        moves_unpacked(game.pk, b"\x09" + packed[1:])


def _web(client: Client, url: str) -> tuple[int, str]:
    answer = client.get(url)
    # What differs between two requests of the same page: its nonces and form tokens.
    text = re.sub(r'(nonce|value)="[^"]*"', "", answer.content.decode())
    return answer.status_code, text


def _json(table: Any) -> Any:
    return None if table is None else table.to_json()


def _readers(game: Game, user: Any) -> dict[str, Any]:
    """Every answer built from the log, as the readers give it (the game read afresh)."""
    game = Game.objects.get(pk=game.pk)
    api, web = client_for(user), Client()
    web.force_login(user)
    steps = hand_steps(game)
    last = max(steps)
    return {
        "api moves": api.get(f"/api/v1/games/{game.pk}/moves/?limit=500").json(),
        "api moves after 5": api.get(f"/api/v1/games/{game.pk}/moves/?after=5&limit=3").json(),
        "api record": api.get(f"/api/v1/games/{game.pk}/record/").json(),
        "api hands": api.get(f"/api/v1/games/{game.pk}/hands/").json(),
        "web record": _web(web, f"/games/{game.pk}/record.json"),
        "web replay": _web(web, f"/games/{game.pk}/replay/?hand={last}&step={steps[last] // 2}"),
        "web game page": _web(web, f"/games/{game.pk}/"),
        "page": [m.seq for m in moves_page(game=game, after=3, limit=4)[0]],
        "recent": [m.seq for m in recent_moves(game=game, limit=7)],
        "steps": steps,
        "frames": [f.table.to_json() for f in match_frames(game)],
        "frame": replay_frame(game, last, steps[last]).table.to_json(),
        "export": record_export(game=game),
        "account export": account_export(user=user)["games"],
        "sheets": [sheet.__dict__ for sheet in scoresheet_match(game=game)],
        "turns": turn_counts(game),
        "losing side": _losing_side(game),
        "verify": game_verify(game=game).problems,
        "table after 10": _json(table_after(game=game, seq=10)),
        "hand of 10": move_hand(game, 10),
        "per hand": moves_per_hand(game),
    }


def test_every_reader_answers_the_same_after_archiving(finished: Any, users: Any) -> None:
    before = _readers(finished, users["alice"])
    assert before["api moves"]["results"] and before["verify"] == []

    _archived(finished)

    after = _readers(finished, users["alice"])
    for name, answer in before.items():
        assert after[name] == answer, name


def test_a_resigned_match_keeps_its_losing_side(users: Any) -> None:
    game = _resigned_after(_game(users, "classic", 4, {"target": 5000}), 30, seed=4)
    before = _losing_side(game)
    assert before == 1

    assert _losing_side(_archived(game)) == before


def test_a_reader_with_a_game_read_before_the_archive_finds_the_archive(finished: Any) -> None:
    stale = Game.objects.get(pk=finished.pk)
    logged = _fields(list(Move.objects.filter(game=finished).order_by("seq")))

    _archived(finished)

    assert stale.moves_archived_at is None
    assert _fields(game_moves(stale)) == logged
    assert moves_per_hand(Game.objects.get(pk=finished.pk)) == moves_per_hand(stale)


def test_nothing_can_be_played_on_an_archived_game(finished: Any) -> None:
    game = _archived(finished)
    with pytest.raises(GameError):
        moves_submit(
            game_id=game.pk,
            user=user_at(game, 0),
            actions=[{"type": "draw"}],
            expected_version=game.version,
        )
    with pytest.raises(GameError):
        game_resign(game_id=game.pk, user=user_at(game, 0))
    assert not Move.objects.filter(game=game).exists()
    assert game_archive(game_id=game.pk, now=_ended(game)) == 0  # archived once only


def test_only_games_ended_long_enough_ago_are_archived(
    finished: Any, game: Any, settings: Any
) -> None:
    settings.CANASTA_MOVE_ARCHIVE_DAYS = 31
    play_random(game, 5)
    ended = _ended(finished)

    assert moves_archive(budget=Budget(), now=ended + timedelta(days=30)) == Pruned(0)
    logged = Move.objects.filter(game=finished).count()
    assert moves_archive(budget=Budget(), now=ended + timedelta(days=32)) == Pruned(logged)

    assert Move.objects.filter(game=game).count() == 5  # the active game keeps its rows
    assert Game.objects.get(pk=game.pk).moves_archived_at is None


class _Games(Budget):
    """A budget spent after `games` games (the archive checks it before each)."""

    def __init__(self, games: int) -> None:
        super().__init__()
        self.left = games + 1

    def spent(self) -> bool:
        self.left -= 1
        return self.left < 0


def _ended_games(users: dict[str, Any], count: int) -> list[Game]:
    games = []
    for n in range(count):
        game = _game(users, "classic", 2, {"target": 5000})
        games.append(_resigned_after(game, 4 + n, seed=n))
    return games


def test_a_run_stops_at_its_budget_and_the_next_goes_on_from_the_oldest_left(
    users: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(archive, "GAMES_PER_RANGE", 2)
    games = _ended_games(users, 5)
    later = max(_ended(g) for g in games) + timedelta(days=32)

    first = moves_archive(budget=_Games(3), now=later)

    assert not first.done
    archived = set(
        Game.objects.filter(moves_archived_at__isnull=False).values_list("pk", flat=True)
    )
    oldest = sorted(games, key=_ended)
    assert archived == {g.pk for g in oldest[:2]} or archived == {g.pk for g in oldest[:3]}
    rest = moves_archive(budget=Budget(), now=later)
    assert rest.done and first.deleted + rest.deleted == sum(g.last_seq for g in games)
    assert not Move.objects.exists() and MoveArchive.objects.count() == 5


def test_a_log_that_would_not_come_back_the_same_keeps_its_rows(
    finished: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(archive, "moves_unpacked", lambda game_id, packed: [])
    later = _ended(finished) + timedelta(days=32)

    assert moves_archive(budget=Budget(), now=later) == Pruned(0, done=True)

    assert Move.objects.filter(game=finished).count() == finished.last_seq
    assert not MoveArchive.objects.exists()


def test_deleting_a_game_deletes_its_archive(finished: Any) -> None:
    _archived(finished)
    Game.objects.filter(pk=finished.pk).delete()
    assert not MoveArchive.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_going_back_unpacks_every_archive_into_its_rows(users: Any) -> None:
    games = _ended_games(users, 2)
    logged = {g.pk: _fields(list(Move.objects.filter(game=g).order_by("seq"))) for g in games}
    for game in games:
        assert game_archive(game_id=game.pk, now=_ended(game)) == game.last_seq
    try:
        migrate_to([("games", "0015_move_events_packed")])
        for game in games:
            rows = list(Move.objects.filter(game=game).order_by("seq"))
            assert _fields(rows) == logged[game.pk]
    finally:
        migrate_latest()
    assert not MoveArchive.objects.exists()


def test_a_longer_feed_retention_pushes_the_archive_past_it(finished: Game, settings: Any) -> None:
    settings.CANASTA_MOVE_ARCHIVE_DAYS = 31
    settings.CANASTA_EVENTS_RETENTION_DAYS = 60
    ended = _ended(finished)

    assert moves_archive(budget=Budget(), now=ended + timedelta(days=45)) == Pruned(0)
    assert moves_archive(budget=Budget(), now=ended + timedelta(days=62)).deleted > 0


def test_a_deleted_account_leaves_the_archived_record_readable(
    finished: Game, users: dict[str, Any]
) -> None:
    logged = _fields(list(Move.objects.filter(game=finished).order_by("seq")))
    game = _archived(finished)

    account_delete(user=users["carol"], password=PASSWORD)

    assert _fields(game_moves(Game.objects.get(pk=game.pk))) == logged
    assert record_export(game=game)["seats"][1]["name"] != "carol"


def operator_page(url: str) -> tuple[Client, str]:
    """An admin page as an operator reads it (signed in), its text with quotes unescaped."""
    get_user_model().objects.create_superuser("operator", "op@example.org", PASSWORD)
    client = Client()
    client.login(username="operator", password=PASSWORD)
    page = client.get(url)
    assert page.status_code == 200
    return client, page.content.decode().replace("&quot;", '"')


def assert_no_private_draws(text: str) -> None:
    """The page shows draws, and none with the cards drawn: events as a spectator sees them."""
    draws = re.findall(r'\{"type":"draw",[^}]*\}', text)
    assert draws and all('"cards"' not in draw for draw in draws), draws[:3]


def test_the_operators_page_shows_an_archived_log_as_the_move_page_did(finished: Any) -> None:
    """The Move rows are gone from the admin's Move page once packed: the archive's page shows
    every move, its events as a spectator sees them (no card a player held in secret)."""
    moves = game_moves(finished)
    assert any("cards" in e for m in moves for e in m.events if e["type"] == "draw")
    _archived(finished)
    client, text = operator_page(f"/admin/games/movearchive/{finished.pk}/change/")
    assert text.count("<tr><td>") == len(moves)
    assert_no_private_draws(text)
    listing = client.get("/admin/games/movearchive/", {"q": str(finished.pk)})
    assert listing.status_code == 200 and str(len(moves)) in listing.content.decode()
