"""PostgreSQL timestamps read by psycopg's C loader instead of Django's Python one.

Django 5.2 reads every `timestamptz` column through `BaseTzLoader`, a subclass of psycopg's
pure-Python `TimestamptzLoader` (Django's postgresql backend, module psycopg_any): the C loader of
psycopg[binary] cannot be subclassed, so every datetime a query returns is parsed in Python
(about 4.5 µs each on this machine, against 1.2 µs here). A move reads about 36 of them (the
locked game, its seats, their users and preferences), an email about 20: issue 25's profile
(docs/benchmarks.md, "CPU of a turn") put them at 3% of a request.

`UtcTimestampLoader` calls the C loader and then does what Django's does: it sets the
connection's time zone (`connection.timezone`, UTC for this site) as the value's tzinfo. It
carries Django's `timezone` attribute, which `DatabaseWrapper.create_cursor` compares before
it registers its own loader on a cursor, so Django keeps this one wherever the time zones
agree and puts its own back where they do not.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from psycopg.adapt import Loader

try:  # psycopg[binary] (requirements.txt); without its C part Django's loader stays.
    from psycopg_binary import _psycopg

    C_LOADER: Any = getattr(_psycopg, "TimestamptzLoader")  # noqa: B009 (untyped C module)
except ImportError:  # pragma: no cover - psycopg installed without its binary part
    C_LOADER = None

TIMESTAMPTZ = "timestamptz"


def _loader_for(zone: tzinfo | None) -> type[Any]:
    class UtcTimestampLoader(Loader):
        # What Django's create_cursor compares with the connection's (psycopg_any.BaseTzLoader).
        timezone = zone

        def __init__(self, oid: int, context: Any = None) -> None:
            super().__init__(oid, context)
            self._parse = C_LOADER(oid, context).load

        def load(self, data: Any) -> Any:
            return self._parse(data).replace(tzinfo=self.timezone)

    return UtcTimestampLoader


_LOADERS: dict[tzinfo | None, type[Any]] = {}


def timestamps_loader_install(sender: Any, connection: Any, **kwargs: Any) -> None:
    """connection_created: the C-backed loader on a new PostgreSQL connection."""
    if C_LOADER is None or connection.vendor != "postgresql":
        return
    zone = connection.timezone
    loader = _LOADERS.get(zone)
    if loader is None:
        loader = _LOADERS[zone] = _loader_for(zone)
    connection.connection.adapters.register_loader(TIMESTAMPTZ, loader)
