"""The benchmarks' own PostgreSQL database, dropped and created afresh (bench/storage.py,
sweep.py, turn.py, scale.py). No side effect on import: the benchmarks configure Django first."""

from __future__ import annotations

import urllib.parse

import psycopg


def postgres_database_recreate(url: str) -> None:
    """Drop and create the database `url` names; refuses the server's own databases."""
    parts = urllib.parse.urlsplit(url)
    name = parts.path.lstrip("/")
    if name in ("", "postgres", "template0", "template1"):
        raise SystemExit(f"BENCH_DATABASE_URL must name a database of its own, not {name!r}")
    admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
