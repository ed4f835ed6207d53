"""The Django internals games/services/compiled.py relies on, one assumption each: an upgrade of
Django that changes one fails here, by name, before a move fails (docs/move-path-speed.md)."""

from __future__ import annotations

import inspect

import django
from django.db.models import QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators

from games.models import Game, Seat
from games.services.common import game_lock
from games.services.compiled import prefetched_set


def test_the_django_version_the_internals_were_checked_against() -> None:
    # compiled.py was written against Django 5.2: on an upgrade, check each assumption below
    # against the new release's django.db.models.query module, then move this pin.
    assert django.VERSION[:2] == (5, 2)


def test_a_queryset_names_its_iterable_class() -> None:
    assert Seat.objects.all()._iterable_class is ModelIterable
    assert Seat.objects.values_list("id")._iterable_class is ValuesListIterable


def test_get_related_populators_takes_klass_info_select_and_db() -> None:
    assert list(inspect.signature(get_related_populators).parameters) == [
        "klass_info",
        "select",
        "db",
    ]


def test_the_prefetch_cache_is_a_result_cache_and_a_done_flag() -> None:
    queryset = Seat.objects.all()
    assert hasattr(queryset, "_result_cache") and hasattr(queryset, "_prefetch_done")
    assert isinstance(queryset, QuerySet)


def test_the_locked_games_seats_need_no_query(django_assert_num_queries, game: Game) -> None:
    locked = game_lock(game_id=game.pk)
    with django_assert_num_queries(0):
        seats = list(locked.seats.all())
    assert len(seats) == game.players
    again = Game.objects.get(pk=game.pk)
    prefetched_set(again, "seats", seats)
    with django_assert_num_queries(0):
        assert list(again.seats.all()) == seats


def test_an_insert_compiler_returns_the_keys_it_is_asked_for(db) -> None:
    # compiled_bulk_insert sets `returning_fields` on the compiler, as
    # SQLInsertCompiler.execute_sql does for bulk_create, and reads the drawn keys back.
    from django.db import connection
    from django.db.models.sql import InsertQuery

    from games.models import Move

    fields = [f for f in Move._meta.local_concrete_fields if not f.primary_key]
    query = InsertQuery(Move)
    query.insert_values(fields, [Move(seq=1, hand=1, seat=0, action={}), Move()])
    compiler = query.get_compiler(connection.alias)
    assert compiler.returning_fields is None
    compiler.returning_fields = [Move._meta.pk]
    [(sql, params)] = compiler.as_sql()
    assert "RETURNING" in sql
    # Row after row, or one array per column (PostgreSQL's UNNEST for several rows).
    assert len(params) == (len(fields) if "UNNEST" in sql else 2 * len(fields))


def test_an_update_query_takes_values_by_field_name() -> None:
    # compiled_update builds its statement as QuerySet.update does.
    from django.db.models.sql import UpdateQuery

    query = Game.objects.filter(pk=None).query.chain(UpdateQuery)
    query.add_update_values({"turn_seat": 1})
    assert [field.name for field, _, _ in query.values] == ["turn_seat"]
