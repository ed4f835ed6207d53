"""The feed events (and webhook wake-ups) a change in a game causes: receivers of
games.hooks, registered in apps.py. Each runs in the transaction of the change."""

from __future__ import annotations

from clients.services.events import (
    Locks,
    drafts_for_moves,
    drafts_for_turn,
    events_for_moves,
    events_for_timeout,
    events_for_turn,
    events_write,
)
from games.hooks import MovesLogged, TurnStarted, TurnTimedOut


def on_moves_logged(change: MovesLogged) -> None:
    """The batch's `move` event for every player, hand_over, match_over, and `your_turn` when
    the turn changed hands."""
    game = change.game
    if change.logged is None:
        events_for_moves(
            game=game, events=change.events, totals=change.totals, move_seq=change.move_seq
        )
        if change.turn_table is not None:
            events_for_turn(game=game, table=change.turn_table, move_seq=change.move_seq)
        return
    # A batch: the recipients are locked once for all its events, written in one INSERT.
    locks = Locks()
    drafts = drafts_for_moves(
        game=game,
        events=change.events,
        totals=change.totals,
        move_seq=change.move_seq,
        logged=change.logged,
        locks=locks,
    )
    if change.turn_table is not None:
        drafts += drafts_for_turn(game=game, table=change.turn_table)
    events_write(game=game, seq=change.move_seq, drafts=drafts, locks=locks)


def on_turn_started(change: TurnStarted) -> None:
    events_for_turn(game=change.game, table=change.table, move_seq=change.move_seq)


def on_turn_timed_out(change: TurnTimedOut) -> None:
    events_for_timeout(
        game=change.game,
        table=change.table,
        timed_out_seat=change.timed_out_seat,
        handed_to_bot=change.handed_to_bot,
        move_seq=change.move_seq,
    )
