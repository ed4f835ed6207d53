"""Notifications a move causes, written as outbox rows in the move's own transaction.

notifications.services.outbox delivers them after commit (and its beat sweep resends what a
lost message left behind). Payloads are built from each recipient's player view only
(notifications/payloads.py), so nothing hidden can reach an email.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import engine
from games.engine import Table
from games.models import Game, Move, Seat
from games.players import player_name
from notifications.models import Absence

# What a move's notifications read about each seated user, joined to the seat rows when the
# game is locked (games.services.common.game_lock) instead of a query per use: the email
# preference (notifications.services.preferences.preference_of) and the play-by-email choice
# (mailplay.services.autodraw.auto_draw_wanted).
SEAT_USER_RELATED = ("user__notification_preference", "user__mail_player")


# The column seat_annotations compares ``now`` with (games.services.compiled prepares it).
ABSENCE_ENDS_FIELD = Absence._meta.get_field("ends_at")


def seat_annotations(*, now: datetime) -> dict[str, Any]:
    """`may_be_absent` on each seat row: whether its user has an absence ending after ``now``.
    False for every seat spares the answer its absences query (api.presenters.absences_for)."""
    return {
        "may_be_absent": Exists(
            Absence.objects.filter(user_id=OuterRef("user_id"), ends_at__gt=now)
        )
    }


def _humans(game: Game) -> list[Seat]:
    return [
        s
        for s in game.seats.all()
        if s.user_id is not None and s.kind == "human" and s.number is not None
    ]


@dataclass
class _Writes:
    """A batch's notifications, gathered to be written in one statement per table."""

    drafts: list[Any] = field(default_factory=list)  # clients.services.events.Draft
    outbox: list[Any] = field(default_factory=list)  # unsaved notifications.models.Outbox


def notify_batch(
    *,
    game: Game,
    moves: Sequence[Move],
    totals: list[int],
    turn_table: Table | None,
    auto_drew: list[str] | None = None,
) -> None:
    """What a logged batch causes (games.services.moves.commit_batch): notify_events, then
    notify_turn when ``turn_table`` is given (the turn changed hands).

    The batch's moves are handed over as written, not read back, and the recipients are
    locked once for both (clients.services.events.Locks; this transaction only). The feed
    events are written in one INSERT and the emails in another (docs/move-path-speed.md).
    """
    from clients.services.events import Locks, events_write
    from notifications.services.outbox import outbox_write_new

    locks = Locks()
    writes = _Writes()
    move_seq = game.last_seq
    notify_events(
        game=game,
        events=[event for move in moves for event in move.events],
        totals=totals,
        move_seq=move_seq,
        logged=moves,
        locks=locks,
        writes=writes,
    )
    if turn_table is not None:
        notify_turn(
            game=game,
            table=turn_table,
            move_seq=move_seq,
            auto_drew=auto_drew,
            locks=locks,
            writes=writes,
        )
    events_write(game=game, seq=move_seq, drafts=writes.drafts, locks=locks)
    outbox_write_new(writes.outbox)


def _enqueue(writes: _Writes | None, **row: Any) -> None:
    """One email: written now (outbox_enqueue), or gathered in ``writes`` (notify_batch)."""
    from notifications.services.outbox import outbox_enqueue, outbox_row

    if writes is None:
        outbox_enqueue(**row)
    else:
        writes.outbox.append(outbox_row(**row))


def notify_turn(
    *,
    game: Game,
    table: Table,
    move_seq: int,
    auto_drew: list[str] | None = None,
    locks: Any = None,
    writes: _Writes | None = None,
) -> None:
    """your_turn for the player who must act now (not for bots or a seat a bot stands in for).

    ``auto_drew``: the cards the service drew for the player (the forced draw of play by
    email, games.services.moves), shown in the email. ``writes``: see notify_batch.
    """
    from clients.services.events import drafts_for_turn, events_for_turn
    from notifications.models import OutboxKind
    from notifications.payloads import turn_payload

    if table.over or game.turn_seat is None:
        return
    to_act = [s for s in _humans(game) if s.number == game.turn_seat and not s.away]
    # The emails' payloads; the feed event stores no view (it is built when read).
    payloads = {s.number: turn_payload(game=game, table=table, seat=s.number) for s in to_act}
    # The event feed and webhooks of third-party clients (clients/), in this transaction.
    if writes is None:
        events_for_turn(game=game, table=table, move_seq=move_seq, locks=locks)
    else:
        writes.drafts += drafts_for_turn(game=game, table=table)
    for seat in to_act:
        payload = dict(payloads[seat.number])
        if auto_drew:
            payload["auto_drew"] = list(auto_drew)
        _enqueue(
            writes,
            recipient=seat.user,
            kind=OutboxKind.YOUR_TURN,
            game=game,
            move_seq=move_seq,
            payload=payload,
        )


def notify_events(
    *,
    game: Game,
    events: Iterable[dict[str, Any]],
    totals: list[int],
    move_seq: int,
    logged: Sequence[Move] | None = None,
    locks: Any = None,
    writes: _Writes | None = None,
) -> None:
    """hand_over and match_over mails for every human player.

    ``logged``, ``locks`` and ``writes``: see notify_batch (None: the batch is read back from
    the log, and everything is written at once).
    """
    from clients.services.events import Locks, drafts_for_moves, events_for_moves
    from notifications.models import OutboxKind
    from notifications.payloads import hand_over_payload, match_over_payload

    # The batch's `move` event for every player, hand_over, match_over (clients/).
    events = list(events)
    if writes is None:
        events_for_moves(
            game=game, events=events, totals=totals, move_seq=move_seq, logged=logged, locks=locks
        )
    else:
        writes.drafts += drafts_for_moves(
            game=game,
            events=events,
            totals=totals,
            move_seq=move_seq,
            logged=logged,
            locks=locks if locks is not None else Locks(),
        )
    for event in events:
        if event.get("type") == "hand_result":
            for seat in _humans(game):
                _enqueue(
                    writes,
                    recipient=seat.user,
                    kind=OutboxKind.HAND_OVER,
                    game=game,
                    move_seq=move_seq,
                    key=f"{game.pk}:hand{event.get('hand')}:{seat.user_id}:hand_over",
                    payload=hand_over_payload(
                        game=game, seat=seat.number, hand_result=event, totals=totals
                    ),
                )
        elif event.get("type") == "match_over":
            for seat in _humans(game):
                _enqueue(
                    writes,
                    recipient=seat.user,
                    kind=OutboxKind.MATCH_OVER,
                    game=game,
                    move_seq=move_seq,
                    payload=match_over_payload(
                        game=game,
                        seat=seat.number,
                        totals=totals,
                        winner_side=event.get("winner"),
                        reason=str(event.get("reason")),
                    ),
                )


def notify_timeout(
    *, game: Game, table: Table, timed_out_seat: int, handed_to_bot: bool, move_seq: int
) -> None:
    from clients.services.events import events_for_timeout
    from notifications.models import OutboxKind
    from notifications.payloads import timeout_payload
    from notifications.services.outbox import outbox_enqueue

    events_for_timeout(
        game=game,
        table=table,
        timed_out_seat=timed_out_seat,
        handed_to_bot=handed_to_bot,
        move_seq=move_seq,
    )
    for seat in _humans(game):
        outbox_enqueue(
            recipient=seat.user,
            kind=OutboxKind.TIMEOUT,
            game=game,
            move_seq=move_seq,
            payload=timeout_payload(
                game=game,
                table=table,
                seat=seat.number,
                timed_out_seat=timed_out_seat,
                policy=game.timeout_policy,
                handed_to_bot=handed_to_bot,
            ),
        )


def table_label(game: Game) -> str:
    """A table in one line for an invitation: variant title, players, time per turn."""
    try:
        title = engine.get_rules(game.variant).title
    except engine.EngineError:
        title = game.variant
    players = ngettext("%(count)d player", "%(count)d players", game.players) % {
        "count": game.players
    }
    if game.turn_seconds:
        hours = max(1, game.turn_seconds // 3600)
        clock = ngettext("%(count)d hour per turn", "%(count)d hours per turn", hours) % {
            "count": hours
        }
    else:
        clock = _("no time limit")
    return _("%(title)s, %(players)s, %(clock)s") % {
        "title": title,
        "players": players,
        "clock": clock,
    }


def notify_invitation(
    *,
    game: Game,
    inviter: Any,
    user: Any = None,
    address: str = "",
    invitation_id: int | None = None,
    expires_at: datetime | None = None,
) -> None:
    """An invitation mail: to an account (`user`: its seat is kept, the link is the table's
    join page) or to an address (`invitation_id`: the link, a credential, is added when the
    mail is sent). A rematch offer when the game replays another."""
    from notifications.models import OutboxKind
    from notifications.payloads import game_url
    from notifications.services.outbox import outbox_enqueue

    payload: dict[str, Any] = {
        "game": None,
        "seat": None,
        "game_id": str(game.pk),
        "inviter": player_name(inviter),
        "table": table_label(game),
        "rematch": game.rematch_of_id is not None,
        "by_email": user is None,
        "expires_at": expires_at.isoformat() if expires_at else None,
    }
    if user is None:
        payload["invitation_id"] = invitation_id
        key = f"invitation:{invitation_id}"
    else:
        payload["link"] = game_url(game.pk) + "join/"
        key = f"invitation:{game.pk}:{user.pk}"
    outbox_enqueue(
        recipient=user, address=address, kind=OutboxKind.INVITATION, payload=payload, key=key
    )
