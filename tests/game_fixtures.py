"""Shared people and games for tests/games, tests/api and tests/integration (healthchecks
style: one cast of users). Import the fixtures into a conftest or test module to use them.

The cast of a standard 4-player table (seating=invitation, so seats follow the join order):
alice (seat 0, the creator) and bob (seat 2) are partners against carol (1) and dave (3);
eve is a stranger to every game.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from accounts.services.addresses import address_mark_verified
from clients.services.tokens import account_token_create
from games import engine
from games.engine.randomplay import random_action
from games.models import Game, GameState, Move, RatingChange
from games.services import lobby
from games.services.moves import moves_submit
from games.services.ratings import match_long_enough

CAST = ("alice", "bob", "carol", "dave", "eve")
PASSWORD = "a-long-enough-password-42"


def make_user(username: str) -> Any:
    """A user with an account token, whose key (stored only hashed) is kept on `.api_key`."""
    user = get_user_model().objects.create_user(username=username, password=PASSWORD)
    user.api_key = account_token_key(user)
    return user


def address_confirmed(user: Any) -> Any:
    """Give `user` a confirmed address (only such players play rated matches)."""
    user.email = f"{user.get_username()}@example.com"
    user.save(update_fields=["email"])
    address_mark_verified(user=user)
    return user


def rated_against(user: Any, opponents: list[Any], family: str = "classic") -> None:
    """Record for `user` one rated two-player match of `family` against each of `opponents`
    (seats and a rating change, as the leaderboard reads them; the rating row is the
    caller's)."""
    for other in opponents:
        game = lobby.game_create(
            creator=user, variant=family, players=2, options={"seating": "invitation"}
        )
        game = lobby.game_join(game_id=game.pk, user=other)
        RatingChange.objects.create(
            user=user,
            game=game,
            family=family,
            mu_before=25.0,
            sigma_before=8.0,
            display_before=1000,
            mu=26.0,
            sigma=7.0,
            display=1100,
            rank=1,
        )


def account_token_key(user: Any) -> str:
    """The key of a new account token of `user`."""
    return account_token_create(owner=user)[1]


def client_for(user: Any | None) -> APIClient:
    """An API client with `user`'s account token (`.api_key`, or a new one)."""
    client = APIClient()
    if user is not None:
        key = getattr(user, "api_key", None) or account_token_key(user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def pinned_seeds(prefix: str) -> Callable[[], str]:
    """A stand-in for engine.new_seed that gives the same seeds in every run: a test whose
    outcome depends on the cards dealt (a forced draw happens, a hand ends a certain way)
    monkeypatches it in, so the test never passes or fails on the luck of the shuffle."""
    seeds = (hashlib.sha256(f"{prefix}-{n}".encode()).hexdigest() for n in itertools.count())
    return lambda: next(seeds)


def start_game(
    users: dict[str, Any], *, public: bool = True, options: dict[str, Any] | None = None, **kw: Any
) -> Game:
    """alice's 4-player classic table, joined by carol, bob and dave in that order."""
    game = lobby.game_create(
        creator=users["alice"],
        variant="classic",
        players=4,
        options={"seating": "invitation", **(options or {})},
        is_public=public,
        **kw,
    )
    for name in ("carol", "bob", "dave"):
        game = lobby.game_join(game_id=game.pk, user=users[name])
    return game


def user_at(game: Game, seat: int) -> Any:
    return next(s.user for s in game.seats.all() if s.number == seat)


def current_table(game: Game) -> engine.Table:
    return engine.from_json(GameState.objects.get(game=game).table)


def play_random(game: Game, moves: int, rng: random.Random | None = None) -> Game:
    """Play ``moves`` random legal actions through the service, one per call."""
    rng = rng or random.Random(0)
    game = Game.objects.get(pk=game.pk)
    for _ in range(moves):
        table = current_table(game)
        seat = table.turn
        game = moves_submit(
            game_id=game.pk,
            user=user_at(game, seat),
            actions=[random_action(table, rng)],
            expected_version=game.version,
        )
        if game.status != "active":
            break
    return game


def play_long_enough(game: Game, seed: int = 3) -> Game:
    """Play until every side has played the turns of its own a rated match needs
    (ratings.MIN_OWN_TURNS), up to the start of a turn."""
    rng = random.Random(seed)
    while not match_long_enough(game) or current_table(game).turn == _last_mover(game):
        game = play_random(game, 1, rng)
    assert game.status == "active"
    return game


def _last_mover(game: Game) -> int | None:
    return Move.objects.filter(game=game).order_by("-seq").values_list("seat", flat=True).first()


def play_until_hand_ends(game: Game, rng: random.Random | None = None) -> Game:
    rng = rng or random.Random(0)
    hand = current_table(game).hand
    while game.status == "active" and current_table(game).hand == hand:
        game = play_random(game, 1, rng)
    return game


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    # The production hasher takes ~1 s per password by design; tests make many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def users(db: Any) -> dict[str, Any]:
    return {name: make_user(name) for name in CAST}


@pytest.fixture
def confirmed_users(users: dict[str, Any]) -> dict[str, Any]:
    """The cast with confirmed addresses: only such players play rated matches."""
    return {name: address_confirmed(user) for name, user in users.items()}


@pytest.fixture
def game(users: dict[str, Any]) -> Game:
    return start_game(users)


@pytest.fixture
def private_game(users: dict[str, Any]) -> Game:
    return start_game(users, public=False)
