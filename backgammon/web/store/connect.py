"""Opening a database: SQLite (a path or ``sqlite:///`` URL, in WAL mode, a writer taking
its lock at once) or PostgreSQL through psycopg 3, and what a database that fails raises."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import StaticPool

__all__ = [
    "STORAGE_FAILURES",
    "StoreError",
    "begin_immediate",
    "database_path",
    "database_url",
    "make_engine",
]


class StoreError(RuntimeError):
    """The database cannot be opened or written."""


def _storage_failures() -> tuple[type[Exception], ...]:
    failures: list[type[Exception]] = [StoreError, sa.exc.DBAPIError, sqlite3.Error]
    with contextlib.suppress(ImportError):
        import psycopg

        failures.append(psycopg.Error)
    return tuple(failures)


STORAGE_FAILURES = _storage_failures()
"""What a database that is down, gone or read-only raises, through SQLAlchemy or the raw
driver connections the store also uses: the web answers them 503."""


def database_path(database: str) -> str:
    """The SQLite file of ``database``: a path, ``:memory:`` or a ``sqlite:///`` URL."""
    if database == ":memory:" or "://" not in database:
        return database
    url = urlparse(database)
    if url.scheme != "sqlite":
        raise StoreError(f"not an SQLite database (sqlite:///path): {database!r}")
    # sqlite:///relative.db -> "relative.db"; sqlite:////abs/path.db -> "/abs/path.db"
    path = unquote(url.path)
    path = path[1:] if path.startswith("/") else path
    if not path:
        raise StoreError(f"no file in database URL {database!r}")
    return path


def database_url(database: str) -> str:
    """The SQLAlchemy URL of ``database``: an SQLite path or URL, or ``postgresql://...``
    (served by psycopg 3)."""
    scheme = urlparse(database).scheme if "://" in database else ""
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        return "postgresql+psycopg://" + database.split("://", 1)[1]
    if scheme not in ("", "sqlite"):
        raise StoreError(
            f"unknown database {database!r}: use a file, sqlite:///path or postgresql://..."
        )
    return "sqlite:///" + database_path(database)


def make_engine(url: str) -> Engine:
    """The SQLAlchemy engine of ``url`` (see :func:`database_url`)."""
    if url.startswith("postgresql"):
        return sa.create_engine(url, pool_size=8, max_overflow=24, pool_pre_ping=True)
    memory = url == "sqlite:///:memory:"
    if not memory:
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": 30},
        **({"poolclass": StaticPool} if memory else {"pool_size": 8, "max_overflow": 24}),
    )

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi: Any, _record: Any) -> None:
        dbapi.isolation_level = None  # SQLAlchemy's BEGIN below, not the driver's
        dbapi.execute("PRAGMA journal_mode=WAL")
        dbapi.execute("PRAGMA synchronous=FULL")

    @sa.event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # A writer takes the lock at once, so two writers never both read then write.
        if not conn.get_execution_options().get("write"):
            conn.exec_driver_sql("BEGIN")
            return
        begin_immediate(conn.connection.dbapi_connection)

    return engine


def begin_immediate(dbapi: Any, patience: float = 30.0) -> None:
    """``BEGIN IMMEDIATE``, asked again every 0.2 ms while another process writes: SQLite's
    own wait sleeps 1, 2, 5, 10... ms between tries, so a writer of one process waited up to
    hundreds of ms behind a busy one of another."""
    deadline = time.monotonic() + patience
    dbapi.execute("PRAGMA busy_timeout = 0")
    try:
        while True:
            try:
                dbapi.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
            time.sleep(0.0002)
    finally:
        dbapi.execute("PRAGMA busy_timeout = 30000")
