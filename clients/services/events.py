"""The per-user event feed, written in the move's own transaction.

games/services/notify.py calls these next to the emails it writes: every human player gets a
`move` event for each accepted batch (the moves as their seat may see them), `hand_over` and
`match_over`, `timeout`, and `your_turn` when the turn passes to them. Each event is then
offered to the recipient's matching webhooks (clients/services/webhooks.py).

Ordering: the feed's cursor is the event id. Ids come from one sequence, so two transactions
writing events for the same user could commit in the opposite order of their ids, and a
reader who had already moved past the later id would never see the earlier one. Each writer
therefore locks the recipients' user rows (in id order, so two writers cannot deadlock) before
inserting and keeps the lock until commit: for any one user, ids then grow in commit order and
`after=<last id seen>` never skips an event. The lock is FOR NO KEY UPDATE, which does not
block inserts of rows that reference the user; SQLite's single writer orders everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from clients.models import Event, EventKind, Webhook, WebhookDelivery
from clients.payloads import move_payload
from games.engine import Table
from games.models import Game, Move, Seat, SeatKind

# The longest batch games.services.moves accepts: a game's first event (or its first since
# this feature existed) never reaches further back than that.
MAX_BATCH_MOVES = 50


@dataclass(frozen=True)
class Draft:
    recipient_id: int
    kind: str
    payload: dict[str, Any]


def _humans(game: Game) -> list[Seat]:
    return [
        seat
        for seat in game.seats.all()
        if seat.user_id is not None and seat.kind == SeatKind.HUMAN and seat.number is not None
    ]


def _batch_moves(game: Game, move_seq: int) -> list[Move]:
    """The moves up to `move_seq` that no `move` event announced yet: the batch just logged.

    One query; the subquery reads the (game, kind, seq) index.
    """
    announced = (
        Event.objects.filter(game=game, kind=EventKind.MOVE).order_by("-seq").values("seq")[:1]
    )
    floor = Greatest(
        Coalesce(Subquery(announced), Value(0)), Value(max(0, move_seq - MAX_BATCH_MOVES))
    )
    return list(Move.objects.filter(game=game, seq__gt=floor, seq__lte=move_seq).order_by("seq"))


def _lock_recipients(user_ids: Sequence[int]) -> set[int]:
    """Lock the recipients' rows until commit; returns those with an active webhook (the
    same query, so a move without webhooks costs no more)."""
    rows = (
        get_user_model()
        .objects.select_for_update(no_key=True)
        .filter(pk__in=user_ids)
        .order_by("pk")
        .annotate(hooked=Exists(Webhook.objects.filter(owner=OuterRef("pk"), active=True)))
        .values_list("pk", "hooked")
    )
    return {pk for pk, hooked in rows if hooked}


def events_write(*, game: Game, seq: int, drafts: Iterable[Draft]) -> list[Event]:
    """Write events (in the caller's transaction) and queue their webhook deliveries."""
    from clients.services.webhooks import webhooks_enqueue

    drafts = list(drafts)
    if not drafts:
        return []
    now = timezone.now()
    with transaction.atomic(savepoint=False):
        hooked = _lock_recipients(sorted({draft.recipient_id for draft in drafts}))
        events = Event.objects.bulk_create(
            [
                Event(
                    recipient_id=draft.recipient_id,
                    game=game,
                    kind=draft.kind,
                    seq=seq,
                    payload=draft.payload,
                    created_at=now,
                )
                for draft in drafts
            ]
        )
        if hooked:
            webhooks_enqueue(events=[event for event in events if event.recipient_id in hooked])
    return events


def events_for_moves(
    *, game: Game, events: Iterable[dict[str, Any]], totals: list[int], move_seq: int
) -> list[Event]:
    """A batch was logged (a turn, a resignation, a forfeit): `move` for every human player,
    then `hand_over` / `match_over` if the batch ended the hand or the match."""
    from notifications.payloads import hand_over_payload, match_over_payload

    humans = _humans(game)
    if not humans:
        return []
    drafts: list[Draft] = []
    moves = _batch_moves(game, move_seq)
    if moves:
        drafts += [
            Draft(
                seat.user_id, EventKind.MOVE, move_payload(game=game, seat=seat.number, moves=moves)
            )
            for seat in humans
        ]
    for event in events:
        if event.get("type") == "hand_result":
            drafts += [
                Draft(
                    seat.user_id,
                    EventKind.HAND_OVER,
                    hand_over_payload(
                        game=game, seat=seat.number, hand_result=event, totals=totals
                    ),
                )
                for seat in humans
            ]
        elif event.get("type") == "match_over":
            drafts += [
                Draft(
                    seat.user_id,
                    EventKind.MATCH_OVER,
                    match_over_payload(
                        game=game,
                        seat=seat.number,
                        totals=totals,
                        winner_side=event.get("winner"),
                        reason=str(event.get("reason")),
                    ),
                )
                for seat in humans
            ]
    return events_write(game=game, seq=move_seq, drafts=drafts)


def events_for_turn(
    *,
    game: Game,
    table: Table,
    move_seq: int,
    payloads: dict[int, dict[str, Any]] | None = None,
) -> list[Event]:
    """`your_turn` for the person who must act now (not a bot, not a seat a bot plays).

    ``payloads``: the seats' turn payloads when the caller built them already (the email of
    the same turn carries the same one), so the player view, the legal actions and the reply
    token are not computed twice.
    """
    from notifications.payloads import turn_payload

    if table.over or game.turn_seat is None:
        return []
    payloads = payloads or {}
    drafts = [
        Draft(
            seat.user_id,
            EventKind.YOUR_TURN,
            payloads.get(seat.number) or turn_payload(game=game, table=table, seat=seat.number),
        )
        for seat in _humans(game)
        if seat.number == game.turn_seat and not seat.away
    ]
    return events_write(game=game, seq=move_seq, drafts=drafts)


def events_for_timeout(
    *, game: Game, table: Table, timed_out_seat: int, handed_to_bot: bool, move_seq: int
) -> list[Event]:
    from notifications.payloads import timeout_payload

    drafts = [
        Draft(
            seat.user_id,
            EventKind.TIMEOUT,
            timeout_payload(
                game=game,
                table=table,
                seat=seat.number,
                timed_out_seat=timed_out_seat,
                policy=game.timeout_policy,
                handed_to_bot=handed_to_bot,
            ),
        )
        for seat in _humans(game)
    ]
    return events_write(game=game, seq=move_seq, drafts=drafts)


def events_prune(*, days: int, now: datetime | None = None) -> tuple[int, int]:
    """Delete feed events and webhook delivery attempts older than `days`; (events, attempts).

    The feed is a recent history for clients to catch up from, not an archive (the move log
    is that). Beat runs this daily (`prune-events`, CANASTA_EVENTS_RETENTION_DAYS).
    """
    cutoff = (now or timezone.now()) - timedelta(days=days)
    deliveries, _ = WebhookDelivery.objects.filter(created_at__lt=cutoff).delete()
    events, _ = Event.objects.filter(created_at__lt=cutoff).delete()
    return events, deliveries
