"""Bot turns: a bot seat (or a bot standing in for an away player) plays through the same
service path as a person (games.services.moves.moves_submit_for_seat).

The bot decides outside any database lock (a strong bot may think for a second or two), from
the seat's player view only, then submits its turn with the version it saw; if someone else
changed the game meanwhile the submission is stale and the bot simply looks again.
"""

from __future__ import annotations

import logging
import random
import secrets
from datetime import timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.utils import timezone

from games import engine
from games.bots import BotMemory, get_bot
from games.models import Actor, Game, GameState, Seat
from games.movelog import game_moves
from games.services.errors import GameError
from games.services.moves import moves_submit_for_seat

log = logging.getLogger(__name__)

# A turn is at most draw, a few melds and a discard; the cap stops a confused bot.
MAX_ACTIONS_PER_TURN = 30


def _memory_for(seat: Seat, game: Game, table: engine.Table) -> BotMemory:
    """The seat's memory, brought up to date with every move it has not seen yet."""
    stored = seat.bot_memory or {}
    seen = int(stored.get("seq", 0))
    memory = (
        BotMemory.from_json(stored["memory"])
        if "memory" in stored
        else BotMemory(seat=seat.seated_number, players=game.players, hand=table.hand)
    )
    for move in game_moves(game, after=seen):
        for event in move.events:
            memory.observe(engine.event_for(event, seat.number))
        seen = move.seq
    # The bots also sync at every decision; the view lines up hand number and melds.
    memory.sync(engine.player_view(table, seat.number))
    seat.bot_memory = {"memory": memory.to_json(), "seq": seen}
    return memory


def _plan_turn(
    level: str, table: engine.Table, seat: int, memory: BotMemory
) -> list[dict[str, Any]]:
    """The actions of one whole turn, chosen from player views only."""
    bot = get_bot(level)
    rng = random.Random(secrets.randbits(64))
    actions: list[dict[str, Any]] = []
    while not table.over and table.turn == seat and len(actions) < MAX_ACTIONS_PER_TURN:
        view = engine.player_view(table, seat)
        action = bot.choose(view, memory, rng)
        outcome = engine.apply(table, seat, action)
        for event in outcome.events:
            memory.observe(engine.event_for(event, seat))
        actions.append(action)
        table = outcome.table
    return actions


def bot_take_turn(*, game_id: UUID | str) -> bool:
    """Play the current turn if a bot holds it; True if a turn was played."""
    game = Game.objects.filter(pk=game_id, status="active", bot_turn=True).first()
    if game is None:
        return False
    seat = Seat.objects.filter(game=game, number=game.turn_seat).first()
    if seat is None or not seat.played_by_bot:
        return False
    state = GameState.objects.get(game=game)
    table = engine.from_json(state.table)
    memory = _memory_for(seat, game, table)
    level = seat.bot_level or "basic"
    actions = _plan_turn(level, table, seat.seated_number, memory)
    if not actions:
        return False
    # A bot standing in for an away player is a bot too: "system" moves are only the
    # timeouts and the forced draws, so the history can tell players which was which.
    actor = Actor.BOT
    try:
        moves_submit_for_seat(
            game_id=game.pk,
            seat_number=seat.seated_number,
            actions=actions,
            actor=actor,
            expected_version=game.version,
        )
    except GameError as error:
        # Someone moved first (a player reclaimed the seat, a timeout): look again later.
        log.info("bot turn in game %s not applied: %s", game.pk, error.code)
        return False
    Seat.objects.filter(pk=seat.pk).update(bot_memory=seat.bot_memory)
    return True


def stale_bot_games(*, limit: int = 100) -> list[Any]:
    """Games whose bot turn has waited too long (its task was lost): the bot sweep's work."""
    cutoff = timezone.now() - timedelta(seconds=settings.CANASTA_BOT_STALE_SECONDS)
    return list(
        Game.objects.filter(status="active", bot_turn=True, turn_started_at__lte=cutoff)
        .order_by("turn_started_at")
        .values_list("pk", flat=True)[:limit]
    )
