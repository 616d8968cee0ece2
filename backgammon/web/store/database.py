"""Storage of web matches, in SQLite (the embedded default) or PostgreSQL: one row per
match, one row per accepted action, through SQLAlchemy Core (one code path for both).

An action is appended in a transaction that holds the match's row lock (PostgreSQL
``SELECT ... FOR UPDATE``; SQLite's ``BEGIN IMMEDIATE`` locks the whole file), so actions of
one match are serialised by the database even across server processes and machines.  The
caller acknowledges an action only after the commit, so a match can always be rebuilt by
replaying its stored actions (after a crash too).  The ``(match_id, seq)`` primary key
refuses a second action with the same number.  A match's optional facts (money rules, a
public invitation, the match it is a rematch of) are one JSON column, ``options``; seats,
rematches and names given by the web endpoints are written under the same lock.  On
PostgreSQL every commit also sends ``NOTIFY backgammon_actions, '<match id> <actions>'`` so
every server process hears of it.  Match files sent to be analysed (``uploads``) are kept
with their analysis, apart from the matches.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.sql.compiler import SQLCompiler

from backgammon.web.store.connect import (
    STORAGE_FAILURES,
    StoreError,
    begin_immediate,
    database_path,
    database_url,
    make_engine,
)
from backgammon.web.store.migrations import migrate

__all__ = [
    "CHANNEL",
    "STORAGE_FAILURES",
    "Locked",
    "MatchRow",
    "Store",
    "StoreError",
    "UploadRow",
    "database_path",
    "database_url",
    "hash_token",
]

CHANNEL = "backgammon_actions"
"""The PostgreSQL LISTEN/NOTIFY channel; the payload is the match id and its number of
actions, e.g. ``'Xa3d 17'``."""

_meta = sa.MetaData()
_matches = sa.Table(
    "matches",
    _meta,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("length", sa.Integer, nullable=False),
    sa.Column("bot", sa.Text),
    sa.Column("bot_seat", sa.Integer),
    sa.Column("token0", sa.Text, nullable=False),
    sa.Column("token1", sa.Text, nullable=False),
    sa.Column("seed", sa.Text, nullable=False),
    sa.Column("commitment", sa.Text, nullable=False),
    sa.Column("names", sa.Text, nullable=False),
    sa.Column("over", sa.Integer, nullable=False, server_default="0"),
    # When the bot became due to act (None: it is not): the sweep finds stalled bots by it.
    sa.Column("bot_since", sa.Float),
    # MatchRow.options(): money rules, lobby, rematch (JSON text on SQLite, json on PostgreSQL).
    sa.Column("options", sa.JSON, nullable=False, server_default=sa.text("'{}'")),
    # When the server must next look at it: a clock runs out, an invitation expires...
    sa.Column("due", sa.Float),
)
_actions = sa.Table(
    "actions",
    _meta,
    sa.Column("match_id", sa.Text, sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("seat", sa.Integer),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)


_analyses = sa.Table(
    "analyses",
    _meta,
    sa.Column("match_id", sa.Text, sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False),  # the number of actions it covers
    sa.Column("analysis", sa.Text, nullable=False),  # JSON, as ``backgammon analyse`` writes
    sa.Column("created", sa.Float, nullable=False),
)


_uploads = sa.Table(
    "uploads",
    _meta,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("name", sa.Text, nullable=False),  # the file's name as sent
    sa.Column("text", sa.Text, nullable=False),  # the match file itself
    sa.Column("plies", sa.Integer, nullable=False),
    sa.Column("analysis", sa.Text),  # JSON once analysed
    sa.Column("error", sa.Text),  # why the analysis failed
    sa.Column("verify", sa.Text),  # the mark from which decisions are rolled out again
    sa.Column("started", sa.Float),  # when a process last said it is analysing it
)


@dataclass(frozen=True)
class UploadRow:
    """A match file sent to be analysed, and its analysis (JSON) or error once finished."""

    id: str
    created: float
    name: str
    text: str
    plies: int
    analysis: str | None = None
    error: str | None = None
    verify: str | None = None
    started: float | None = None


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
    rated: bool = False
    invited: str | None = None  # the only account that may join (a rated invitation)
    arrived: bool = True  # whether seat 1 has come (a friend's seat opened once)
    clock: tuple[int, int] | None = None  # (delay, reserve) in seconds; None: untimed
    dated: bool = True  # False: made before clocks, its idleness unknown (never closed as left)

    def options(self) -> dict[str, Any]:
        """The optional facts, stored as one JSON column (money rules, lobby, rematch,
        rating, the invited account, the friend's arrival, the clock: none in a match made
        before clocks, which stays undated)."""
        options: dict[str, Any] = {
            "jacoby": self.jacoby,
            "beavers": self.beavers,
            "public": self.public,
            "rematch_of": self.rematch_of,
            "rated": self.rated,
            "invited": self.invited,
            "arrived": self.arrived,
        }
        if self.dated:
            options["clock"] = None if self.clock is None else list(self.clock)
        return options


StoredAction = tuple[int | None, dict[str, Any]]
"""A stored action: (seat or None for the server, the action)."""


class Locked:
    """One match inside a transaction that holds its lock: read its actions, append one."""

    def __init__(self, store: Store, conn: Connection, match_id: str) -> None:
        self._store, self._conn, self.match_id = store, conn, match_id

    def actions(self, since: int = 0) -> list[StoredAction]:
        """The stored actions from number ``since`` on, in order."""
        return self._store._actions(self._conn, self.match_id, since)

    def row(self) -> MatchRow:
        """The match as stored now (its seat tokens included)."""
        row = _row_of(self._conn, self.match_id)
        if row is None:
            raise StoreError(f"there is no match {self.match_id!r}")
        return row

    @property
    def conn(self) -> Connection:
        """The transaction's connection (for the accounts' rows written under the lock)."""
        return self._conn

    def claim_seat(self, token_hash: str) -> bool:
        """Give the free seat 1 (a public invitation's) to ``token_hash``; False if taken."""
        return _claim(self._conn, self.match_id, token_hash)

    def set_token(self, seat: int, token_hash: str) -> MatchRow:
        """Make ``token_hash`` the only token of ``seat`` (the old one no longer holds it)."""
        column = "token0" if seat == 0 else "token1"
        self._conn.execute(
            _matches.update().where(_matches.c.id == self.match_id).values({column: token_hash})
        )
        return self.row()

    def set_due(self, due: float | None) -> None:
        """When the server must look at the match next (None: never)."""
        self._conn.execute(_matches.update().where(_matches.c.id == self.match_id).values(due=due))

    def set_options(self, **changes: Any) -> MatchRow:
        """Change optional facts of the match (e.g. ``arrived=True``); returns the row."""
        row = dataclasses.replace(self.row(), **changes)
        self._conn.execute(
            _matches.update().where(_matches.c.id == self.match_id).values(options=row.options())
        )
        return row

    def rematch(self, new: MatchRow, due: float | None = None) -> MatchRow:
        """The rematch of this match: the one made already, or ``new``, stored now (to be
        looked at again by ``due``)."""
        made = _rematch_id(self._conn, self.match_id)
        if made is not None:
            row = _row_of(self._conn, made)
            if row is not None:
                return row
        _insert(self._conn, new, due)
        return new

    def append(
        self,
        seq: int,
        seat: int | None,
        action: dict[str, Any],
        *,
        over: bool = False,
        bot_due: bool = False,
        due: float | None = None,
    ) -> None:
        """Store action number ``seq``; ``over`` marks the match finished, ``bot_due`` says
        the bot is to act next, ``due`` when the server must look at the match next."""
        cursor = self._conn.connection.cursor()
        _append(
            cursor, self._store.append_sql, self.match_id, seq, seat, action, over, bot_due, due
        )


class Store:
    """A database holding matches and their actions (thread-safe: a pool of connections)."""

    def __init__(self, database: str) -> None:
        self.url = database_url(database)
        self.is_postgresql = self.url.startswith("postgresql")
        try:
            self.engine = make_engine(self.url)
            append = [_APPEND_NOTIFY] if self.is_postgresql else _APPEND
            self.append_sql = _compile(self.engine, append)
            with self.engine.begin() as conn:
                if self.is_postgresql:  # several processes may start at once
                    conn.execute(sa.select(sa.func.pg_advisory_xact_lock(0x6267)))
                migrate(conn)  # the schema is made and upgraded by the migrations
        except (OSError, sa.exc.SQLAlchemyError) as exc:
            raise StoreError(f"cannot open database {database!r}: {exc}") from exc

    @property
    def dsn(self) -> str:
        """The libpq connection string (PostgreSQL), for a LISTEN connection."""
        return self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

    def close(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    @contextmanager
    def transaction(self, what: str, *, write: bool = False) -> Iterator[Connection]:
        try:
            with self.engine.connect() as conn:
                conn.execution_options(write=write)
                with conn.begin():
                    yield conn
        except (sa.exc.SQLAlchemyError, self.engine.dialect.loaded_dbapi.Error) as exc:
            raise StoreError(f"cannot {what}: {exc}") from exc

    @contextmanager
    def locked(self, match_id: str) -> Iterator[Locked]:
        """A transaction holding ``match_id``'s lock, committed when the block ends (rolled
        back if it raises)."""
        with self.transaction(f"store an action of match {match_id}", write=True) as conn:
            conn.execute(
                sa.select(_matches.c.id).where(_matches.c.id == match_id).with_for_update()
            )
            yield Locked(self, conn, match_id)

    def create_match(
        self,
        row: MatchRow,
        then: Callable[[Connection], None] | None = None,
        due: float | None = None,
    ) -> None:
        """Store a new match (and what ``then`` writes, in the same transaction), to be
        looked at again by ``due``."""
        with self.transaction(f"create match {row.id}", write=True) as conn:
            _insert(conn, row, due)
            if then is not None:
                then(conn)

    def get_match(self, match_id: str) -> MatchRow | None:
        """The stored match, or None."""
        with self.transaction(f"read match {match_id}") as conn:
            return _row_of(conn, match_id)

    def claim_seat(self, match_id: str, token_hash: str) -> bool:
        """Give seat 1 of a public invitation to ``token_hash``; False if already taken."""
        with self.transaction(f"claim a seat of match {match_id}", write=True) as conn:
            return _claim(conn, match_id, token_hash)

    def open_invitations(self, limit: int = 50, since: float = 0.0) -> list[MatchRow]:
        """Public and rated invitations made after ``since`` whose seat 1 is still free,
        newest first."""
        m = _matches.c
        query = (
            sa.select(_matches)
            .where(m.over == 0, m.bot.is_(None), m.token1 == "", m.created > since)
            .where(sa.or_(m.options["public"].as_boolean(), m.options["rated"].as_boolean()))
            .order_by(m.created.desc())
            .limit(limit)
        )
        with self.transaction("list invitations") as conn:
            return [_match_row(r) for r in conn.execute(query).mappings()]

    def rematch_of(self, match_id: str) -> str | None:
        """The id of the rematch made of ``match_id``, if one was made."""
        with self.transaction(f"read match {match_id}") as conn:
            return _rematch_id(conn, match_id)

    def match_ids(
        self,
        *,
        unfinished_bot_matches: bool = False,
        bot_due_before: float | None = None,
        finished_rated: bool = False,
        due_before: float | None = None,
    ) -> list[str]:
        """Every stored match, oldest first; or only the unfinished ones against a bot; or
        those whose bot has been due to act since before ``bot_due_before``; or the
        finished rated ones; or the unfinished ones due a look before ``due_before``."""
        m = _matches.c
        query = sa.select(m.id).order_by(m.created)
        if unfinished_bot_matches:
            query = query.where(m.over == 0, m.bot.is_not(None))
        if due_before is not None:
            query = query.where(m.over == 0, m.due < due_before)
        if finished_rated:
            query = query.where(m.over == 1, m.options["rated"].as_boolean())
        if bot_due_before is not None:
            query = query.where(m.over == 0, m.bot_since < bot_due_before)
        with self.transaction("list matches") as conn:
            return [r[0] for r in conn.execute(query)]

    def save_analysis(self, match_id: str, seq: int, analysis: str) -> None:
        """Keep the analysis of ``match_id``'s first ``seq`` actions (replacing an older one)."""
        with self.transaction(f"store the analysis of match {match_id}", write=True) as conn:
            conn.execute(sa.delete(_analyses).where(_analyses.c.match_id == match_id))
            conn.execute(
                sa.insert(_analyses).values(
                    match_id=match_id, seq=seq, analysis=analysis, created=time.time()
                )
            )

    def analysis(self, match_id: str) -> str | None:
        """The stored analysis of ``match_id`` (JSON text), or None."""
        query = sa.select(_analyses.c.analysis).where(_analyses.c.match_id == match_id)
        with self.transaction(f"read the analysis of match {match_id}") as conn:
            row = conn.execute(query).first()
        return None if row is None else str(row[0])

    def create_upload(self, row: UploadRow) -> None:
        """Keep an uploaded match file (to be analysed)."""
        keys = ("id", "created", "name", "text", "plies", "verify", "started")
        values = {k: getattr(row, k) for k in keys}
        with self.transaction(f"store the upload {row.id}", write=True) as conn:
            conn.execute(sa.insert(_uploads).values(**values))

    def upload(self, upload_id: str) -> UploadRow | None:
        """The uploaded file ``upload_id`` and its analysis or error, or None."""
        query = sa.select(_uploads).where(_uploads.c.id == upload_id)
        with self.transaction(f"read the upload {upload_id}") as conn:
            r = conn.execute(query).mappings().first()
        return None if r is None else UploadRow(**dict(r))

    def claim_upload(self, upload_id: str, now: float, stale: float) -> bool:
        """Take the unfinished upload ``upload_id`` to analyse it, unless another process
        said it was analysing it less than ``stale`` seconds ago; True if taken."""
        u = _uploads.c
        query = (
            sa.update(_uploads)
            .where(u.id == upload_id, u.analysis.is_(None), u.error.is_(None))
            .where(sa.or_(u.started.is_(None), u.started < now - stale))
            .values(started=now)
        )
        with self.transaction(f"claim the upload {upload_id}", write=True) as conn:
            return bool(conn.execute(query).rowcount == 1)

    def still_analysing(self, upload_ids: Sequence[str], now: float) -> None:
        """Say that this process is still analysing ``upload_ids``."""
        query = sa.update(_uploads).where(_uploads.c.id.in_(list(upload_ids)))
        with self.transaction("say which uploads are being analysed", write=True) as conn:
            conn.execute(query.values(started=now))

    def finish_upload(self, upload_id: str, analysis: str | None, error: str | None) -> None:
        """Keep the analysis (JSON) of an upload, or why it failed."""
        with self.transaction(f"store the analysis of upload {upload_id}", write=True) as conn:
            conn.execute(
                sa.update(_uploads)
                .where(_uploads.c.id == upload_id)
                .values(analysis=analysis, error=error)
            )

    def counts(self, match_ids: Sequence[str]) -> dict[str, int]:
        """The number of stored actions of each of ``match_ids`` (those with any)."""
        a = _actions.c
        query = (
            sa.select(a.match_id, sa.func.count())
            .where(a.match_id.in_(list(match_ids)))
            .group_by(a.match_id)
        )
        with self.transaction("count actions") as conn:
            return {r[0]: int(r[1]) for r in conn.execute(query)}

    def actions(self, match_id: str, since: int = 0) -> list[StoredAction]:
        """The stored actions of a match from number ``since`` on, in order."""
        with self.transaction(f"read match {match_id}") as conn:
            return self._actions(conn, match_id, since)

    def _actions(self, conn: Connection, match_id: str, since: int) -> list[StoredAction]:
        a = _actions.c
        rows = conn.execute(
            sa.select(a.seat, a.action)
            .where(a.match_id == match_id, a.seq >= since)
            .order_by(a.seq)
        )
        return [(r[0], json.loads(r[1])) for r in rows]

    def append_next(
        self,
        match_id: str,
        seq: int,
        seat: int | None,
        action: dict[str, Any],
        *,
        over: bool = False,
        bot_due: bool = False,
        due: float | None = None,
    ) -> bool:
        """Store action number ``seq`` unless the match has one already: False then (the
        caller's picture of the match is stale), and nothing is written.  Made for the
        usual case of an up-to-date caller: no lock to take first, since the ``(match_id,
        seq)`` key lets one action of each number in, and the statements (compiled once) go
        straight to the driver."""
        dbapi = self.engine.dialect.loaded_dbapi
        what = f"cannot store an action of match {match_id}"
        try:
            raw = self.engine.raw_connection()
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(f"{what}: {exc}") from exc
        conn: Any = raw.dbapi_connection
        try:
            if self.is_postgresql:  # one statement, its own transaction: no BEGIN, no COMMIT
                conn.autocommit = True
            else:
                begin_immediate(conn)
            _append(raw.cursor(), self.append_sql, match_id, seq, seat, action, over, bot_due, due)
            if not self.is_postgresql:
                raw.commit()
        except dbapi.IntegrityError:
            raw.rollback()
            return False
        except dbapi.Error as exc:
            with contextlib.suppress(dbapi.Error):
                raw.rollback()
            raise StoreError(f"{what}: {exc}") from exc
        finally:
            if self.is_postgresql:
                with contextlib.suppress(dbapi.Error):
                    conn.autocommit = False
            raw.close()
        return True

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
        if not self.append_next(match_id, seq, seat, action, over=over):
            raise StoreError(f"match {match_id} has an action number {seq} already")


_APPEND = (
    _actions.insert().values(
        match_id=sa.bindparam("match"),
        seq=sa.bindparam("seq"),
        seat=sa.bindparam("seat"),
        action=sa.bindparam("action"),
        created=sa.bindparam("now"),
    ),
    _matches.update()
    .where(_matches.c.id == sa.bindparam("match"))
    .values(
        over=sa.bindparam("over"), bot_since=sa.bindparam("bot_since"), due=sa.bindparam("due")
    ),
)
"""What storing an action writes: the action, and the match's state (as one transaction)."""
_APPEND_NOTIFY = sa.select(
    sa.func.pg_notify(sa.bindparam("channel"), sa.bindparam("payload"))
).add_cte(_APPEND[0].cte("stored"), _APPEND[1].cte("marked"))
"""PostgreSQL's way: the same writes and a NOTIFY to every process in one statement (one
round trip instead of three, and :meth:`Store.append_next` needs no BEGIN or COMMIT)."""

_Compiled = list[tuple[str, list[str] | None]]


def _compile(engine: Engine, statements: Sequence[sa.ClauseElement]) -> _Compiled:
    """SQL text in the driver's parameter style, with the order of its parameters if they
    are positional: the statements an action runs, compiled once rather than every time."""
    out: _Compiled = []
    for statement in statements:
        compiled = cast(SQLCompiler, statement.compile(dialect=engine.dialect))
        out.append(
            (str(compiled), list(compiled.positiontup or []) if compiled.positional else None)
        )
    return out


def _append(
    cursor: Any,
    compiled: _Compiled,
    match_id: str,
    seq: int,
    seat: int | None,
    action: dict[str, Any],
    over: bool,
    bot_due: bool,
    due: float | None = None,
) -> None:
    """Store action ``seq`` with the driver's ``cursor`` (in a transaction it holds)."""
    now = time.time()
    values = {
        "match": match_id,
        "seq": seq,
        "seat": seat,
        "action": json.dumps(action, sort_keys=True),
        "now": now,
        "over": int(over),
        "bot_since": now if bot_due else None,
        "due": due,
        "channel": CHANNEL,
        "payload": f"{match_id} {seq + 1}",
    }
    for sql, order in compiled:
        cursor.execute(sql, values if order is None else [values[k] for k in order])


def _insert(conn: Connection, row: MatchRow, due: float | None = None) -> None:
    conn.execute(
        _matches.insert().values(
            id=row.id,
            created=row.created,
            length=row.length,
            bot=row.bot,
            bot_seat=row.bot_seat,
            token0=row.token_hashes[0],
            token1=row.token_hashes[1],
            seed=row.seed,
            commitment=row.commitment,
            names=json.dumps(list(row.names)),
            over=0,
            options=row.options(),
            due=due,
        )
    )


def _row_of(conn: Connection, match_id: str) -> MatchRow | None:
    r = conn.execute(sa.select(_matches).where(_matches.c.id == match_id)).mappings().first()
    return None if r is None else _match_row(r)


def _match_row(r: sa.RowMapping) -> MatchRow:
    names = json.loads(r["names"])
    options = r["options"] or {}
    return MatchRow(
        r["id"],
        r["created"],
        r["length"],
        r["bot"],
        r["bot_seat"],
        (r["token0"], r["token1"]),
        r["seed"],
        r["commitment"],
        (names[0], names[1]),
        jacoby=bool(options.get("jacoby", False)),
        beavers=bool(options.get("beavers", False)),
        public=bool(options.get("public", False)),
        rematch_of=options.get("rematch_of"),
        rated=bool(options.get("rated", False)),
        invited=options.get("invited"),
        arrived=bool(options.get("arrived", True)),
        clock=None if not options.get("clock") else (options["clock"][0], options["clock"][1]),
        dated="clock" in options,
    )


def _claim(conn: Connection, match_id: str, token_hash: str) -> bool:
    m = _matches.c
    done = conn.execute(
        _matches.update().where(m.id == match_id, m.token1 == "").values(token1=token_hash)
    )
    return done.rowcount == 1


def _rematch_id(conn: Connection, match_id: str) -> str | None:
    m = _matches.c
    query = sa.select(m.id).where(m.options["rematch_of"].as_string() == match_id).limit(1)
    found = conn.execute(query).first()
    return None if found is None else str(found[0])
