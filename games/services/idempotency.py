"""Idempotency-Key records: a retried request gets the first response, never a second effect.

A record is written once, with the first response, at the end of the request's own
transaction (api.idempotency): one INSERT, nothing written before the work
(docs/move-path-speed.md). The unique (user, key) constraint decides races and retries: the
INSERT of a second request with the same key fails (on PostgreSQL it first waits for the first
request to commit), its transaction is rolled back with everything its work did, and it
answers with the stored record. A record without a response is an open claim written before
records were written whole; a duplicate is told to retry later (409) until it is abandoned.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import IntegrityError
from django.utils import timezone

from games.models import IdempotencyRecord
from games.services.compiled import compiled_insert
from games.services.errors import ErrorKind, GameError, refused

# A claim left open this long belongs to a request that died (a killed worker); a retry may
# take it over instead of being refused for ever.
ABANDONED_AFTER = timedelta(seconds=60)


class IdempotencyKeyTaken(Exception):
    """The (user, key) record exists already: roll the request back and read it
    (idempotency_recorded)."""


def idempotency_store(
    *, user: Any, key: str, fingerprint: str, status: int, body: Any, headers: dict[str, str]
) -> None:
    """Write the record with the first response, in the request's transaction (its one
    statement). Raises IdempotencyKeyTaken when the key has a record already; the caller's
    transaction must then be rolled back (on PostgreSQL it can run nothing more)."""
    record = IdempotencyRecord(
        user=user,
        key=key,
        fingerprint=fingerprint,
        response_status=status,
        response_body=body,
        response_headers=headers,
    )
    try:
        compiled_insert(record)  # compiled once per database (games.services.compiled)
    except IntegrityError as exc:
        raise IdempotencyKeyTaken from exc


def idempotency_recorded(*, user: Any, key: str, fingerprint: str) -> IdempotencyRecord | None:
    """After IdempotencyKeyTaken, the transaction rolled back: the record whose response
    answers this request, or None when the key is free again (the record is gone, or was an
    abandoned open claim and is now removed): run the request again.

    Raises 422 idempotency_key_reused for a key used with another request, 409
    request_in_progress for an open claim."""
    record = IdempotencyRecord.objects.filter(user=user, key=key).first()
    if record is None:
        return None
    if record.fingerprint != fingerprint:
        raise refused(ErrorKind.ILLEGAL, "idempotency_key_reused")
    if record.response_status is not None:
        return record
    if record.created_at < timezone.now() - ABANDONED_AFTER:
        abandoned = IdempotencyRecord.objects.filter(
            pk=record.pk, response_status__isnull=True, created_at=record.created_at
        )
        if abandoned.delete()[0]:
            return None
    raise idempotency_in_progress()


def idempotency_in_progress() -> GameError:
    return refused(ErrorKind.CONFLICT, "request_in_progress")
