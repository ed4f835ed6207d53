"""The emails a change in a game causes: receivers of games.hooks, registered in apps.py.

Each runs in the transaction of the change and writes outbox rows there; the outbox delivers
them after commit (notifications.services.outbox). Payloads come from notifications.payloads,
built from each recipient's player view only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef

from games.engine import Table
from games.events import game_events
from games.hooks import (
    InvitationSent,
    MovesLogged,
    ReminderDue,
    SeatRead,
    TurnStarted,
    TurnTimedOut,
)
from games.models import Game, Seat
from games.players import player_name
from notifications import payloads
from notifications.models import Absence, OutboxKind
from notifications.services.outbox import outbox_enqueue, outbox_row, outbox_write_new
from notifications.services.preferences import language_of, time_zone_of
from notifications.services.push import push_rows_enqueue
from notifications.services.sender_caps import sender_mail_skip_reason


def _seat_annotations(now: datetime) -> dict[str, Any]:
    """`may_be_absent` on each seat row: whether its user has an absence ending after ``now``.
    False for every seat spares the answer its absences query (games.readmodel.absences_for).
    `chat_news`: whether the turn email has table talk to show (payloads.turn_chat_news)."""
    return {
        "may_be_absent": Exists(
            Absence.objects.filter(user_id=OuterRef("user_id"), ends_at__gt=now)
        ),
        **payloads.turn_chat_news(),
    }


# The email preference every notification checks (preferences.preference_of), whether the
# user may be away (the game's answer shows absences) and whether the turn email has table
# talk to read, read with the locked game.
SEAT_READ = SeatRead(related=("user__notification_preference",), annotations=_seat_annotations)


def _humans(game: Game) -> list[Seat]:
    return [
        s
        for s in game.seats.all()
        if s.user_id is not None and s.kind == "human" and s.number is not None
    ]


def _turn_rows(
    game: Game, table: Table, move_seq: int, auto_drew: list[str] | None
) -> list[dict[str, Any]]:
    """your_turn for the player who must act now (not for bots or a seat a bot stands in for).
    ``auto_drew``: the cards the service drew for the player, shown in the email."""
    if table.over or game.turn_seat is None:
        return []
    to_act = [s for s in _humans(game) if s.number == game.turn_seat and not s.away]
    rows = []
    for seat in to_act:
        payload = dict(payloads.turn_payload(game=game, table=table, seat=seat.seated_number))
        if auto_drew:
            payload["auto_drew"] = list(auto_drew)
        chat = payloads.turn_chat(game=game, seat=seat)
        if chat:
            payload["chat"] = chat
        rows.append(
            {
                "recipient": seat.user,
                "kind": OutboxKind.YOUR_TURN,
                "game": game,
                "move_seq": move_seq,
                "payload": payload,
            }
        )
    return rows


def _result_rows(change: MovesLogged) -> list[dict[str, Any]]:
    """hand_over and match_over for every human player."""
    game, totals = change.game, change.totals
    rows = []
    for event in game_events(change.events):
        if event["type"] == "hand_result":
            for seat in _humans(game):
                rows.append(
                    {
                        "recipient": seat.user,
                        "kind": OutboxKind.HAND_OVER,
                        "game": game,
                        "move_seq": change.move_seq,
                        "key": f"{game.pk}:hand{event['hand']}:{seat.user_id}:hand_over",
                        "payload": payloads.hand_over_payload(
                            game=game, seat=seat.number, hand_result=dict(event), totals=totals
                        ),
                    }
                )
        elif event["type"] == "match_over":
            for seat in _humans(game):
                rows.append(
                    {
                        "recipient": seat.user,
                        "kind": OutboxKind.MATCH_OVER,
                        "game": game,
                        "move_seq": change.move_seq,
                        "payload": payloads.match_over_payload(
                            game=game,
                            seat=seat.number,
                            totals=totals,
                            winner_side=event["winner"],
                            reason=event["reason"],
                        ),
                    }
                )
    return rows


def on_moves_logged(change: MovesLogged) -> None:
    rows = _result_rows(change)
    if change.turn_table is not None:
        rows += _turn_rows(change.game, change.turn_table, change.move_seq, change.auto_drew)
    if change.logged is None:
        for row in rows:
            outbox_enqueue(**row)
    else:
        # A batch: its rows' keys carry the new seq, so they are new; one INSERT for all.
        outbox_write_new([outbox_row(**row) for row in rows])
    push_rows_enqueue(rows)  # your turn: a push too, to the devices that opted in


def on_turn_started(change: TurnStarted) -> None:
    rows = _turn_rows(change.game, change.table, change.move_seq, change.auto_drew)
    for row in rows:
        outbox_enqueue(**row)
    push_rows_enqueue(rows)  # and a push to the player's devices that opted in


def on_turn_timed_out(change: TurnTimedOut) -> None:
    game = change.game
    for seat in _humans(game):
        outbox_enqueue(
            recipient=seat.user,
            kind=OutboxKind.TIMEOUT,
            game=game,
            move_seq=change.move_seq,
            payload=payloads.timeout_payload(
                game=game,
                table=change.table,
                seat=seat.number,
                timed_out_seat=change.timed_out_seat,
                policy=game.timeout_policy,
                handed_to_bot=change.handed_to_bot,
            ),
        )


def on_reminder_due(change: ReminderDue) -> None:
    game = change.game
    outbox_enqueue(
        recipient=change.seat.user,
        kind=OutboxKind.REMINDER,
        game=game,
        move_seq=game.last_seq,
        payload=payloads.turn_payload(
            game=game, table=change.table, seat=change.seat.seated_number
        ),
    )


def on_invitation_sent(change: InvitationSent) -> None:
    """The invitation mail. To an address without an account the link (a credential) is added
    when the mail is sent, and the mail is in the inviter's language."""
    game = change.game
    payload: dict[str, Any] = {
        "game": None,
        "seat": None,
        "game_id": str(game.pk),
        "inviter": player_name(change.inviter),
        "table": change.label,
        # The email writes the table's line in its reader's language when it is sent.
        "table_facts": {
            "variant": game.variant,
            "players": game.players,
            "turn_seconds": game.turn_seconds,
        },
        "rematch": game.rematch_of_id is not None,
        "by_email": change.user is None,
        "expires_at": change.expires_at.isoformat() if change.expires_at else None,
    }
    if change.user is None:
        payload["invitation_id"] = change.invitation_id
        payload["language"] = language_of(user=change.inviter)
        # The invitee has no zone yet: the expiry is told in the inviter's, who most often
        # lives where the friend they invite does (better than UTC for a player in Berlin).
        payload["time_zone"] = time_zone_of(user=change.inviter)
        key = f"invitation:{change.invitation_id}"
    else:
        payload["link"] = payloads.game_url(game.pk) + "join/"
        key = f"invitation:{game.pk}:{change.user.pk}"
    # The invitee did not ask for it: capped per sender (services/sender_caps.py).
    to = str(change.user.pk) if change.user is not None else change.address
    outbox_enqueue(
        recipient=change.user,
        address=change.address,
        game=game,
        kind=OutboxKind.INVITATION,
        payload=payload,
        key=key,
        skip_reason=sender_mail_skip_reason(sender=change.inviter, recipient=to),
    )
