"""The read model's TypedDicts (games/readmodel.py) and the API's serializers (the OpenAPI
schema) name the same fields: neither the payloads nor the schema can drift alone."""

from __future__ import annotations

import pytest
from rest_framework import serializers

from api.serializers.games import (
    AbsenceSpanSerializer,
    CurrentHandSerializer,
    GameDetailSerializer,
    GameSummarySerializer,
    ResultSerializer,
    SeatSerializer,
)
from api.serializers.play import HandSerializer, MoveSerializer
from games import readmodel

PAIRS = [
    (readmodel.MoveEntry, MoveSerializer),
    (readmodel.AbsenceEntry, AbsenceSpanSerializer),
    (readmodel.SeatEntry, SeatSerializer),
    (readmodel.ResultEntry, ResultSerializer),
    (readmodel.HandNumber, CurrentHandSerializer),
    (readmodel.GameSummary, GameSummarySerializer),
    (readmodel.GameDetail, GameDetailSerializer),
    (readmodel.HandEntry, HandSerializer),
]


@pytest.mark.parametrize(("typed", "serializer"), PAIRS, ids=[typed.__name__ for typed, _ in PAIRS])
def test_the_payload_type_and_the_schema_name_the_same_fields(
    typed: type, serializer: type[serializers.Serializer]
) -> None:
    # A TypedDict's keys, its bases' included.
    keys = set(typed.__required_keys__) | set(typed.__optional_keys__)
    assert keys == set(serializer().fields)
