"""The move path's statements, compiled once per process and database.

Building the SQL of the locked game with its seats (games.services.common.game_lock: seven
tables joined, EXISTS annotations) costs Django about ten times what running it costs
(docs/move-path-speed.md); so do the recipients' lock (clients.services.events) and the token
lookup (clients.services.tokens). A statement's text never changes, only its parameters (the
game, the moment absences are judged at, the users, the key's hash), so it is compiled once
per database (alias) and shape, and each call runs the same text with its own parameters and
turns the rows into model objects exactly as a queryset would (the compiler's converters,
from_db, the select_related populators, the annotations), or into the tuples of a
values_list. The move's UPDATEs and the stored answer's INSERT are compiled the same way
(compiled_save, compiled_insert), and so are the move's multi-row INSERTs (moves, feed events,
outbox rows: compiled_bulk_insert) and the email path's conditional UPDATEs (the outbox claims
and the row marked sent: compiled_update; issue 25, docs/benchmarks.md "CPU of a turn").

This module is the one place that uses Django's internals (`QuerySet._iterable_class`,
`get_related_populators`, the compiler's converters, the prefetch cache of `prefetched_set`):
the public API has no way to run a compiled statement again. They are Django 5.2's;
tests/games/test_django_internals.py pins each assumption, so an upgrade that changes one fails
there first, by name. The public alternative (a fresh queryset per move) costs about ten times
the statement itself (docs/move-path-speed.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar, cast
from uuid import UUID

from django.db import DatabaseError, connections, router
from django.db.models import Field, Model, Q, QuerySet
from django.db.models.query import ValuesListIterable, get_related_populators
from django.db.models.sql import InsertQuery, UpdateQuery

# Stand-ins for the parameters while compiling: found again in the compiled parameters by
# value, then replaced by each call's own.
SENTINEL_ID = UUID(int=0x5EA7)
SENTINEL_NOW = datetime(2000, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
SENTINEL_TEXT = "compiled-statement-sentinel-5ea7"


def sentinel_ints(count: int) -> list[int]:
    """``count`` distinct integers no real row or parameter uses, for integer parameters."""
    return [-0x5EA7_0000 - index for index in range(count)]


@dataclass
class Compiled:
    sql: str
    params: list[Any]
    slots: dict[int, str]  # parameter index -> the name of the value that goes there
    make: Callable[[list[tuple[Any, ...]]], list[Any]]
    # An INSERT of several rows: parameters row after row ("rows"), or one array per column
    # ("columns": PostgreSQL's INSERT ... SELECT * FROM UNNEST(...), as Django builds it).
    layout: str = "rows"


# Per database alias, not per connection object: the web process serves each request in a
# thread of its own under ASGI (canasta_site/asgi.py), with a connection object of its own, so
# a cache per connection would compile everything again on every request. The text depends
# only on the database's backend; a compiled shape is never changed once stored, so threads
# may share it.
_CACHE: dict[str, dict[str, Compiled]] = {}


def _maker(
    queryset: QuerySet[Any], compiler: Any, db: str, shared: tuple[str, ...] = ()
) -> Callable[..., list[Any]]:
    """Rows to model objects, as django.db.models.query.ModelIterable does; for a
    values_list, the converted rows as tuples (in the statement's column order).

    ``shared``: select_related relations (of the queried model) that are the same row on every
    row, such as the game of a game's seats: built once, from the first row (its columns are
    neither converted nor turned into objects again), and set on every object. A row whose
    shared row differs (by primary key) is built in full."""
    if queryset._iterable_class is ValuesListIterable:
        return _tuples_maker(compiler)
    select, klass_info = compiler.select, compiler.klass_info
    annotations = dict(compiler.annotation_col_map or {})
    model = klass_info["model"]
    first, last = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
    init_list = [column[0].target.attname for column in select[first:last]]
    # Django 5.2's signature; the stubs follow Django 6, which added `fetch_mode`.
    populators = get_related_populators(klass_info, select, db)  # type: ignore[call-arg]
    fields = [column[0] for column in select[0 : compiler.col_count]]
    converters = compiler.get_converters(fields)
    related = list(zip(klass_info.get("related_klass_infos", []), populators, strict=True))
    once = [
        (info, populator)
        for info, populator in related
        if info["field"].name in shared and populator.reorder_for_init is None
    ]
    every = [populator for info, populator in related if (info, populator) not in once]
    once_columns = set().union(*(_columns(info) for info, _ in once))
    later_converters = {i: c for i, c in converters.items() if i not in once_columns}
    once_keys = [info["select_fields"][populator.pk_idx] for info, populator in once]

    def convert(rows: list[Any], chosen: dict[int, Any]) -> list[Any]:
        return list(compiler.apply_converters(rows, chosen)) if chosen else list(rows)

    def make(rows: list[tuple[Any, ...]]) -> list[Model]:
        if not rows:
            return []
        head = rows[0]
        alike = all(row[key] == head[key] for row in rows for key in once_keys)
        if not once or not alike:
            return [build(row, populators) for row in convert(rows, converters)]
        objects = [build(convert([head], converters)[0], populators)]
        values = [info["field"].get_cached_value(objects[0]) for info, _ in once]
        for row in convert(rows[1:], later_converters):
            obj = build(row, every)
            for (_, populator), value in zip(once, values, strict=True):
                populator.local_setter(obj, value)
            objects.append(obj)
        return objects

    def build(row: Any, chosen: list[Any]) -> Model:
        obj = model.from_db(db, init_list, row[first:last])
        for populator in chosen:
            populator.populate(row, obj)
        for name, position in annotations.items():
            setattr(obj, name, row[position])
        return obj

    return make


def prefetched_set(obj: Model, name: str, rows: list[Any]) -> None:
    """Leave ``obj`` as prefetch_related(``name``) would: ``obj.<name>.all()`` answers ``rows``
    without a query (Django's prefetch cache)."""
    prefetched = getattr(obj, name).all()
    prefetched._result_cache = rows
    prefetched._prefetch_done = True
    obj._prefetched_objects_cache = {name: prefetched}  # type: ignore[attr-defined]


def _columns(klass_info: dict[str, Any]) -> set[int]:
    """The select columns of a select_related relation and of those below it."""
    columns = set(klass_info["select_fields"])
    for child in klass_info.get("related_klass_infos", []):
        columns |= _columns(child)
    return columns


def _tuples_maker(compiler: Any) -> Callable[..., list[Any]]:
    fields = [column[0] for column in compiler.select[0 : compiler.col_count]]
    converters = compiler.get_converters(fields)

    def make(rows: list[tuple[Any, ...]]) -> list[Any]:
        if converters:
            rows = list(compiler.apply_converters(rows, converters))
        return [tuple(row) for row in rows]

    return make


_M = TypeVar("_M", bound=Model)


def compiled_run(
    *,
    shape: str,
    model: type[_M],
    build: Callable[[], QuerySet[_M]],
    values: dict[str, tuple[Any, Any, Any]],
    shared: tuple[str, ...] = (),
) -> list[_M]:
    """Run the queryset ``build()`` makes, compiled once per database for ``shape``.

    ``build`` makes the queryset with sentinels (SENTINEL_ID, SENTINEL_NOW, SENTINEL_TEXT,
    sentinel_ints) where the parameters go; ``values`` maps a name to (the sentinel, this
    call's value, the model field whose database form both take). ``shared``: relations that
    are one row for all rows, built once (_maker). Must run in a transaction when the queryset
    locks (as compiling it would require)."""
    # The compiled shape builds instances of the model `build` queries.
    return cast("list[_M]", _run(shape, model, build, values, shared))


def compiled_rows(
    *,
    shape: str,
    model: type[Model],
    build: Callable[[], QuerySet[Any]],
    values: dict[str, tuple[Any, Any, Any]],
) -> list[tuple[Any, ...]]:
    """compiled_run for a ``values_list`` queryset of ``model``: its rows as tuples."""
    return cast("list[tuple[Any, ...]]", _run(shape, model, build, values))


def _run(
    shape: str,
    model: type[Model],
    build: Callable[[], QuerySet[Any]],
    values: dict[str, tuple[Any, Any, Any]],
    shared: tuple[str, ...] = (),
) -> list[Any]:
    db = router.db_for_write(model)
    connection = connections[db]
    per_database = _CACHE.setdefault(db, {})
    compiled = per_database.get(shape)
    if compiled is None:
        compiled = _compile(shape, build(), db, values, shared)
        per_database[shape] = compiled
    params = list(compiled.params)
    for index, name in compiled.slots.items():
        _, value, field = values[name]
        params[index] = _prepared(field, value, connection)
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, params)
        rows = cursor.fetchall()
    return compiled.make(rows)


def _compile(
    shape: str,
    queryset: QuerySet[Any],
    db: str,
    values: dict[str, tuple[Any, Any, Any]],
    shared: tuple[str, ...],
) -> Compiled:
    connection = connections[db]
    compiler = queryset.query.get_compiler(using=db)
    sql, params = compiler.as_sql()
    slots = {
        index: name
        for index, param in enumerate(params)
        for name, (sentinel, _, field) in values.items()
        if param == _prepared(field, sentinel, connection)
    }
    if sorted(set(slots.values())) != sorted(values):
        raise RuntimeError(f"{shape}: a parameter was not found in the compiled statement")
    return Compiled(sql, list(params), slots, _maker(queryset, compiler, db, shared))


def _prepared(field: Any, value: Any, connection: Any) -> Any:
    """``value`` as ``field`` sends it to the database (what compiling puts in the params)."""
    return field.get_db_prep_value(field.to_python(value), connection, prepared=False)


def compiled_save(obj: Model, fields: Sequence[str]) -> None:
    """``obj.save(update_fields=fields)``, its UPDATE compiled once per database and shape
    (the model and the fields): what save does for a model without parents or save signals
    (none on the move path's models): each field's pre_save (auto_now), its database form,
    one UPDATE by primary key, an error when no row was updated."""
    model = type(obj)
    db = router.db_for_write(model)
    connection = connections[db]
    per_database = _CACHE.setdefault(db, {})
    targets = [cast("Field[Any, Any]", model._meta.get_field(name)) for name in fields]
    values = [field.pre_save(obj, False) for field in targets]
    prepared = [
        field.get_db_prep_save(value, connection)
        for field, value in zip(targets, values, strict=True)
    ]
    # Django writes `= NULL` for a None, without a parameter: a shape per set of Nones.
    nulls = "".join("0" if value is None else "1" for value in prepared)
    shape = f"save:{model._meta.label}:{','.join(fields)}:{nulls}"
    params = [value for value in prepared if value is not None]
    params.append(model._meta.pk.get_db_prep_value(obj.pk, connection))
    compiled = per_database.get(shape)
    if compiled is None:
        compiled = _compile_update(
            shape, model, db, list(zip(targets, values, strict=True)), obj.pk, params
        )
        per_database[shape] = compiled
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, params)
        if cursor.rowcount != 1:
            raise DatabaseError("Save with update_fields did not affect any rows.")


def _compile_update(
    shape: str,
    model: type[Model],
    db: str,
    values: list[tuple[Any, Any]],
    pk: Any,
    params: list[Any],
) -> Compiled:
    """The UPDATE Django builds for these values, checked to take exactly ``params``."""
    query = UpdateQuery(model)
    query.add_update_fields([(field, None, value) for field, value in values])
    query.add_q(Q(pk=pk))
    sql, compiled_params = query.get_compiler(db).as_sql()
    if len(compiled_params) != len(params) or any(
        type(a) is not type(b) for a, b in zip(compiled_params, params, strict=True)
    ):
        raise RuntimeError(f"{shape}: the compiled UPDATE takes other parameters")
    return Compiled(sql, [], {}, lambda rows: rows)


def compiled_insert(obj: Model) -> None:
    """``obj.save(force_insert=True)`` for a new row whose primary key the database draws and
    the caller does not need back: its INSERT compiled once per database and model (each
    field's pre_save, e.g. auto_now_add, and database form, as save does)."""
    model = type(obj)
    db = router.db_for_write(model)
    connection = connections[db]
    per_database = _CACHE.setdefault(db, {})
    fields = [field for field in model._meta.local_concrete_fields if not field.primary_key]
    params = [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]
    shape = f"insert:{model._meta.label}"
    compiled = per_database.get(shape)
    if compiled is None:
        query = InsertQuery(model)
        query.insert_values(fields, [obj])
        [(sql, compiled_params)] = query.get_compiler(db).as_sql()
        if len(compiled_params) != len(params):
            raise RuntimeError(f"{shape}: the compiled INSERT takes other parameters")
        compiled = Compiled(sql, [], {}, lambda rows: rows)
        per_database[shape] = compiled
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, params)


def compiled_bulk_insert(objs: Sequence[_M]) -> list[_M]:
    """``Model.objects.bulk_create(objs)`` for new rows of one model whose primary key the
    database draws (an auto field), its INSERT compiled once per database, model and number
    of rows: each field's pre_save (auto_now_add) and database form, as bulk_create computes
    them, and the drawn keys set on the objects where the database returns them (RETURNING:
    PostgreSQL, SQLite 3.35+), as bulk_create does. For the move path's rows (moves, feed
    events, outbox rows): no parents, no signals, nothing already saved."""
    if not objs:
        return []
    model = type(objs[0])
    db = router.db_for_write(model)
    connection = connections[db]
    pk = model._meta.pk
    if any(type(obj) is not model or obj.pk is not None for obj in objs):
        raise ValueError("compiled_bulk_insert: new rows of one model, keys drawn by the database")
    fields = [field for field in model._meta.local_concrete_fields if field is not pk]
    rows = [
        [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]
        for obj in objs
    ]
    returning = bool(connection.features.can_return_rows_from_bulk_insert)
    shape = f"bulk-insert:{model._meta.label}:{len(objs)}"
    per_database = _CACHE.setdefault(db, {})
    compiled = per_database.get(shape)
    if compiled is None:
        query = InsertQuery(model)
        query.insert_values(fields, list(objs))
        compiler = query.get_compiler(db)
        # What bulk_create asks for (SQLInsertCompiler.execute_sql sets it the same way).
        compiler.returning_fields = [pk] if returning else None
        [(sql, compiled_params)] = compiler.as_sql()
        if len(compiled_params) == len(fields) * len(objs):
            layout = "rows"
        elif len(objs) > 1 and len(compiled_params) == len(fields) and "UNNEST" in sql:
            layout = "columns"
        else:
            raise RuntimeError(f"{shape}: the compiled INSERT takes other parameters")
        compiled = Compiled(sql, [], {}, lambda rows: rows, layout)
        per_database[shape] = compiled
    if compiled.layout == "rows":
        params: list[Any] = [value for row in rows for value in row]
    else:
        params = [list(column) for column in zip(*rows, strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, params)
        keys = [row[0] for row in cursor.fetchall()] if returning else [None] * len(objs)
    for obj, key in zip(objs, keys, strict=True):
        obj.pk = key
        obj._state.adding = False
        obj._state.db = db
    return list(objs)


def _stand_in(field: Any, index: int) -> Any:
    """A value of ``field``'s type that no real row or parameter uses, distinct per index."""
    internal = field.target_field.get_internal_type() if field.is_relation else None
    kind = internal or field.get_internal_type()
    if kind in ("DateTimeField",):
        return SENTINEL_NOW + timedelta(microseconds=index)
    if kind in ("UUIDField",):
        return UUID(int=0x5EA7_0000 + index)
    if kind in ("CharField", "TextField"):
        return f"{SENTINEL_TEXT}-{index}"
    if kind == "JSONField":
        return {"compiled-stand-in": index}
    if "Integer" in kind or "AutoField" in kind:
        # Near the top of the field's range: Django compiles a lookup with a value outside
        # the range (a negative one for a positive field) as an empty or a full result.
        top = connections[router.db_for_write(field.model)].ops.integer_field_range(kind)[1]
        return (top or 2**31 - 1) - 1000 - index
    raise TypeError(f"compiled_update: no stand-in for a {kind}")


def compiled_update(model: type[Model], *, where: dict[str, Any], fields: dict[str, Any]) -> int:
    """``model.objects.filter(**where).update(**fields)``, its UPDATE compiled once per
    database and shape; returns the rows updated. ``where``: lookups of the model's own
    fields (``pk``, ``attempts__lt``, ``status__in`` with a list); ``fields``: plain values (None writes NULL, a shape of its
    own) or expressions without parameters of their own to fill (``F("attempts") + 1``: part
    of the shape, compiled as they are). For the email path's UPDATEs, built for every email."""
    db = router.db_for_write(model)
    connection = connections[db]
    per_database = _CACHE.setdefault(db, {})
    values: dict[str, tuple[Any, Any, Any]] = {}
    where_stand_ins: dict[str, Any] = {}
    for name, value in where.items():
        own = name.split("__")[0]
        field = model._meta.pk if own == "pk" else model._meta.get_field(own)
        if name.endswith("__in"):
            stand_ins = [_stand_in(field, len(values) + i) for i in range(len(value))]
            for i, (stand_in, item) in enumerate(zip(stand_ins, value, strict=True)):
                values[f"{name}{i}"] = (stand_in, item, field)
            where_stand_ins[name] = stand_ins
        else:
            where_stand_ins[name] = _stand_in(field, len(values))
            values[name] = (where_stand_ins[name], value, field)
    set_stand_ins: dict[str, Any] = {}
    for name, value in fields.items():
        if value is None or hasattr(value, "resolve_expression"):
            set_stand_ins[name] = value
            continue
        field = model._meta.get_field(name)
        set_stand_ins[name] = _stand_in(field, len(values))
        values[f"set:{name}"] = (set_stand_ins[name], value, field)
    shape = "update:{}:{}:{}".format(
        model._meta.label,
        ",".join(f"{name}{len(v) if name.endswith('__in') else ''}" for name, v in where.items()),
        ",".join(
            f"{name}={value if value is None or hasattr(value, 'resolve_expression') else ''}"
            for name, value in fields.items()
        ),
    )
    compiled = per_database.get(shape)
    if compiled is None:
        query = cast(
            "UpdateQuery", model._base_manager.filter(**where_stand_ins).query.chain(UpdateQuery)
        )
        query.add_update_values(set_stand_ins)
        compiled = _compiled_statement(shape, query.get_compiler(db), connection, values)
        per_database[shape] = compiled
    params = list(compiled.params)
    for index, name in compiled.slots.items():
        _, value, field = values[name]
        params[index] = _prepared(field, value, connection)
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, params)
        return int(cursor.rowcount)


def _comparable(param: Any) -> Any:
    """A parameter as it compares: psycopg wraps JSON in an adapter (Jsonb) that compares by
    identity, so its value stands for it."""
    if type(param).__name__ in ("Json", "Jsonb") and hasattr(param, "obj"):
        return ("json", repr(param.obj))
    return param


def _compiled_statement(
    shape: str, compiler: Any, connection: Any, values: dict[str, tuple[Any, Any, Any]]
) -> Compiled:
    """The compiler's statement, with the index of each of ``values``' stand-ins in its
    parameters (each found exactly once)."""
    sql, params = compiler.as_sql()
    slots: dict[int, str] = {}
    for name, (stand_in, _, field) in values.items():
        wanted = _comparable(_prepared(field, stand_in, connection))
        found = [i for i, param in enumerate(params) if _comparable(param) == wanted]
        if len(found) != 1:
            raise RuntimeError(f"{shape}: parameter {name} found {len(found)} times")
        slots[found[0]] = name
    return Compiled(sql, list(params), slots, lambda rows: rows)
