"""games 0014: idempotency records keep answering their retries when their key and fingerprint
become digests; the way back unpacks the headers and writes the digests in hex."""

from __future__ import annotations

import hashlib
import json

import pytest

from games.fields import digest
from games.services.idempotency import (
    body_pack,
    body_pack_format_1,
    idempotency_recorded,
    record_answer,
)
from tests.migrations import migrate_latest, migrate_to

BEFORE = [("games", "0013_game_archive_index")]
AFTER = [("games", "0014_idempotency_digests")]
BODY = json.dumps({"id": "g", "version": 7, "seats": [{"seat": 0}]}, separators=(",", ":"))
REQUEST = '{"body": {"actions": []}, "method": "POST"}'


@pytest.mark.django_db(transaction=True)
def test_records_keep_their_answers_both_ways() -> None:
    try:
        apps = migrate_to(BEFORE)
        user = apps.get_model("auth", "User").objects.create(username="i1")
        record = apps.get_model("games", "IdempotencyRecord")
        old = {"user_id": user.pk, "response_status": 200}
        record.objects.create(
            key="k-packed",
            fingerprint=hashlib.sha256(REQUEST.encode()).hexdigest(),
            response_packed=body_pack_format_1(BODY),
            response_headers={"ETag": '"v7"'},
            **old,
        )
        record.objects.create(
            key="k-text", fingerprint="f", response_body=BODY, response_headers={}, **old
        )

        migrate_to(AFTER)
        from django.contrib.auth import get_user_model

        from games.models import IdempotencyRecord

        user = get_user_model().objects.get(pk=user.pk)

        packed = idempotency_recorded(user=user, key="k-packed", fingerprint=digest(REQUEST))
        assert packed is not None and record_answer(packed) == (BODY, {"ETag": '"v7"'})
        text = idempotency_recorded(user=user, key="k-text", fingerprint=digest("f"))
        assert text is not None and record_answer(text) == (BODY, {})
        IdempotencyRecord.objects.create(
            user_id=user.pk,
            key="k-new",
            fingerprint=digest(REQUEST),
            response_status=201,
            response_packed=body_pack(BODY, {"Location": "/g/"}),
        )

        apps = migrate_to(BEFORE)
        record = apps.get_model("games", "IdempotencyRecord")
        rows = {row.key: row for row in record.objects.all()}
        new = rows[digest("k-new").hex()]
        assert new.fingerprint == digest(REQUEST).hex()
        assert bytes(new.response_packed)[0] == 1
        assert record_answer(new) == (BODY, {"Location": "/g/"})
        assert record_answer(rows[digest("k-packed").hex()]) == (BODY, {"ETag": '"v7"'})
    finally:
        migrate_latest()
