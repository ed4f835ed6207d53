"""Playing: a batch of actions, and resignation (docs/move-lifecycle.md).

One transaction per call: lock the game, check the version, apply the batch to the snapshot
with the engine, append one Move row per action, store the new snapshot, and when a hand ends
score it, reveal its seed and deal the next one. The log is never replayed here: a move costs
the same at move 3,000 as at move 10.

A batch is all or nothing, except that a draw from the stock stands (docs/fair-play.md): once
a draw has been applied, a refusal of a later action keeps the moves up to and including the
draw, commits them, and only then refuses the rest (details.applied). Rolling the draw back
would make the refusal a description of cards still in the stock: the player could read them
and take the pile instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from games import engine, hooks
from games.engine import Table
from games.engine.actions import Action, Draw
from games.engine.events import cards_drawn
from games.engine.public import draw_may_end_hand, pile_closed
from games.models import Actor, EndReason, Game, GameState, Move, Seat
from games.services.clock import clock_restart, clock_update
from games.services.common import (
    game_lock,
    game_mark_over,
    moves_logged_mark,
    require_active,
    require_player,
    require_version,
)
from games.services.compiled import compiled_bulk_insert, compiled_save
from games.services.endings import match_concede, side_of
from games.services.enqueue import bot_turn_enqueue
from games.services.errors import ErrorKind, GameError, refused
from games.services.hands import deal_event, hand_deal, hand_finish
from games.services.notify import notify_batch

# More actions than any turn can need: a longer batch is a mistake, not a long turn.
MAX_BATCH = 50

# The Game columns a batch (and the callers that lock the game before it) may change: its own
# counters and turn, the clock (games.services.clock: clock_restart, clock_update) and the end
# of a match (games.services.common.game_mark_over). game.save() writes only these.
BATCH_FIELDS = [
    "last_seq",
    "version",
    "turn_seat",
    "turn_started_at",
    "deadline",
    "reminder_at",
    "bot_turn",
    "status",
    "end_reason",
    "winner_side",
    "finished_at",
    "moves_cold_since",
]


@dataclass
class _Pending:
    """The batch's effect, computed in memory before anything is written."""

    table: Table
    moves: list[Move] = field(default_factory=list)
    # A refusal that comes after a draw from the stock: the moves kept (up to the draw) are
    # committed, then this is raised (moves_submit_with_table, moves_submit_for_seat).
    refusal: GameError | None = None


DRAW_STANDS = (
    "Your draw from the stock stands (a draw cannot be taken back): the cards are in your "
    "hand, and the actions after the draw were not played. Refused: "
)


def _parse_batch(actions: Sequence[Any]) -> list[Action]:
    """Every action's shape, before any is applied: a malformed batch changes nothing."""
    parsed = []
    for index, action in enumerate(actions):
        try:
            parsed.append(engine.parse_action(action))
        except engine.EngineError as error:
            raise GameError(
                ErrorKind.ILLEGAL,
                error.code,
                error.message,
                {"index": index, "applied": 0, "hand_over": False},
                reason=error.reason,
                params=error.params,
            ) from None
    return parsed


def _apply_batch(
    game: Game, seat: Seat, table: Table, actions: Sequence[Any], actor: str
) -> _Pending:
    pending = _Pending(table=table)
    kept = _Pending(table=table)  # the batch up to its last draw from the stock
    for index, parsed in enumerate(_parse_batch(actions)):
        try:
            outcome = engine.apply(pending.table, seat.seated_number, parsed)
        except engine.EngineError as error:
            if not kept.moves:
                # All or nothing: nothing has been written yet, so raising discards the batch.
                details = {"index": index, "applied": 0, "hand_over": pending.table.over}
                raise _illegal(error, pending.table, details) from None
            return _refused_after_draw(kept, index, error)
        pending.table = outcome.table
        pending.moves.append(
            Move(
                game=game,
                seq=game.last_seq + index + 1,
                hand=table.hand,
                seat=seat.seated_number,
                actor=actor,
                action=engine.action_to_json(parsed),
                events=outcome.events,
            )
        )
        if isinstance(parsed, Draw):
            kept = _Pending(table=pending.table, moves=list(pending.moves))
    return pending


def _refused_after_draw(kept: _Pending, index: int, error: engine.EngineError) -> _Pending:
    """The batch cut after its draw, carrying the refusal to raise once it is committed. The
    refusal was decided on the table after the draw, which the player now holds."""
    drawn = cards_drawn(event for move in kept.moves for event in move.events)
    details = {
        "index": index,
        "applied": len(kept.moves),
        "hand_over": kept.table.over,
        "drawn": drawn,
    }
    kept.refusal = _illegal(error, kept.table, details, DRAW_STANDS)
    return kept


def _illegal(
    error: engine.EngineError, table: Table, details: dict[str, Any], prefix: str = ""
) -> GameError:
    """The engine's refusal on ``table``, for the player: its sentence says "your side" only
    where there are partners (a two- or three-handed game has none: "you")."""
    params = {**error.params, "partners": table.nsides < table.players}
    return GameError(
        ErrorKind.ILLEGAL,
        error.code,
        prefix + error.message,
        details,
        reason=error.reason,
        params=params,
    )


def _close_hand(game: Game, state: GameState, pending: _Pending, now: datetime) -> None:
    """Score the hand that just ended, reveal its seed, then end the match or deal again."""
    table = pending.table
    result = engine.score_hand(table)
    closing = pending.moves[-1].events
    closing.append(hand_finish(game=game, number=table.hand, now=now, result=result, table=table))
    state.totals = list(result.totals)
    if result.match_over:
        closing.append({"type": "match_over", "reason": "match_over", "winner": result.winner})
        game_mark_over(game=game, reason=EndReason.MATCH_OVER, winner_side=result.winner, now=now)
        return
    hand, pending.table = hand_deal(
        game=game, number=table.hand + 1, scores=list(result.totals), now=now
    )
    state.hand_commitment = hand.commitment
    closing.append(deal_event(hand))


def _auto_draw(game: Game, pending: _Pending, now: datetime) -> list[str] | None:
    """The forced draw of play by email: the drawn cards, or None when nothing was drawn.

    When the batch leaves a human at the start of a turn and that player plays by email and
    asks for it (games.hooks.auto_draw_wanted, answered by mail play: always, or when the
    pile is publicly closed),
    the service draws for them as a logged system move, in this transaction, so their turn
    email already shows the drawn card and a whole turn takes one reply. Whether it draws is
    seen by everyone, so it rests only on public facts (games.engine.public) and the player's
    standing choice, never on their hand (docs/fair-play.md). At most one draw per batch,
    never for a bot, never a draw that could end the hand (judged from the stock's size).
    """
    table = pending.table
    if table.over or table.phase != "draw":
        return None
    seat = next((s for s in game.seats.all() if s.number == table.turn), None)
    if seat is None or seat.played_by_bot or seat.user_id is None:
        return None
    # Everything read before the query is public, so the query count tells nothing either.
    if draw_may_end_hand(table):
        return None
    closed = pile_closed(table, table.turn)
    if not hooks.auto_draw_wanted(user_id=seat.user_id, pile_closed=closed, user=seat.user):
        return None
    outcome = engine.apply(table, table.turn, {"type": "draw"})
    pending.moves.append(
        Move(
            game=game,
            seq=game.last_seq + len(pending.moves) + 1,
            hand=table.hand,
            seat=table.turn,
            actor=Actor.SYSTEM,
            action={"type": "draw"},
            events=outcome.events,
            created_at=now,
        )
    )
    pending.table = outcome.table
    return cards_drawn(outcome.events)


def auto_draw_first_turn(
    *, game: Game, state: GameState, table: Table, now: datetime
) -> tuple[Table, list[str] | None]:
    """The forced draw on a game's very first turn (a new game: no batch leads to it). Writes
    the system move and the snapshot; returns the table and the drawn cards (None: no draw)."""
    pending = _Pending(table=table)
    drew = _auto_draw(game, pending, now)
    if not pending.moves:
        return table, None
    compiled_bulk_insert(pending.moves)
    moves_logged_mark(game, now)
    state.table = pending.table.to_json()
    state.save(update_fields=["table", "updated_at"])
    game.last_seq += len(pending.moves)
    return pending.table, drew


def moves_submit(
    *,
    game_id: UUID | str,
    user: Any,
    actions: Sequence[Any],
    expected_version: int,
    actor: str = Actor.PLAYER,
) -> Game:
    """moves_submit_with_table without the table: for programs that only need the game (the
    tests, the benchmarks). The API, the web page and an emailed reply all enter a move through
    moves_submit_with_table."""
    game, _ = moves_submit_with_table(
        game_id=game_id,
        user=user,
        actions=actions,
        expected_version=expected_version,
        actor=actor,
    )
    return game


def moves_submit_with_table(
    *,
    game_id: UUID | str,
    user: Any,
    actions: Sequence[Any],
    expected_version: int,
    actor: str = Actor.PLAYER,
    locked: Game | None = None,
) -> tuple[Game, Table]:
    """The one entry into a person's move (the API, the web page, an emailed reply): apply
    ``actions`` for the caller's seat, all or nothing (a draw from the stock stands); returns
    the updated game and the new table, so that a caller who shows it does not parse the
    snapshot again (docs/move-lifecycle.md).

    ``locked``: the game, when the caller locked it in its own transaction (game_lock) and
    read it there (an emailed reply, which locks it to decide which turn the email answers):
    it is not read again, and no other move can land between that read and this one."""
    _check_batch(actions)
    with transaction.atomic():
        game = locked if locked is not None else game_lock(game_id=game_id)
        seat = require_player(game, user)
        require_active(game)
        require_version(game, expected_version)
        if seat.away:
            # A player who moves is back: the bot standing in steps aside (seat_reclaim), and
            # the rest of this turn runs on the player's clock, not the bot's.
            seat_release_bot(seat=seat)
            clock_update(game=game)
        table, refusal = batch_commit_keeping_draws(
            game=game, seat=seat, actions=actions, actor=actor
        )
    if refusal is not None:
        raise refusal  # after the commit: the draw stands
    return game, table


def moves_submit_for_seat(
    *,
    game_id: UUID | str,
    seat_number: int,
    actions: Sequence[Any],
    actor: str,
    expected_version: int | None = None,
) -> Game:
    """The system's or a bot's moves on a seat's behalf, through the same path as a player's."""
    _check_batch(actions)
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        require_active(game)
        if expected_version is not None:
            require_version(game, expected_version)
        seat = next(s for s in game.seats.all() if s.number == seat_number)
        _, refusal = batch_commit_keeping_draws(game=game, seat=seat, actions=actions, actor=actor)
    if refusal is not None:
        raise refusal  # after the commit: the draw stands
    return game


def _check_batch(actions: Sequence[Any]) -> None:
    if not actions:
        raise refused(ErrorKind.INVALID, "no_actions")
    if len(actions) > MAX_BATCH:
        raise refused(ErrorKind.INVALID, "too_many_actions", count=MAX_BATCH)


def seat_release_bot(*, seat: Seat) -> None:
    seat.away = False
    seat.bot_level = ""
    seat.timeouts_in_a_row = 0
    seat.save(update_fields=["away", "bot_level", "timeouts_in_a_row"])


def batch_commit(
    *, game: Game, seat: Seat, actions: Sequence[Any], actor: str, now: datetime | None = None
) -> Table:
    """batch_commit_keeping_draws for a batch planned on the whole table (a timeout's): any
    refusal is raised in the caller's transaction, which then keeps nothing."""
    table, refusal = batch_commit_keeping_draws(
        game=game, seat=seat, actions=actions, actor=actor, now=now
    )
    if refusal is not None:
        raise refusal
    return table


def batch_commit_keeping_draws(
    *, game: Game, seat: Seat, actions: Sequence[Any], actor: str, now: datetime | None = None
) -> tuple[Table, GameError | None]:
    """Apply, log, snapshot, restart the clock and write the notifications, in the caller's
    transaction (the game row is locked). Returns the new table, and the refusal of an action
    after a draw from the stock (the moves up to the draw are written): the caller raises it
    once its transaction is committed. A refusal before any draw is raised here."""
    state = game.state
    before = engine.from_json(state.table)
    pending = _apply_batch(game, seat, before, actions, actor)
    now = now or timezone.now()
    for move in pending.moves:
        move.created_at = now
    if pending.table.over:
        _close_hand(game, state, pending, now)
    auto_drew = _auto_draw(game, pending, now) if game.finished_at is None else None
    compiled_bulk_insert(pending.moves)
    moves_logged_mark(game, now)
    state.table = pending.table.to_json()
    # The two UPDATEs of every move: compiled once per database (games.services.compiled).
    compiled_save(state, ["table", "totals", "hand_commitment", "updated_at"])
    game.last_seq += len(pending.moves)
    game.version += 1
    new_turn = False
    if game.finished_at is None:
        turn = pending.table.turn
        # The clock restarts only when the turn changes hands (or a new hand starts).
        new_turn = turn != game.turn_seat or pending.table.hand != before.hand
        game.turn_seat = turn
        if new_turn:
            clock_restart(game=game, now=now)
    if actor == Actor.PLAYER and seat.timeouts_in_a_row:
        seat.timeouts_in_a_row = 0
        seat.save(update_fields=["timeouts_in_a_row"])
    compiled_save(game, BATCH_FIELDS)
    notify_batch(
        game=game,
        moves=pending.moves,
        totals=list(state.totals),
        turn_table=pending.table if new_turn else None,
        auto_drew=auto_drew,
    )
    if game.bot_turn:
        bot_turn_enqueue(game_id=game.pk, version=game.version)
    if pending.refusal is not None:
        pending.refusal.details["version"] = game.version  # the game as the draw left it
    return pending.table, pending.refusal


def game_resign(*, game_id: UUID | str, user: Any, actor: str = Actor.PLAYER) -> Game:
    """The caller's side gives up the match; the move log records it like any move."""
    with transaction.atomic():
        game = game_lock(game_id=game_id)
        seat = require_player(game, user)
        require_active(game)
        match_concede(
            game=game,
            seat=seat,
            opening={"type": "resign", "seat": seat.number, "side": side_of(game, seat)},
            action={"type": "resign"},
            actor=actor,
            reason=EndReason.RESIGNED,
            now=timezone.now(),
        )
        return game
