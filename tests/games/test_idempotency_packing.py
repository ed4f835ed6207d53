"""How an idempotency record packs its answer (games.services.idempotency): format 2 keeps the
headers and the body against a dictionary that must never change."""

from __future__ import annotations

import pytest

from games.services import idempotency
from games.services.idempotency import body_pack, record_answer


class _Record:
    pk = 1
    response_body = None
    response_headers = None

    def __init__(self, packed: bytes) -> None:
        self.response_packed = packed


def test_an_answer_and_its_headers_come_back_as_they_were():
    body = '{"id":"g","seats":[{"seat":0,"username":"ann"}],"table":{"hand":["5H","JK"]}}'
    for headers in ({"ETag": 'W/"g-5-3"', "Location": "/g/"}, {}):
        packed = body_pack(body, headers)
        assert packed[0] == 2
        assert record_answer(_Record(packed)) == (body, headers)  # type: ignore[arg-type]


def test_a_changed_dictionary_is_refused(tmp_path, monkeypatch):
    changed = tmp_path / "dictionary.txt"
    changed.write_bytes(idempotency._DICTIONARY_2_FILE.read_bytes() + b"\n")
    monkeypatch.setattr(idempotency, "_DICTIONARY_2_FILE", changed)
    # The check is cached per file and digest (games.packing): another file is checked anew.
    with pytest.raises(RuntimeError, match="changed"):
        body_pack("{}")
