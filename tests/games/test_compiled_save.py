"""compiled_save: the move's UPDATEs of the snapshot and the game, compiled once per
database (games.services.compiled), must write what save(update_fields=...) writes, with
each call's own values, NULLs included."""

from datetime import timedelta

import pytest
from django.db import DatabaseError, transaction
from django.utils import timezone

from games.models import Game, GameState
from games.services.compiled import compiled_save
from tests.game_fixtures import start_game


def test_each_save_writes_its_own_values_and_only_its_fields(users):
    first, second = start_game(users), start_game(users)
    deadline = timezone.now() + timedelta(hours=3)
    for game, seat, when in ((first, 2, deadline), (second, 3, None), (first, 1, None)):
        game.turn_seat, game.deadline, game.version = seat, when, game.version + 1
        game.end_reason = "ignored"  # not among the saved fields
        with transaction.atomic():
            compiled_save(game, ["turn_seat", "deadline", "version"])
        stored = Game.objects.get(pk=game.pk)
        assert (stored.turn_seat, stored.deadline, stored.version) == (seat, when, game.version)
        assert stored.end_reason == ""
    with transaction.atomic():
        first.deadline = deadline
        compiled_save(first, ["turn_seat", "deadline", "version"])
    assert Game.objects.get(pk=first.pk).deadline == deadline
    assert Game.objects.get(pk=second.pk).turn_seat == 3


def test_auto_now_is_set_as_save_sets_it(users):
    game = start_game(users)
    state = GameState.objects.get(game=game)
    before = state.updated_at
    state.totals = [10, 20]
    compiled_save(state, ["totals", "updated_at"])
    stored = GameState.objects.get(pk=state.pk)
    assert stored.totals == [10, 20] and stored.updated_at == state.updated_at > before
    assert stored.table == GameState.objects.get(game=game).table


def test_a_row_that_is_gone_is_an_error(users):
    game = start_game(users)
    state = GameState.objects.get(game=game)
    GameState.objects.filter(pk=state.pk).delete()
    with pytest.raises(DatabaseError):
        compiled_save(state, ["totals", "updated_at"])


def test_each_insert_writes_its_own_row_and_a_duplicate_is_refused(users):
    from django.db import IntegrityError

    from games.models import IdempotencyRecord
    from games.services.compiled import compiled_insert

    for key, status in (("a", 200), ("b", 422)):
        record = IdempotencyRecord(
            user=users["bob"],
            key=key,
            fingerprint="f" + key,
            response_status=status,
            response_body='{"x": 1}',
            response_headers={"ETag": key},
        )
        compiled_insert(record)
    stored = {r.key: r for r in IdempotencyRecord.objects.all()}
    assert stored["b"].response_status == 422 and stored["b"].response_headers == {"ETag": "b"}
    assert stored["a"].fingerprint == "fa" and stored["a"].response_body == '{"x": 1}'
    assert stored["a"].created_at is not None and stored["a"].user == users["bob"]
    with pytest.raises(IntegrityError), transaction.atomic():
        compiled_insert(IdempotencyRecord(user=users["bob"], key="a", fingerprint="x"))
