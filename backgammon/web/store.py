"""SQLite storage of web matches: one row per match, one row per accepted action.

An action is appended in its own transaction, and the caller acknowledges it only after
the commit, so a match can always be rebuilt by replaying its stored actions (after a crash
too).  The ``(match_id, seq)`` primary key refuses a second action with the same number.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

__all__ = ["MatchRow", "Store", "StoreError", "database_path", "hash_token"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id          TEXT PRIMARY KEY,
    created     REAL NOT NULL,
    length      INTEGER NOT NULL,
    bot         TEXT,
    bot_seat    INTEGER,
    token0      TEXT NOT NULL,
    token1      TEXT NOT NULL,
    seed        TEXT NOT NULL,
    commitment  TEXT NOT NULL,
    names       TEXT NOT NULL,
    over        INTEGER NOT NULL DEFAULT 0,
    options     TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS actions (
    match_id    TEXT NOT NULL REFERENCES matches(id),
    seq         INTEGER NOT NULL,
    seat        INTEGER,
    action      TEXT NOT NULL,
    created     REAL NOT NULL,
    PRIMARY KEY (match_id, seq)
);
"""


class StoreError(RuntimeError):
    """The database cannot be opened or written."""


def database_path(database: str) -> str:
    """The SQLite file of ``database``: a path, ``:memory:`` or a ``sqlite:///`` URL."""
    if database == ":memory:" or "://" not in database:
        return database
    url = urlparse(database)
    if url.scheme != "sqlite":
        raise StoreError(f"only SQLite databases are supported (sqlite:///path), not {database!r}")
    # sqlite:///relative.db -> "relative.db"; sqlite:////abs/path.db -> "/abs/path.db"
    path = unquote(url.path)
    path = path[1:] if path.startswith("/") else path
    if not path:
        raise StoreError(f"no file in database URL {database!r}")
    return path


def hash_token(token: str) -> str:
    """What is stored of a seat token: its SHA-256 (the token itself is never stored)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class MatchRow:
    """The fixed facts of a stored match."""

    id: str
    created: float
    length: int
    bot: str | None
    bot_seat: int | None
    token_hashes: tuple[str, str]
    seed: str
    commitment: str
    names: tuple[str, str]
    jacoby: bool = False
    beavers: bool = False
    public: bool = False
    rematch_of: str | None = None

    def options(self) -> dict[str, Any]:
        """The optional facts, stored as one JSON column (money rules, lobby, rematch)."""
        return {
            "jacoby": self.jacoby,
            "beavers": self.beavers,
            "public": self.public,
            "rematch_of": self.rematch_of,
        }


class Store:
    """A SQLite file holding matches and their actions (thread-safe, one connection)."""

    def __init__(self, database: str) -> None:
        path = database_path(database)
        try:
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            columns = [r[1] for r in self._db.execute("PRAGMA table_info(matches)")]
            if "options" not in columns:  # a database made before the column existed
                self._db.execute(
                    "ALTER TABLE matches ADD COLUMN options TEXT NOT NULL DEFAULT '{}'"
                )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open database {database!r}: {exc}") from exc
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def create_match(self, row: MatchRow) -> None:
        """Store a new match."""
        with self._lock:
            self._db.execute(
                "INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                (
                    row.id,
                    row.created,
                    row.length,
                    row.bot,
                    row.bot_seat,
                    *row.token_hashes,
                    row.seed,
                    row.commitment,
                    json.dumps(list(row.names)),
                    json.dumps(row.options()),
                ),
            )

    def get_match(self, match_id: str) -> MatchRow | None:
        """The stored match, or None."""
        with self._lock:
            r = self._db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        if r is None:
            return None
        names = json.loads(r[9])
        options = json.loads(r[11])
        return MatchRow(
            r[0], r[1], r[2], r[3], r[4], (r[5], r[6]), r[7], r[8], tuple(names), **options
        )

    def claim_seat(self, match_id: str, token_hash: str) -> bool:
        """Give seat 1 of a public invitation to ``token_hash``; False if already taken."""
        with self._lock:
            cur = self._db.execute(
                "UPDATE matches SET token1 = ? WHERE id = ? AND token1 = ''",
                (token_hash, match_id),
            )
        return cur.rowcount == 1

    def open_invitations(self, limit: int = 50) -> list[MatchRow]:
        """Public invitations whose seat 1 is still free, newest first."""
        with self._lock:
            ids = self._db.execute(
                "SELECT id FROM matches WHERE over = 0 AND bot IS NULL AND token1 = '' "
                "AND json_extract(options, '$.public') ORDER BY created DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [row for (i,) in ids if (row := self.get_match(i)) is not None]

    def rematch_of(self, match_id: str) -> str | None:
        """The id of the rematch made of ``match_id``, if one was made."""
        with self._lock:
            r = self._db.execute(
                "SELECT id FROM matches WHERE json_extract(options, '$.rematch_of') = ?",
                (match_id,),
            ).fetchone()
        return None if r is None else str(r[0])

    def match_ids(self, *, unfinished_bot_matches: bool = False) -> list[str]:
        """Every stored match (or only the unfinished ones against a bot), oldest first."""
        where = " WHERE over = 0 AND bot IS NOT NULL" if unfinished_bot_matches else ""
        with self._lock:
            rows = self._db.execute(f"SELECT id FROM matches{where} ORDER BY created").fetchall()
        return [r[0] for r in rows]

    def actions(self, match_id: str) -> list[tuple[int | None, dict[str, Any]]]:
        """The stored actions of a match in order: (seat or None for the server, action)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seat, action FROM actions WHERE match_id = ? ORDER BY seq", (match_id,)
            ).fetchall()
        return [(r[0], json.loads(r[1])) for r in rows]

    def append(
        self,
        match_id: str,
        seq: int,
        seat: int | None,
        action: dict[str, Any],
        *,
        over: bool = False,
    ) -> None:
        """Store action number ``seq`` in one committed transaction (raises if it exists);
        ``over`` marks the match finished in the same transaction."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute(
                    "INSERT INTO actions VALUES (?, ?, ?, ?, ?)",
                    (match_id, seq, seat, json.dumps(action, sort_keys=True), time.time()),
                )
                if over:
                    self._db.execute("UPDATE matches SET over = 1 WHERE id = ?", (match_id,))
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreError(f"cannot store action {seq} of match {match_id}: {exc}") from exc
