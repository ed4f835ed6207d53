"""A JSON value stored as compact text, for the move log (issue 25).

PostgreSQL's jsonb keeps, besides the value, a header for every object and array and an
offset for every key and element: for the small objects of a move (`{"type": "draw"}`, its
one or two engine events) that is about as much again as the JSON text itself, in a table
kept for good. This field stores the JSON text without whitespace in a text column and gives
back what was stored, keys in the order they were written (as SQLite's JSON always did).
Nothing queries inside these values (no `action__type` lookups), so jsonb's operators are not
missed; a value written while the column was jsonb reads back the same (its text form).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import models


class CompactJSONField(models.TextField):
    description = "A JSON value stored as compact text"
    # django-stubs' plugin reads these: the Python value is any JSON value, as a JSONField's.
    _pyi_private_set_type: Any
    _pyi_private_get_type: Any

    def get_prep_value(self, value: Any) -> Any:
        if value is None:
            return None
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None:
            return None
        return json.loads(value)

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str):
            return json.loads(value)
        return value

    def value_to_string(self, obj: models.Model) -> str:
        return str(self.get_prep_value(self.value_from_object(obj)))


# Bytes of a DigestField: the first 16 of the text's SHA-256 (a chance of a collision among a
# trillion keys of about 1 in 10^15).
DIGEST_BYTES = 16


def digest(text: str) -> bytes:
    """What a DigestField stores for `text`."""
    return hashlib.sha256(text.encode()).digest()[:DIGEST_BYTES]


class DigestField(models.BinaryField):
    """A text stored as its digest (issue 25): 16 bytes, for a key that is only ever looked up
    whole (a dedupe key, an Idempotency-Key) and never read back. A text given to it (in a
    model, a lookup, an INSERT) is stored and compared as `digest(text)`; bytes are taken as a
    digest already. Its value read back is the digest (bytes), never the text."""

    description = "A text stored as its 16-byte digest"
    _pyi_private_set_type: str | bytes
    _pyi_private_get_type: bytes

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if isinstance(value, str):
            return digest(value)
        return value

    def to_python(self, value: Any) -> Any:
        # Not BinaryField's (a text there is base64): a text here is what the digest is of.
        return value

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return None if value is None else bytes(value)  # PostgreSQL: a memoryview
