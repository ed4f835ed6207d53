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

    from games.fields import digest
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
    # Key and fingerprint are stored as their digests (games.fields.DigestField).
    stored = {r.key: r for r in IdempotencyRecord.objects.all()}
    a, b = stored[digest("a")], stored[digest("b")]
    assert b.response_status == 422 and b.response_headers == {"ETag": "b"}
    assert a.fingerprint == digest("fa") and a.response_body == '{"x": 1}'
    assert a.created_at is not None and a.user == users["bob"]
    with pytest.raises(IntegrityError), transaction.atomic():
        compiled_insert(IdempotencyRecord(user=users["bob"], key="a", fingerprint="x"))


def test_each_bulk_insert_writes_its_rows_and_sets_their_keys(users):
    from games.models import Move
    from games.services.compiled import compiled_bulk_insert

    game = start_game(users)
    now = timezone.now()
    for first, count in ((100, 2), (200, 2), (300, 1)):
        moves = [
            Move(game=game, seq=first + n, hand=1, seat=n, action={"type": "draw", "n": first + n})
            for n in range(count)
        ]
        with transaction.atomic():
            written = compiled_bulk_insert(moves)
        assert written == moves and None not in [m.pk for m in moves]
        stored = Move.objects.in_bulk([m.pk for m in moves])
        assert [stored[m.pk].action["n"] for m in moves] == [first + n for n in range(count)]
        assert all(stored[m.pk].created_at >= now for m in moves)
        assert all(not m._state.adding for m in moves)


def test_each_update_writes_its_own_values_to_its_own_rows(users):
    from games.services.compiled import compiled_update

    first, second, third = start_game(users), start_game(users), start_game(users)
    when = timezone.now() + timedelta(hours=2)
    for game, seat, deadline in ((first, 2, when), (second, 3, None), (first, 1, None)):
        updated = compiled_update(
            Game, where={"pk": game.pk}, fields={"turn_seat": seat, "deadline": deadline}
        )
        stored = Game.objects.get(pk=game.pk)
        assert updated == 1 and (stored.turn_seat, stored.deadline) == (seat, deadline)
    assert Game.objects.get(pk=third.pk).turn_seat == third.turn_seat
    # A list and a condition that matches nothing.
    assert (
        compiled_update(Game, where={"pk__in": [second.pk, third.pk]}, fields={"turn_seat": 0}) == 2
    )
    assert (
        compiled_update(
            Game, where={"pk": first.pk, "version": first.version + 99}, fields={"turn_seat": 0}
        )
        == 0
    )
    assert [g.turn_seat for g in Game.objects.filter(pk__in=[second.pk, third.pk])] == [0, 0]
    assert Game.objects.get(pk=first.pk).turn_seat == 1
