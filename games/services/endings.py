"""A match that ends because one side gives it up: a resignation or a forfeit on time.

Both are logged like a move (one Move row whose events close the hand and the match), end the
match against the seat's side and tell the apps above (games.services.notify)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games import engine
from games.models import EndReason, Game, Move, Seat
from games.services.common import game_mark_over, moves_logged_mark
from games.services.hands import hand_finish
from games.services.notify import notify_events


def match_winner_against(totals: list[int], loser: int) -> int | None:
    """The other side with the best match total; None if that is a tie (3-side tables)."""
    others = [side for side in range(len(totals)) if side != loser]
    best = max(totals[side] for side in others)
    leaders = [side for side in others if totals[side] == best]
    return leaders[0] if len(leaders) == 1 else None


def side_of(game: Game, seat: Seat) -> int:
    return seat.seated_number % game.sides


def match_concede(
    *,
    game: Game,
    seat: Seat,
    opening: dict[str, Any],
    action: dict[str, Any],
    actor: str,
    reason: EndReason,
    now: datetime,
) -> None:
    """End the match against ``seat``'s side, in the caller's transaction (the game is
    locked): log ``action`` with ``opening`` (what happened), the end of the hand and the
    match_over event, mark the game over, save it, notify. The caller checked it is active."""
    state = game.state
    table = engine.from_json(state.table)
    winner = match_winner_against(list(state.totals), side_of(game, seat))
    events: list[dict[str, Any]] = [
        opening,
        hand_finish(game=game, number=table.hand, now=now, end_reason=reason),
        {"type": "match_over", "reason": reason.value, "winner": winner},
    ]
    Move.objects.create(
        game=game,
        seq=game.last_seq + 1,
        hand=table.hand,
        seat=seat.seated_number,
        actor=actor,
        action=action,
        events=events,
        created_at=now,
    )
    game_mark_over(game=game, reason=reason, winner_side=winner, now=now)
    moves_logged_mark(game, now)
    game.last_seq += 1
    game.version += 1
    game.save()
    notify_events(game=game, events=events, totals=list(state.totals), move_seq=game.last_seq)
