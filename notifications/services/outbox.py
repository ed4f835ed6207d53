"""The outbox: notifications written as rows with the change that caused them, delivered after
commit, swept when a message was lost (design.md, "Data flow of a move", steps 3-4).

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
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from notifications.models import OPEN_STATUSES, Outbox, OutboxChannel, OutboxStatus
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
                payload=payload,
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
        payload=payload,
        status=OutboxStatus.SKIPPED if skip_reason else OutboxStatus.PENDING,
        last_error=skip_reason or "",
        created_at=now,
        next_attempt_at=now + email_delay(recipient=recipient, kind=kind),
    )


def outbox_write_new(rows: list[Outbox]) -> list[Outbox]:
    """Write rows whose keys cannot exist yet, in one INSERT, and deliver them after commit.

    For a move's notifications (games.services.notify.notify_batch): their keys carry the
    move's new seq (or the number of the hand it ended), written under the game's row lock,
    so no earlier row can hold one. Without outbox_enqueue's savepoint per row: a duplicate
    here would be a bug, and it fails the transaction instead of passing unnoticed.
    """
    if not rows:
        return []
    written = Outbox.objects.bulk_create(rows)
    now = timezone.now()
    pending = [
        row.pk
        for row in written
        if row.status == OutboxStatus.PENDING and row.next_attempt_at <= now
    ]
    for outbox_id in pending:
        transaction.on_commit(functools.partial(_schedule_delivery, outbox_id))
    return written


def _due(now: datetime) -> Q:
    # Pending rows whose time has come, and `sending` rows whose visibility timeout ran out:
    # their worker died (killed, lost its connection) between claiming and finishing.
    return Q(status__in=OPEN_STATUSES, next_attempt_at__lte=now)


def outbox_claim(outbox_id: int, *, now: datetime | None = None) -> Outbox | None:
    """Take the row for delivery, or None when it is not due or another worker holds it.

    One conditional UPDATE: of two workers racing for the row, exactly one matches. The claim
    moves next_attempt_at to the end of the visibility timeout; if the worker is still not done
    by then it is taken for dead and the row is claimable again.
    """
    now = now or timezone.now()
    visible_again = now + timedelta(seconds=settings.CANASTA_OUTBOX_VISIBILITY_SECONDS)
    claimed = (
        Outbox.objects.filter(_due(now), pk=outbox_id)
        .filter(attempts__lt=settings.CANASTA_OUTBOX_MAX_ATTEMPTS)
        .update(
            status=OutboxStatus.SENDING,
            claimed_at=now,
            next_attempt_at=visible_again,
            attempts=F("attempts") + 1,
        )
    )
    if not claimed:
        return None
    return Outbox.objects.select_related("recipient").get(pk=outbox_id)


def _finish(row: Outbox, **fields: Any) -> bool:
    """Update a row we claimed, unless the claim was lost (the fencing token is `attempts`)."""
    held = Outbox.objects.filter(
        pk=row.pk, status=OutboxStatus.SENDING, attempts=row.attempts
    ).update(**fields)
    if not held:
        logger.warning(
            "outbox %s: claim %s was taken over before it finished", row.pk, row.attempts
        )
    return bool(held)


def outbox_mark_sent(row: Outbox, *, now: datetime | None = None) -> bool:
    return _finish(
        row, status=OutboxStatus.SENT, sent_at=now or timezone.now(), last_error="", claimed_at=None
    )


def outbox_mark_skipped(row: Outbox, *, reason: str) -> bool:
    return _finish(row, status=OutboxStatus.SKIPPED, last_error=reason, claimed_at=None)


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


def outbox_sweep(
    *, now: datetime | None = None, limit: int | None = None, seconds: float | None = None
) -> int:
    """Deliver what is due and was not delivered: lost task messages, a Redis restart, a
    killed worker's claims, retries after their backoff. Returns the number of rows sent.

    Bounded: at most `limit` rows per sweep (CANASTA_OUTBOX_SWEEP_BATCH), oldest due first, and
    no new delivery starts after `seconds` (the task's time limit must not cut one off); the
    next sweep continues. The query reads the partial index of open rows only.
    """
    ends = None if seconds is None else time.monotonic() + seconds
    now = now or timezone.now()
    limit = limit or settings.CANASTA_OUTBOX_SWEEP_BATCH
    outbox_fail_abandoned(now=now)
    due_ids = list(
        Outbox.objects.filter(_due(now))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    sent = 0
    for outbox_id in due_ids:
        if ends is not None and time.monotonic() >= ends:
            break
        if outbox_deliver(outbox_id) == OutboxStatus.SENT:
            sent += 1
    return sent


# Rows that nothing will send again; the partial index of open rows never holds them.
DONE_STATUSES = (OutboxStatus.SENT, OutboxStatus.SKIPPED, OutboxStatus.FAILED)
PRUNE_CHUNK = 5000


def outbox_prune(*, days: int, now: datetime | None = None) -> int:
    """Delete done rows (sent, skipped, failed) older than `days`; returns how many.

    A row is the record that a notification went out (or why not); after the retention it has
    served its purpose (the dedupe key matters only while the move that caused it can be
    retried, seconds). Pending and sending rows are never touched. In chunks, so no delete
    holds a long transaction. Beat runs it daily (`prune-outbox`).
    """
    cutoff = (now or timezone.now()) - timedelta(days=days)
    old = Outbox.objects.filter(status__in=DONE_STATUSES, created_at__lt=cutoff)
    deleted = 0
    while chunk := list(old.values_list("pk", flat=True)[:PRUNE_CHUNK]):
        deleted += Outbox.objects.filter(pk__in=chunk, status__in=DONE_STATUSES).delete()[0]
    return deleted
