"""Schemathesis against our own OpenAPI schema, in-process (WSGI), as a seated player: each
operation on its own (the stateful sequences are in test_stateful_fuzz.py).

Every response must be documented: its status code, its content type and its body (the one
error shape for errors), and no request may end in a 5xx.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from hypothesis import settings

from clients.services.tokens import token_create
from clients.services.webhooks import webhook_create
from notifications.services.absences import absence_declare
from tests.fuzz.openapi import EXCLUDED_CHECKS, HEALTH_CHECKS_OFF, load_schema
from tests.game_fixtures import account_token_key, current_table, user_at

schema = load_schema()


@pytest.fixture
def seated(game: Any, fuzz_settings: Any) -> dict[str, Any]:
    """The player whose turn it is in a started game, with a webhook, a coming absence and a
    personal token of theirs: the token and the ids the paths take."""
    user = user_at(game, current_table(game).turn)
    hook, _ = webhook_create(owner=user, url="https://hooks.example.org/canasta")
    absence = absence_declare(
        user=user,
        starts_at=timezone.now() + timedelta(days=2),
        ends_at=timezone.now() + timedelta(days=3),
    )
    token, _ = token_create(owner=user, name="fuzz", scopes=["read", "play"])
    return {
        "token": account_token_key(user),
        "ids": {
            "game_id": str(game.pk),
            "webhook_id": hook.pk,
            "absence_id": absence.pk,
            "token_id": token.pk,
        },
    }


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=6, derandomize=True, database=None, suppress_health_check=HEALTH_CHECKS_OFF)
def test_every_operation_answers_within_its_schema(case: Any, seated: dict, in_process_wsgi):
    # A random id is a 404 every time; the real ones reach the code behind.
    for name, value in seated["ids"].items():
        if case.path_parameters and name in case.path_parameters:
            case.path_parameters[name] = value
    case.call_and_validate(
        headers={"Authorization": f"Token {seated['token']}"}, excluded_checks=EXCLUDED_CHECKS
    )
