from tests.game_fixtures import (  # noqa: F401
    confirmed_users,
    fast_password_hashing,
    game,
    private_game,
    users,
)
