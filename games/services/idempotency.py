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

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import IntegrityError
from django.utils import timezone

from games.models import IdempotencyRecord
from games.packing import deflated, dictionary_checked, inflated
from games.services.compiled import compiled_insert
from games.services.errors import ErrorKind, GameError, refused

# A claim left open this long belongs to a request that died (a killed worker); a retry may
# take it over instead of being refused for ever.
ABANDONED_AFTER = timedelta(seconds=60)


# A stored body's first byte says how the rest is packed, so the dictionary can change without
# breaking the records of the last day: 1 is raw deflate against _DICTIONARY_1 of the body
# (the headers in the record's `response_headers`), 2 raw deflate at level 9 against
# _DICTIONARY_2 of a line of the headers and the body (body_pack).
_FORMAT_1 = 1
_FORMAT_2 = 2
# An answer of the game API, its ids and names neutral: what deflate finds again in most
# answers (the keys, the seats block, the options, the legal actions' shapes). Never change
# it in place: add a format with a new dictionary and keep reading this one for a day.
_DICTIONARY_1 = (
    b'{"id":"00000000-0000-4000-8000-000000000000","variant":"classic","players":4,'
    b'"public":true,"rated":true,"status":"active","version":5,"created_by":"player",'
    b'"created_at":"2026-12-02T01:41:37.597326Z","started_at":"2026-12-02T01:41:37.777034Z",'
    b'"finished_at":null,"turn":0,"turn_started_at":"2026-12-02T01:41:37.777034Z",'
    b'"deadline":"2026-12-05T01:41:37.777034Z","weekend_pause":false,"moves":1,'
    b'"totals":[0,0],"seats":[{"seat":0,"side":0,"username":"player","kind":"human",'
    b'"status":"joined","drew":null,"presence":"human","bot_level":null,"stand_in":null,'
    b'"timeouts_in_a_row":0,"absent":[]},{"seat":1,"side":1,"username":"player",'
    b'"kind":"human","status":"joined","drew":null,"presence":"human","bot_level":null,'
    b'"stand_in":null,"timeouts_in_a_row":0,"absent":[]},{"seat":2,"side":0,'
    b'"username":"player","kind":"human","status":"joined","drew":null,"presence":"human",'
    b'"bot_level":null,"stand_in":null,"timeouts_in_a_row":0,"absent":[]},{"seat":3,"side":1,'
    b'"username":"player","kind":"human","status":"joined","drew":null,"presence":"human",'
    b'"bot_level":null,"stand_in":null,"timeouts_in_a_row":0,"absent":[]}],"result":null,'
    b'"my_seat":0,"my_side":0,"my_status":"joined","my_turn":true,"options":{"target":5000,'
    b'"seating":"invitation","ask_partner":false,"black_three":"freeze"},'
    b'"turn_seconds":259200,"timeout_policy":"autoplay","seating_seed":null,'
    b'"current_hand":{"number":1,"commitment":"0000000000000000000000000000000000000000000000'
    b'000000000000000000"},"table":{"seat":0,"hand":["TS","TC","JD","2H","QS","QH","9D","8C",'
    b'"JK","2H","9H","JK"],"variant":"classic","players":4,"options":{"target":5000,'
    b'"seating":"invitation","ask_partner":false,"black_three":"freeze"},"dealer":3,"turn":0,'
    b'"phase":"play","scores":[0,0],"discard":["7S"],"melds":[{},{}],"red_threes":[[],[]],'
    b'"hand_sizes":[12,11,11,11],"stock_size":62,"melded":[false,false,false,false],'
    b'"frozen":true,"minimum":50},"your_move":{"version":5,"seat":0,"my_turn":true,'
    b'"phase":"play","legal":{"seat":0,"draw":false,"pickups":[],"melds":[{"type":"meld",'
    b'"melds":[["TS","TC","2H","2H"]]}],"adds":[],"going_out":[],"discards":["TS","TC","JD",'
    b'"2H","QS"],"ask_partner":false,"answers":[]},"actions":[{"type":"meld","melds":[["TS",'
    b'"TC","2H","2H"]]},{"type":"discard","card":"TS"},{"type":"discard","card":"TC"}]}}'
)


# Six answers of a game's moves from two bench games (bench/footprint.py's), their names,
# ids, times and hand commitment made neutral, then _DICTIONARY_1: what deflate finds again
# in an answer besides the keys (melds, adds and discards shaped as in play, a seats block).
# Against it at level 9 a move's answer packs about a tenth smaller than against
# _DICTIONARY_1 alone (docs/benchmarks.md). Never change the file: its digest is checked.
_DICTIONARY_2_FILE = Path(__file__).with_name("idempotency_dictionary_2.txt")
_DICTIONARY_2_SHA256 = "34271da9926af82b94f513152b54579a96deac63728a1c94fb8f94eefbcbfe89"


def _dictionary_2() -> bytes:
    return dictionary_checked(_DICTIONARY_2_FILE, _DICTIONARY_2_SHA256)


def body_pack(body: str, headers: dict[str, str] | None = None) -> bytes:
    """A response's body (its JSON text) and kept headers as an idempotency record stores them
    (about an eighth of a game's answer): format 2, then raw deflate at level 9 against the
    dictionary of the headers as a line of compact JSON (empty for none) and the body."""
    line = json.dumps(headers, separators=(",", ":")) if headers else ""
    text = f"{line}\n{body}".encode()
    return bytes([_FORMAT_2]) + deflated(text, _dictionary_2())


def body_pack_format_1(body: str) -> bytes:
    """The body alone as format 1 stored it (its headers in `response_headers`): for the
    migration that goes back to it (games 0014)."""
    return bytes([_FORMAT_1]) + deflated(body.encode(), _DICTIONARY_1, level=6)


def record_answer(record: IdempotencyRecord) -> tuple[Any, dict[str, str]]:
    """The stored body and headers: the JSON text of a packed record, or what a record written
    before packing holds (a JSON string, or an object from before that); the headers packed
    with it (format 2) or in `response_headers` (before)."""
    packed = record.response_packed
    if packed is None:
        return record.response_body, record.response_headers or {}
    packed = bytes(packed)  # PostgreSQL hands back a memoryview
    if packed[0] not in (_FORMAT_1, _FORMAT_2):
        raise ValueError(f"idempotency record {record.pk}: unknown body format {packed[0]}")
    dictionary = _dictionary_2() if packed[0] == _FORMAT_2 else _DICTIONARY_1
    text = inflated(packed[1:], dictionary).decode()
    if packed[0] == _FORMAT_1:
        return text, record.response_headers or {}
    line, body = text.split("\n", 1)
    return body, json.loads(line) if line else {}


def record_body(record: IdempotencyRecord) -> Any:
    """The stored body (record_answer's first part)."""
    return record_answer(record)[0]


class IdempotencyKeyTaken(Exception):
    """The (user, key) record exists already: roll the request back and read it
    (idempotency_recorded)."""


def idempotency_store(
    *, user: Any, key: str, fingerprint: bytes, status: int, body: str, headers: dict[str, str]
) -> None:
    """Write the record with the first response, in the request's transaction (its one
    statement). Raises IdempotencyKeyTaken when the key has a record already; the caller's
    transaction must then be rolled back (on PostgreSQL it can run nothing more)."""
    record = IdempotencyRecord(
        user=user,
        key=key,
        fingerprint=fingerprint,
        response_status=status,
        response_packed=body_pack(body, headers),
        response_headers=None,
    )
    try:
        compiled_insert(record)  # compiled once per database (games.services.compiled)
    except IntegrityError as exc:
        raise IdempotencyKeyTaken from exc


def idempotency_recorded(*, user: Any, key: str, fingerprint: bytes) -> IdempotencyRecord | None:
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
