"""A seat during play: a player takes back the seat a bot stands in for (background work).

After CANASTA_TIMEOUTS_BEFORE_BOT timeouts in a row a bot plays an away player's seat
(games.services.timeouts); one call gives it back. A player who simply moves is back too
(games.services.moves.moves_submit), so this is for a player who wants the seat before their
turn comes, or to stop the bot from taking the turn it is about to play.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from games.models import Game
from games.services.clock import clock_restart, clock_update
from games.services.common import game_lock, require_active, require_player
from games.services.moves import seat_release_bot


def seat_reclaim(*, game_id: UUID | str, user: Any) -> Game:
    """The caller's seat, if a bot stands in for it, is theirs again; a no-op otherwise.

    If the turn is theirs, it starts now with the table's full time: the bot's turn was
    meant to take a moment, and the player only just came back. The version goes up, so a
    bot turn already being decided is refused as stale and the bot steps aside.
    """
    with transaction.atomic():
        game = game_lock(game_id=game_id, with_state=False)
        seat = require_player(game, user)
        require_active(game)
        if not seat.away:
            return game
        seat_release_bot(seat=seat)
        if game.turn_seat == seat.number:
            clock_restart(game=game, now=timezone.now())
        else:
            clock_update(game=game)
        game.version += 1
        game.save(
            update_fields=["version", "turn_started_at", "deadline", "reminder_at", "bot_turn"]
        )
        return game
