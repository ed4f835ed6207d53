"""What a change in a game tells the apps above the domain (games.hooks).

Sent in the transaction of the change: notifications writes its outbox rows and clients its
feed events there (transactional outbox; they are delivered after commit). Payloads are
built from each recipient's player view only (notifications/payloads.py), so nothing hidden
can reach an email or a feed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from games import hooks
from games.engine import Table
from games.mail.text import table_line
from games.models import Game, Move, Seat

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def notify_batch(
    *,
    game: Game,
    moves: Sequence[Move],
    totals: list[int],
    turn_table: Table | None,
    auto_drew: list[str] | None = None,
) -> None:
    """What a logged batch causes (games.services.moves.batch_commit): the batch's events,
    and `your_turn` when ``turn_table`` is given (the turn changed hands). The moves are
    handed over as written, not read back (docs/move-path-speed.md)."""
    hooks.moves_logged.send(
        hooks.MovesLogged(
            game=game,
            events=[event for move in moves for event in move.events],
            totals=totals,
            move_seq=game.last_seq,
            logged=moves,
            turn_table=turn_table,
            auto_drew=auto_drew,
        )
    )


def notify_events(
    *, game: Game, events: Iterable[dict[str, Any]], totals: list[int], move_seq: int
) -> None:
    """Moves logged outside a batch (a resignation, a forfeit), read back from the log."""
    hooks.moves_logged.send(
        hooks.MovesLogged(game=game, events=list(events), totals=totals, move_seq=move_seq)
    )


def notify_turn(
    *, game: Game, table: Table, move_seq: int, auto_drew: list[str] | None = None
) -> None:
    """The first turn of a game that just started."""
    hooks.turn_started.send(
        hooks.TurnStarted(game=game, table=table, move_seq=move_seq, auto_drew=auto_drew)
    )


def notify_timeout(
    *, game: Game, table: Table, timed_out_seat: int, handed_to_bot: bool, move_seq: int
) -> None:
    hooks.turn_timed_out.send(
        hooks.TurnTimedOut(
            game=game,
            table=table,
            timed_out_seat=timed_out_seat,
            handed_to_bot=handed_to_bot,
            move_seq=move_seq,
        )
    )


def notify_reminder(*, game: Game, table: Table, seat: Seat) -> None:
    hooks.reminder_due.send(hooks.ReminderDue(game=game, table=table, seat=seat))


def table_label(game: Game) -> str:
    """A table in one line for an invitation, in the active language: variant title, players,
    time per turn (games.mail.text.table_line)."""
    return table_line(game.variant, game.players, game.turn_seconds)


def notify_invitation(
    *,
    game: Game,
    inviter: Any,
    user: User | None = None,
    address: str = "",
    invitation_id: int | None = None,
    expires_at: datetime | None = None,
) -> None:
    """An invitation mail: to an account (`user`: its seat is kept, the link is the table's
    join page) or to an address (`invitation_id`). A rematch offer when the game replays
    another."""
    hooks.invitation_sent.send(
        hooks.InvitationSent(
            game=game,
            inviter=inviter,
            label=table_label(game),
            user=user,
            address=address,
            invitation_id=invitation_id,
            expires_at=expires_at,
        )
    )
