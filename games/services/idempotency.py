"""Idempotency-Key records: a retried request gets the first response, never a second effect.

A record is claimed (inserted) before the request is processed and completed with the response
afterwards, in the request's own transaction (api.idempotency). The unique (user, key)
constraint decides races: a concurrent duplicate waits for the first to commit and then gets
its answer; a claim still open (a record written before claims shared the request's
transaction) tells it to retry later (409).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.models import IdempotencyRecord
from games.services.errors import ErrorKind, GameError

# A claim left open this long belongs to a request that died (a killed worker); a retry may
# take it over instead of being refused for ever.
ABANDONED_AFTER = timedelta(seconds=60)


@dataclass
class IdempotencyClaim:
    record: IdempotencyRecord
    replay: bool  # True: record holds the first response, send it again


def idempotency_claim(*, user: Any, key: str, fingerprint: str) -> IdempotencyClaim:
    for _ in range(3):
        try:
            with transaction.atomic():
                record = IdempotencyRecord.objects.create(
                    user=user, key=key, fingerprint=fingerprint
                )
            return IdempotencyClaim(record=record, replay=False)
        except IntegrityError:
            pass
        record_or_none = IdempotencyRecord.objects.filter(user=user, key=key).first()
        if record_or_none is None:
            continue  # released in between (the first request failed): claim it afresh
        record = record_or_none
        if record.fingerprint != fingerprint:
            raise GameError(
                ErrorKind.ILLEGAL,
                "idempotency_key_reused",
                "This Idempotency-Key was used for a different request.",
            )
        if record.response_status is not None:
            return IdempotencyClaim(record=record, replay=True)
        now = timezone.now()
        if record.created_at < now - ABANDONED_AFTER:
            taken = IdempotencyRecord.objects.filter(
                pk=record.pk, response_status__isnull=True, created_at=record.created_at
            ).update(created_at=now)
            if taken:
                record.created_at = now
                return IdempotencyClaim(record=record, replay=False)
        raise GameError(
            ErrorKind.CONFLICT,
            "request_in_progress",
            "A request with this Idempotency-Key is still being processed; retry shortly.",
        )
    raise GameError(
        ErrorKind.CONFLICT,
        "request_in_progress",
        "A request with this Idempotency-Key is being processed; retry shortly.",
    )


def idempotency_complete(
    *, record: IdempotencyRecord, status: int, body: Any, headers: dict[str, str]
) -> None:
    record.response_status = status
    record.response_body = body
    record.response_headers = headers
    record.save(update_fields=["response_status", "response_body", "response_headers"])


def idempotency_release(*, record: IdempotencyRecord) -> None:
    """Forget a claim whose request failed unexpectedly, so that a retry can run it."""
    IdempotencyRecord.objects.filter(pk=record.pk, response_status__isnull=True).delete()
