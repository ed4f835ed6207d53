"""The outbox: notifications written as rows with the change that caused them, delivered after
commit, swept when a message was lost (docs/move-lifecycle.md, steps 3-4).

A row's life: pending -> sending (claimed by one worker, conditional UPDATE) -> sent, or back
to pending with a backoff after a failure, or failed after the last attempt, or skipped when
the recipient does not want it or has no address. Delivery is at least once by construction
(a worker may die at any point) and exactly once in practice: the claim lets one worker hold
a row, and the row is marked sent right after the email backend returns.
"""

from __future__ import annotations

import functools
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from games.models import Seat, SeatKind
from games.services.compiled import (
    SENTINEL_NOW,
    compiled_bulk_insert,
    compiled_rows,
    compiled_run,
    compiled_update,
    sentinel_ints,
)
from notifications.models import (
    OPEN_STATUSES,
    GamePresence,
    Outbox,
    OutboxChannel,
    OutboxKind,
    OutboxShared,
    OutboxStatus,
)
from notifications.payloads import payload_stored
from notifications.services.preferences import email_delay, email_skip_reason

logger = logging.getLogger(__name__)


def outbox_key(*, recipient: Any, kind: str, game: Any = None, move_seq: int | None = None) -> str:
    """The default dedupe key: one row per game, move, recipient and kind."""
    game_part = "-" if game is None else str(getattr(game, "pk", game))
    seq_part = "-" if move_seq is None else str(move_seq)
    return f"{game_part}:{seq_part}:{getattr(recipient, 'pk', recipient)}:{kind}"


# Queued by name: notifications.tasks imports this module (apps.py imports the tasks, so
# every process has them registered).
DELIVER_TASK = "notifications.tasks.deliver_outbox"


def _schedule_delivery(outbox_id: int) -> None:
    try:
        current_app.tasks[DELIVER_TASK].delay(outbox_id)
    except Exception:
        # The broker is down or slow. The row is committed; sweep_outbox sends it later. A
        # move must never fail (or fail to answer) because of this.
        logger.warning("outbox %s: could not queue delivery; the sweep will send it", outbox_id)


def outbox_enqueue(
    *,
    recipient: Any,
    kind: str,
    payload: dict[str, Any],
    game: Any = None,
    move_seq: int | None = None,
    key: str | None = None,
    channel: str = OutboxChannel.EMAIL,
    address: str = "",
    skip_reason: str = "",
) -> Outbox | None:
    """Write a notification row in the caller's transaction and deliver it after commit.

    Idempotent: a second call with the same key returns None and writes nothing, so a retried
    request or a repeated event never notifies twice. Returns the new row. ``skip_reason``:
    the caller already knows the row is not to be sent (it is written skipped, with it).
    """
    key = key or outbox_key(recipient=recipient, kind=kind, game=game, move_seq=move_seq)
    now = timezone.now()
    due = now
    if channel == OutboxChannel.EMAIL and not skip_reason:
        skip_reason = email_skip_reason(recipient=recipient, kind=kind, address=address) or ""
        due = now + email_delay(recipient=recipient, kind=kind)
    # A skipped row is written all the same: it records that the event happened and why no
    # mail went out (delivery checks the preference again, in case it changed meanwhile).
    status = OutboxStatus.SKIPPED if skip_reason else OutboxStatus.PENDING
    try:
        # A savepoint, so a duplicate key does not break the caller's transaction. The INSERT
        # is tried straight away (the unique key decides): a duplicate is the rare case, and a
        # SELECT first would cost every notification a round trip.
        with transaction.atomic():
            row = Outbox.objects.create(
                key=key,
                recipient=recipient,
                address=address,
                kind=kind,
                channel=channel,
                game=game,
                move_seq=move_seq,
                payload=payload_kept(payload, game, kind=kind, skipped=bool(skip_reason)),
                status=status,
                last_error=skip_reason or "",
                created_at=now,
                # A turn email waits for the player to look first (services/presence.py): a
                # deadline the sweep reads, not a countdown.
                next_attempt_at=due,
            )
    except IntegrityError:
        # The key exists: this event was written already (a retry, a repeated event).
        return None
    # A row that waits (a turn email, services/presence.py) is the sweep's once it is due.
    if row.status == OutboxStatus.PENDING and row.next_attempt_at <= now:
        transaction.on_commit(lambda: _schedule_delivery(row.pk))
    return row


def payload_kept(payload: dict[str, Any], game: Any, *, kind: str, skipped: bool) -> dict[str, Any]:
    """What a new row stores of its payload: nothing for a row written skipped, which records
    that the event happened and why no mail went out, not what the mail would have said (a
    turn email's player view and legal actions are 1.2 KB), except a hand's result, whose
    shared part is stored once for all the event's rows (SHARED_KINDS) and which a later
    summary may fold in (notifications.services.summaries)."""
    if skipped and kind not in SHARED_KINDS:
        return {}
    return payload_stored(payload, game)


def outbox_row(
    *,
    recipient: Any,
    kind: str,
    payload: dict[str, Any],
    game: Any = None,
    move_seq: int | None = None,
    key: str | None = None,
) -> Outbox:
    """An email row as outbox_enqueue would write it (its preference judged now), unsaved:
    for outbox_write_new, which writes several in one statement."""
    skip_reason = email_skip_reason(recipient=recipient, kind=kind)
    now = timezone.now()
    return Outbox(
        key=key or outbox_key(recipient=recipient, kind=kind, game=game, move_seq=move_seq),
        recipient=recipient,
        kind=kind,
        channel=OutboxChannel.EMAIL,
        game=game,
        move_seq=move_seq,
        payload=payload_kept(payload, game, kind=kind, skipped=bool(skip_reason)),
        status=OutboxStatus.SKIPPED if skip_reason else OutboxStatus.PENDING,
        last_error=skip_reason or "",
        created_at=now,
        next_attempt_at=now + email_delay(recipient=recipient, kind=kind),
    )


# The kinds whose rows of one event carry the same result for every player (a hand's result
# and score sheet, the match's hands): that part is stored once (OutboxShared).
SHARED_KINDS = frozenset({OutboxKind.HAND_OVER, OutboxKind.MATCH_OVER})
# The recipient's own keys: never shared, whatever their values.
OWN_KEYS = frozenset({"seat", "view", "legal", "moment"})


def _common_part(payloads: list[dict[str, Any]]) -> dict[str, Any]:
    first, rest = payloads[0], payloads[1:]
    return {
        key: value
        for key, value in first.items()
        if key not in OWN_KEYS and all(key in other and other[key] == value for other in rest)
    }


def _share_payloads(rows: list[Outbox]) -> None:
    """Store what the rows of one event (game, move, kind) in SHARED_KINDS have in common
    once: one OutboxShared row per event, each outbox row keeping only its own part."""
    events: dict[tuple[Any, Any, str], list[Outbox]] = defaultdict(list)
    for row in rows:
        if row.kind in SHARED_KINDS and row.game_id is not None:
            events[(row.game_id, row.move_seq, row.kind)].append(row)
    for group in events.values():
        common = _common_part([row.payload for row in group]) if len(group) > 1 else {}
        if not common:
            continue
        shared = OutboxShared.objects.create(data=common)
        for row in group:
            row.shared = shared
            row.payload = {k: v for k, v in row.payload.items() if k not in common}


def outbox_write_new(rows: list[Outbox]) -> list[Outbox]:
    """Write rows whose keys cannot exist yet, in one INSERT, and deliver them after commit.

    For a move's notifications (games.services.notify.notify_batch): their keys carry the
    move's new seq (or the number of the hand it ended), written under the game's row lock,
    so no earlier row can hold one. Without outbox_enqueue's savepoint per row: a duplicate
    here would be a bug, and it fails the transaction instead of passing unnoticed.
    """
    if not rows:
        return []
    _share_payloads(rows)
    written = compiled_bulk_insert(rows)
    now = timezone.now()
    pending = [
        row.pk
        for row in written
        if row.status == OutboxStatus.PENDING and row.next_attempt_at <= now
    ]
    for outbox_id in pending:
        transaction.on_commit(functools.partial(_schedule_delivery, outbox_id))
    return written


def _due_lookups(now: datetime) -> dict[str, Any]:
    # Pending rows whose time has come, and `sending` rows whose visibility timeout ran out:
    # their worker died (killed, lost its connection) between claiming and finishing.
    return {"status__in": list(OPEN_STATUSES), "next_attempt_at__lte": now}


def _due(now: datetime) -> Q:
    return Q(**_due_lookups(now))


def _claimed_rows(ids: list[int]) -> QuerySet[Outbox]:
    """The claimed rows with everything sending reads about them, in id order."""
    # With everything sending reads about the row: the recipient's preferences (mode,
    # language, time zone), the game (how far it moved on; the reply token's game), the
    # event's shared payload, when the recipient last looked at the game
    # (services/presence.py: no turn email while they do), and the number of the recipient's
    # own seat in the game (at most one: seat_user_unique), which the reply address checks
    # (mailplay.services.reply_to), so that rendering and sending a row costs no query for
    # them.
    seen_at = GamePresence.objects.filter(
        user_id=OuterRef("recipient_id"), game_id=OuterRef("game_id")
    ).values("last_seen_at")[:1]
    own_seat = Seat.objects.filter(
        game_id=OuterRef("game_id"), user_id=OuterRef("recipient_id"), kind=SeatKind.HUMAN
    ).values("number")[:1]
    return (
        Outbox.objects.select_related("recipient__notification_preference", "game", "shared")
        .annotate(seen_at=Subquery(seen_at), own_seat=Subquery(own_seat))
        .filter(pk__in=ids)
        .order_by("pk")
    )


def _claimed(ids: list[int]) -> list[Outbox]:
    """_claimed_rows(ids), its SQL compiled once per database and number of rows
    (games.services.compiled: building it cost Django more than running it)."""
    stand_ins = sentinel_ints(len(ids))
    return compiled_run(
        shape=f"outbox-claimed:{len(ids)}",
        model=Outbox,
        build=lambda: _claimed_rows(stand_ins),
        values={
            f"row{index}": (stand_in, pk, Outbox._meta.pk)
            for index, (stand_in, pk) in enumerate(zip(stand_ins, ids, strict=True))
        },
    )


def outbox_claim(outbox_id: int, *, now: datetime | None = None) -> Outbox | None:
    """Take the row for delivery, or None when it is not due or another worker holds it.

    One conditional UPDATE: of two workers racing for the row, exactly one matches. The claim
    moves next_attempt_at to the end of the visibility timeout; if the worker is still not done
    by then it is taken for dead and the row is claimable again.
    """
    now = now or timezone.now()
    visible_again = now + timedelta(seconds=settings.CANASTA_OUTBOX_VISIBILITY_SECONDS)
    # Compiled once per database (games.services.compiled): one for every email sent.
    claimed = compiled_update(
        Outbox,
        where={
            **_due_lookups(now),
            "pk": outbox_id,
            "attempts__lt": settings.CANASTA_OUTBOX_MAX_ATTEMPTS,
        },
        fields=_claim_fields(now, visible_again),
    )
    if not claimed:
        return None
    [row] = _claimed([outbox_id])
    return row


def _finish(row: Outbox, **fields: Any) -> bool:
    """Update a row we claimed, unless the claim was lost (the fencing token is `attempts`)."""
    held = compiled_update(
        Outbox,
        where={"pk": row.pk, "status": OutboxStatus.SENDING, "attempts": row.attempts},
        fields=fields,
    )
    if not held:
        logger.warning(
            "outbox %s: claim %s was taken over before it finished", row.pk, row.attempts
        )
    return bool(held)


# What a sent or skipped row keeps of its payload (the row stays for the outbox retention as
# the record that the notification went out, or why not): nothing reads it again, and a turn
# email's payload (the recipient's view and legal actions, 1.2 KB) was most of the outbox's
# bytes. A hand-over row folded into a later summary keeps its payload: the summary reads it
# (notifications.services.summaries).
DONE_PAYLOAD: dict[str, Any] = {}


def outbox_mark_sent(row: Outbox, *, now: datetime | None = None) -> bool:
    return _finish(
        row,
        status=OutboxStatus.SENT,
        sent_at=now or timezone.now(),
        last_error="",
        claimed_at=None,
        payload=DONE_PAYLOAD,
    )


def outbox_mark_skipped(row: Outbox, *, reason: str, keep_payload: bool = False) -> bool:
    """``keep_payload``: a hand-over email a later summary folds in (it reads the payload)."""
    kept = {} if keep_payload else {"payload": DONE_PAYLOAD}
    return _finish(row, status=OutboxStatus.SKIPPED, last_error=reason, claimed_at=None, **kept)


def backoff_seconds(attempts: int) -> float:
    """Wait after the `attempts`-th failed attempt: BACKOFF, 2 BACKOFF, 4 BACKOFF, ..."""
    return settings.CANASTA_OUTBOX_BACKOFF_SECONDS * 2 ** max(0, attempts - 1)


def outbox_mark_failed_attempt(
    row: Outbox,
    *,
    error: BaseException | str,
    now: datetime | None = None,
    permanent: bool = False,
) -> str:
    """Record a failed attempt: retry after a backoff, or give up after the last one (or at
    once when `permanent`: the row itself is wrong and no retry could send it)."""
    now = now or timezone.now()
    message = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    if permanent or row.attempts >= settings.CANASTA_OUTBOX_MAX_ATTEMPTS:
        status = OutboxStatus.FAILED
        next_attempt_at = now
    else:
        status = OutboxStatus.PENDING
        next_attempt_at = now + timedelta(seconds=backoff_seconds(row.attempts))
    _finish(
        row,
        status=status,
        next_attempt_at=next_attempt_at,
        last_error=message[:2000],
        claimed_at=None,
    )
    return status


# channel -> the function that sends a claimed row of it and returns the row's new status.
# Each channel's sender is registered from an app's ready() (email: notifications/apps.py).
# Webhooks are not sent through the outbox but from each hook's cursor
# (clients/services/webhook_delivery.py): a row of a channel without a sender is skipped.
ChannelSender = Callable[[Outbox], str]
_channel_senders: dict[str, ChannelSender] = {}


def channel_sender_register(channel: str, sender: ChannelSender) -> None:
    """One sender per channel (registering again replaces it)."""
    _channel_senders[channel] = sender


def outbox_row_send(row: Outbox) -> str:
    """Deliver a row this worker has claimed through its channel's sender; returns its new
    status."""
    sender = _channel_senders.get(row.channel)
    if sender is None:
        outbox_mark_skipped(row, reason=f"no delivery for channel {row.channel} yet")
        return OutboxStatus.SKIPPED
    return sender(row)


def outbox_deliver(outbox_id: int) -> str | None:
    """Claim, render and send one row; returns its new status, None if it was not ours."""
    row = outbox_claim(outbox_id)
    if row is None:
        return None
    return outbox_row_send(row)


def outbox_fail_abandoned(*, now: datetime | None = None) -> int:
    """Rows whose worker died on their last attempt: nothing may claim them again."""
    now = now or timezone.now()
    return Outbox.objects.filter(
        _due(now),
        status=OutboxStatus.SENDING,
        attempts__gte=settings.CANASTA_OUTBOX_MAX_ATTEMPTS,
    ).update(
        status=OutboxStatus.FAILED,
        last_error="the worker stopped during the last attempt",
        claimed_at=None,
    )


def outbox_claim_batch(*, limit: int, now: datetime | None = None) -> list[Outbox]:
    """Take up to `limit` due rows for this worker, oldest due first, in one transaction.

    On PostgreSQL the rows are read with SELECT ... FOR UPDATE SKIP LOCKED: workers claiming
    at the same moment take disjoint batches instead of queueing on each other's locks. SQLite
    has no row locks; its IMMEDIATE transactions run one writer at a time, which makes the
    read and the UPDATE one step all the same. The claim is outbox_claim's (sending, attempts
    + 1, visible again after the visibility timeout), so a single-row claim racing a batch
    claim still lets exactly one of them have the row.
    """
    now = now or timezone.now()
    visible_again = now + timedelta(seconds=settings.CANASTA_OUTBOX_VISIBILITY_SECONDS)
    with transaction.atomic():
        ids = [row[0] for row in _due_ids(now, limit)]
        if not ids:
            return []
        compiled_update(Outbox, where={"pk__in": ids}, fields=_claim_fields(now, visible_again))
    return _claimed(ids)


def _claim_fields(now: datetime, visible_again: datetime) -> dict[str, Any]:
    """What a claim writes: sending, until the visibility timeout; one attempt more."""
    return {
        "status": OutboxStatus.SENDING,
        "claimed_at": now,
        "next_attempt_at": visible_again,
        "attempts": F("attempts") + 1,
    }


def _due_ids(now: datetime, limit: int) -> list[tuple[Any, ...]]:
    """The ids of up to `limit` due rows, oldest due first, locked (SKIP LOCKED); compiled once
    per database, limit and attempt cap (both are in the statement's text or parameters)."""
    attempts = settings.CANASTA_OUTBOX_MAX_ATTEMPTS
    return compiled_rows(
        shape=f"outbox-due:{limit}:{attempts}",
        model=Outbox,
        build=lambda: (
            Outbox.objects.select_for_update(skip_locked=True)
            .filter(_due(SENTINEL_NOW), attempts__lt=attempts)
            .order_by("next_attempt_at")
            .values_list("pk")[:limit]
        ),
        values={"now": (SENTINEL_NOW, now, Outbox._meta.get_field("next_attempt_at"))},
    )


def outbox_release(row: Outbox, *, now: datetime | None = None) -> bool:
    """Give back a claimed row this worker will not send (its time budget ran out): due at
    once for the next worker, its attempt handed back, since nothing was tried."""
    return bool(
        Outbox.objects.filter(pk=row.pk, status=OutboxStatus.SENDING, attempts=row.attempts).update(
            status=OutboxStatus.PENDING,
            next_attempt_at=now or timezone.now(),
            claimed_at=None,
            attempts=F("attempts") - 1,
        )
    )


def _send_batch(rows: list[Outbox], ends: float | None) -> tuple[int, bool]:
    """Send claimed rows until the time budget ends; (rows sent, whether all were tried)."""
    sent = 0
    for index, row in enumerate(rows):
        if ends is not None and time.monotonic() >= ends:
            for unsent in rows[index:]:
                outbox_release(unsent)
            return sent, False
        sent += outbox_row_send(row) == OutboxStatus.SENT
    return sent, True


def outbox_drain(
    *, now: datetime | None = None, limit: int | None = None, seconds: float | None = None
) -> int:
    """Send due rows, a claimed batch at a time, until none is due or `seconds` are spent;
    returns the number sent.

    No cap on the rows: a backlog drains at the speed of the workers draining it, and any
    number of workers may drain at once (outbox_claim_batch gives each its own rows). A batch
    smaller than `limit` means nothing more was due when it was claimed: the drain ends there
    (what falls due later has its own task, or the next sweep). No delivery starts after
    `seconds`; the rows of the batch not started by then are released at once.
    """
    ends = None if seconds is None else time.monotonic() + seconds
    limit = limit or settings.CANASTA_OUTBOX_SWEEP_BATCH
    sent = 0
    while True:
        rows = outbox_claim_batch(limit=limit, now=now)
        done, finished = _send_batch(rows, ends)
        sent += done
        if not finished or len(rows) < limit:
            return sent


def outbox_sweep(
    *, now: datetime | None = None, limit: int | None = None, seconds: float | None = None
) -> int:
    """Deliver what is due and was not delivered: lost task messages, a Redis restart, a
    killed worker's claims, retries after their backoff, delayed turn emails. Returns the
    number of rows sent.

    Everything due is sent (outbox_drain), oldest due first, `limit` rows claimed at a time
    (CANASTA_OUTBOX_SWEEP_BATCH); no new delivery starts after `seconds` (the task's time limit
    must not cut one off), and the next sweep continues. The queries read the partial index of
    open rows only, so the cost follows what is due, not the history of sent mail.
    """
    outbox_fail_abandoned(now=now)
    return outbox_drain(now=now, limit=limit, seconds=seconds)


def outbox_due_batches(*, most: int, limit: int | None = None) -> int:
    """How many claimed batches the rows due now fill, counting no further than `most`: the
    number of workers worth setting on them (one COUNT over at most most × limit index
    entries)."""
    limit = limit or settings.CANASTA_OUTBOX_SWEEP_BATCH
    due = Outbox.objects.filter(_due(timezone.now()))[: most * limit].count()
    return min(most, -(-due // limit))
