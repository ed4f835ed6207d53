"""Schemathesis' state machine over the game operations: sequences that follow the schema's
links (api.schema.add_links) and the ones schemathesis infers (a listed or created game's id
into its other operations), e.g. create a game → read it → legal actions → play the first →
legal actions again, with every response checked against the schema.

Each request carries the token of the player to move in the game its path names (so the
legal actions are real and get played), or of alice, who sits in the started game.
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import pytest
import werkzeug.test
from django.core.cache import cache
from django.db import transaction
from hypothesis import Phase, settings
from hypothesis.stateful import rule
from schemathesis import GenerationMode

from games import engine
from games.models import Game, GameState
from tests.fuzz.openapi import EXCLUDED_CHECKS, HEALTH_CHECKS_OFF, load_schema
from tests.game_fixtures import account_token_key, pinned_seeds, start_game, user_at

# The operations of the play chain. With every operation in, the state machine has so many
# rules that 20 scenarios rarely reach legal → actions; test_schema_fuzz.py covers them all.
schema = load_schema().include(
    operation_id=[
        "games_list",
        "games_create",
        "games_retrieve",
        "games_legal",
        "games_actions",
        "games_moves",
    ]
)
# Sequences of valid requests; test_schema_fuzz.py sends the invalid ones to every operation.
schema.config.generation.modes = [GenerationMode.POSITIVE]
schema.config.phases.stateful.generation.modes = [GenerationMode.POSITIVE]
GAME_ID = Game._meta.get_field("id")


def _token_for(case: Any, fallback: Any) -> str:
    return _token_for_game((case.path_parameters or {}).get("game_id"), fallback)


def _token_for_game(game_id: Any, fallback: Any) -> str:
    try:
        game_id = uuid.UUID(str(game_id))
    except ValueError:  # no game in the path, or a negative case's garbage
        return account_token_key(fallback)
    game = Game.objects.filter(pk=game_id, status="active").first()
    state = GameState.objects.filter(game=game).first() if game else None
    user = user_at(game, state.table["turn"]) if state else None
    return account_token_key(user or fallback)


class Workflow(schema.as_state_machine()):  # type: ignore[misc]
    fallback_user: Any = None
    started_game_id: str = ""
    moves_played: int = 0  # by the generated steps (the links)
    moves_by_rule: int = 0

    def setup(self) -> None:
        # Every scenario starts from the same database and deals the same cards: what one
        # left behind, or a fresh shuffle, would make a replayed scenario take other links.
        self._savepoint = transaction.savepoint()
        self._new_seed = engine.new_seed
        cache.clear()
        engine.new_seed = pinned_seeds("fuzz-scenario")
        ids = (uuid.UUID(int=n, version=4) for n in itertools.count(1))
        GAME_ID.default = lambda: next(ids)

    def teardown(self) -> None:
        transaction.savepoint_rollback(self._savepoint)
        engine.new_seed = self._new_seed
        GAME_ID.default = uuid.uuid4

    def before_call(self, case: Any) -> None:
        super().before_call(case)
        # A generated If-Match is almost never this game's ETag, so a link's body (the first
        # legal action at the version just read) would be refused for it: the sequences check
        # the links; test_schema_fuzz.py sends If-Match garbage to every operation.
        if case.headers:
            case.headers.pop("If-Match", None)

    def get_call_kwargs(self, case: Any) -> dict[str, Any]:
        return {"headers": {"Authorization": f"Token {_token_for(case, self.fallback_user)}"}}

    def after_call(self, response: Any, case: Any) -> None:
        super().after_call(response, case)
        if case.operation.label.endswith("/actions/") and response.status_code == 200:
            type(self).moves_played += 1

    @rule()
    def play_the_first_legal_action(self) -> None:
        """The player to move in the started game plays (the link PlayTheFirstLegalAction,
        made certain to come up): between the generated steps, the game moves on."""
        game_id = self.started_game_id
        client = werkzeug.test.Client(schema.app)
        auth = {"Authorization": f"Token {_token_for_game(game_id, self.fallback_user)}"}
        legal = client.get(f"/api/v1/games/{game_id}/legal/", headers=auth)
        schema["/api/v1/games/{game_id}/legal/"]["GET"].validate_response(legal)
        if legal.status_code != 200 or not legal.json["actions"]:
            return  # the game is over (a generated resign), or a bot's turn
        body = {"actions": legal.json["actions"][:1], "expected_version": legal.json["version"]}
        played = client.post(f"/api/v1/games/{game_id}/actions/", json=body, headers=auth)
        schema["/api/v1/games/{game_id}/actions/"]["POST"].validate_response(played)
        assert played.status_code == 200, played.json
        type(self).moves_by_rule += 1

    def validate_response(self, response: Any, case: Any, additional_checks=None, **kwargs):
        case.validate_response(
            response,
            additional_checks=additional_checks,
            excluded_checks=EXCLUDED_CHECKS,
            # The headers sent (our token, not the generated one) for the auth checks.
            headers=kwargs.get("headers"),
            transport_kwargs=kwargs or None,
            recorder=self.recorder,
        )


@pytest.fixture
def game(users: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Game:
    """The started game, dealt the same cards every run: which links a scenario can follow
    depends on the cards (whose turn it is, what is legal)."""
    monkeypatch.setattr(engine, "new_seed", pinned_seeds("fuzz-game"))
    return start_game(users)


@pytest.mark.django_db
def test_sequences_of_operations_stay_within_the_schema(game, users, in_process_wsgi):
    Workflow.fallback_user = users["alice"]
    Workflow.started_game_id = str(game.pk)
    Workflow.moves_played = Workflow.moves_by_rule = 0

    Workflow.run(
        settings=settings(
            # 40: with every operation of the schema to choose from, 20 scenarios no longer
            # reached a move through the links.
            max_examples=40,
            # A failure is reported as found: shrinking a long sequence takes minutes.
            phases=[Phase.explicit, Phase.generate],
            stateful_step_count=12,
            derandomize=True,
            database=None,
            suppress_health_check=HEALTH_CHECKS_OFF,
        )
    )

    # The game moved on under the fuzzing, and the links led to moves of their own.
    assert Workflow.moves_by_rule > 10
    assert Workflow.moves_played > 0, "no generated step played a legal action"
