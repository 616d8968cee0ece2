"""Players' accounts in the match store: sign-up and passwords (argon2id hashes), login
sessions, ratings moved by the FIBS formula once per rated match, who holds which seat,
who is online, and the chat of a match.

The tables are made by the migrations (revision 0002); this module reads and writes them
through the store's transactions, so every change is committed before it is answered.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

import argon2
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from backgammon.web.errors import ApiError, skeleton
from backgammon.web.store.database import Store, StoreError, hash_token
from backgammon.web.store.ratings import ESTABLISHED, PAIR_PER_DAY, START, fibs_change

__all__ = [
    "CHAT_LINES",
    "ONLINE",
    "Accounts",
    "ChatLine",
    "Player",
    "hash_password",
    "verify_password",
]

_meta = sa.MetaData()
_players = sa.Table(
    "players",
    _meta,
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("key", sa.Text, nullable=False, unique=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("password", sa.Text),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("experience", sa.Integer, nullable=False),
    sa.Column("bot", sa.Text),
    sa.Column("skeleton", sa.Text),
    sa.Column("origin", sa.Text),
)
_sessions = sa.Table(
    "sessions",
    _meta,
    sa.Column("token", sa.Text, primary_key=True),
    sa.Column("player", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("seen", sa.Float, nullable=False),
)
_ratings = sa.Table(
    "ratings",
    _meta,
    sa.Column("match_id", sa.Text, primary_key=True),
    sa.Column("player", sa.Text, primary_key=True),
    sa.Column("opponent", sa.Text, nullable=False),
    sa.Column("won", sa.Integer, nullable=False),
    sa.Column("before", sa.Float, nullable=False),
    sa.Column("after", sa.Float, nullable=False),
    sa.Column("experience", sa.Integer, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("counted", sa.Integer, nullable=False),
)
_seats = sa.Table(
    "seats",
    _meta,
    sa.Column("match_id", sa.Text, primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("player", sa.Text, nullable=False),
)
_chat = sa.Table(
    "chat",
    _meta,
    sa.Column("match_id", sa.Text, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)
_matches = sa.table(
    "matches",
    sa.column("id"),
    sa.column("created"),
    sa.column("length"),
    sa.column("over"),
    sa.column("options", sa.JSON),
)
_analyses = sa.table("analyses", sa.column("match_id"), sa.column("analysis"))

ONLINE = 120.0
"""A player is online while a session of theirs was seen this many seconds ago or less."""
_TOUCH = 30.0
"""A session's last sight is written at most this often (not on every request)."""
SESSION_DAYS = 30
"""How long a login lasts."""
CHAT_LINES = 500
"""The most chat lines a match keeps (the chat is bounded)."""

_hasher = argon2.PasswordHasher()  # argon2id, 64 MiB, the library's recommended parameters
_DUMMY = _hasher.hash("an unused password")  # checked for an unknown name: the same time


def hash_password(password: str) -> str:
    """The hash kept of ``password`` (CPU and 64 MiB for a while: never on the writer)."""
    return _hasher.hash(password)


def verify_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made of (None: no account, checked
    against a dummy all the same, so the time does not tell names apart)."""
    try:
        return bool(_hasher.verify(stored or _DUMMY, password)) and stored is not None
    except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
        return False


@dataclass(frozen=True)
class Player:
    """A player's public facts."""

    name: str
    rating: float
    experience: int
    created: float
    bot: str | None

    def public(self) -> dict[str, Any]:
        """What anyone may see of the player."""
        return {
            "name": self.name,
            "rating": round(self.rating, 2),
            "experience": self.experience,
            "created": self.created,
            "bot": self.bot,
        }


@dataclass(frozen=True)
class ChatLine:
    """One line said at a match's table."""

    seq: int
    seat: int
    name: str
    text: str
    created: float


def _player(r: sa.RowMapping) -> Player:
    return Player(r["name"], r["rating"], r["experience"], r["created"], r["bot"])


class Accounts:
    """The players, sessions, ratings, seats and chat of one :class:`Store`."""

    def __init__(self, store: Store, bots: dict[str, str]) -> None:
        self.store = store
        self._touched: dict[str, float] = {}
        for bot, name in bots.items():  # bots are players too, with ratings
            self._ensure(name, bot)

    def _ensure(self, name: str, bot: str) -> None:
        with self.store.transaction("add the bots' players", write=True) as conn:
            p = _players.c
            if conn.execute(sa.select(p.name).where(p.key == name.casefold())).first():
                return
            conn.execute(
                sa.insert(_players).values(
                    name=name,
                    key=name.casefold(),
                    created=time.time(),
                    password=None,
                    rating=START,
                    experience=0,
                    bot=bot,
                    skeleton=skeleton(name),
                )
            )

    # ------------------------------------------------------------------ accounts
    def create(
        self, name: str, hashed: str, origin: str | None = None, per_day: int | None = None
    ) -> Player:
        """A new account with the password hash ``hashed`` (:func:`hash_password`; 409 if
        the name, in any case, is taken, or looks like one taken: its :func:`skeleton`);
        ``origin``: the address it comes from, which may make ``per_day`` (else 429)."""
        now = time.time()
        shape = skeleton(name)
        origin = None if origin is None else hash_token(origin)
        try:
            with self.store.transaction(f"create the account {name}", write=True) as conn:
                p = _players.c
                if origin is not None and per_day is not None:
                    recent = sa.select(sa.func.count()).where(
                        p.origin == origin, p.created > now - 86400
                    )
                    if conn.execute(recent).scalar_one() >= per_day:
                        raise ApiError(
                            429,
                            "too_many_sign_ups",
                            f"at most {per_day} accounts a day are made from one address",
                        )
                if self._find(conn, name) is not None:
                    raise ApiError(409, "name_taken", f"the name {name!r} is taken")
                like = conn.execute(
                    sa.select(_players.c.name).where(_players.c.skeleton == shape)
                ).first()
                if like is not None:
                    raise ApiError(
                        409, "name_taken", f"the name {name!r} looks like {str(like[0])!r}"
                    )
                conn.execute(
                    sa.insert(_players).values(
                        name=name,
                        key=name.casefold(),
                        created=now,
                        password=hashed,
                        rating=START,
                        experience=0,
                        bot=None,
                        skeleton=shape,
                        origin=origin,
                    )
                )
        except StoreError as exc:  # two sign-ups with one name at once: the key refuses one
            if isinstance(exc.__cause__, sa.exc.IntegrityError):
                raise ApiError(409, "name_taken", f"the name {name!r} is taken") from exc
            raise
        return Player(name, START, 0, now, None)

    @staticmethod
    def _find(conn: Connection, name: str) -> sa.RowMapping | None:
        p = _players.c
        return conn.execute(sa.select(_players).where(p.key == name.casefold())).mappings().first()

    def player(self, name: str) -> Player | None:
        """The player called ``name`` (in any case), or None."""
        with self.store.transaction(f"read the player {name}") as conn:
            r = self._find(conn, name)
        return None if r is None else _player(r)

    def ratings(self, names: list[str]) -> dict[str, float]:
        """The ratings of the players called ``names`` (exactly), rounded for showing."""
        p = _players.c
        query = sa.select(p.name, p.rating).where(p.name.in_(names))
        with self.store.transaction("read ratings") as conn:
            return {str(r[0]): round(float(r[1]), 2) for r in conn.execute(query)}

    def password_of(self, name: str) -> tuple[str, str] | None:
        """The account called ``name`` (in any case) and its password hash, or None (a bot,
        or no such account)."""
        with self.store.transaction(f"read the player {name}") as conn:
            r = self._find(conn, name)
        if r is None or not r["password"]:
            return None
        return str(r["name"]), str(r["password"])

    def set_password(self, name: str, hashed: str, keep_session: str) -> None:
        """Set ``name``'s password hash and end every other session of theirs."""
        with self.store.transaction(f"change the password of {name}", write=True) as conn:
            conn.execute(sa.update(_players).where(_players.c.name == name).values(password=hashed))
            s = _sessions.c
            conn.execute(
                sa.delete(_sessions).where(s.player == name, s.token != hash_token(keep_session))
            )

    # ------------------------------------------------------------------ sessions
    def open_session(self, name: str) -> str:
        """A new login of ``name``: the cookie's secret value (only its hash is stored)."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self.store.transaction(f"log {name} in", write=True) as conn:
            conn.execute(
                sa.insert(_sessions).values(
                    token=hash_token(token), player=name, created=now, seen=now
                )
            )
        return token

    def close_session(self, token: str) -> None:
        """Log out: the session is gone."""
        with self.store.transaction("log out", write=True) as conn:
            conn.execute(sa.delete(_sessions).where(_sessions.c.token == hash_token(token)))

    def session_player(self, token: str | None) -> str | None:
        """The player logged in by the session ``token``, or None; marks them seen (at most
        every half minute, so a request does not always write)."""
        if not token:
            return None
        digest = hash_token(token)
        s = _sessions.c
        with self.store.transaction("read a session") as conn:
            r = conn.execute(sa.select(s.player, s.created).where(s.token == digest)).first()
        if r is None or r[1] < time.time() - SESSION_DAYS * 86400:
            return None
        now = time.time()
        if now - self._touched.get(digest, 0.0) > _TOUCH:
            self._touched[digest] = now
            if len(self._touched) > 10000:
                self._touched.clear()
            with self.store.transaction("mark a session seen", write=True) as conn:
                conn.execute(sa.update(_sessions).where(s.token == digest).values(seen=now))
        return str(r[0])

    def online(self) -> list[str]:
        """The players seen in the last :data:`ONLINE` seconds, by name."""
        s = _sessions.c
        query = (
            sa.select(s.player).where(s.seen > time.time() - ONLINE).distinct().order_by(s.player)
        )
        with self.store.transaction("list who is online") as conn:
            return [str(r[0]) for r in conn.execute(query)]

    # ------------------------------------------------------------------ seats and ratings
    @staticmethod
    def add_seat(conn: Connection, match_id: str, seat: int, player: str) -> None:
        """Record in ``conn``'s transaction that ``player``'s account holds ``seat``."""
        conn.execute(sa.insert(_seats).values(match_id=match_id, seat=seat, player=player))

    @staticmethod
    def seat_holders(conn: Connection, match_id: str) -> dict[int, str]:
        """The accounts holding the seats of ``match_id`` (seat -> name)."""
        c = _seats.c
        rows = conn.execute(sa.select(c.seat, c.player).where(c.match_id == match_id))
        return {int(r[0]): str(r[1]) for r in rows}

    def holders(self, match_id: str) -> dict[int, str]:
        """:meth:`seat_holders` in a transaction of its own."""
        with self.store.transaction(f"read the seats of match {match_id}") as conn:
            return self.seat_holders(conn, match_id)

    def rated_seats(self, name: str) -> list[tuple[str, int]]:
        """The seats (match id, seat) ``name`` holds in rated matches not over."""
        s, m = _seats.c, _matches.c
        query = (
            sa.select(s.match_id, s.seat)
            .select_from(_seats.join(_matches, m.id == s.match_id))
            .where(s.player == name, m.over == 0, m.options["rated"].as_boolean())
        )
        with self.store.transaction(f"read the matches of {name}") as conn:
            return [(str(r[0]), int(r[1])) for r in conn.execute(query)]

    def playing_rated(self, name: str) -> bool:
        """Whether ``name`` holds a seat of a rated match in play (both seats held)."""
        s, m = _seats.c, _matches.c
        other = _seats.alias("other")
        query = (
            sa.select(s.match_id)
            .select_from(
                _seats.join(_matches, m.id == s.match_id).join(
                    other, sa.and_(other.c.match_id == s.match_id, other.c.seat != s.seat)
                )
            )
            .where(s.player == name, m.over == 0, m.options["rated"].as_boolean())
            .limit(1)
        )
        with self.store.transaction(f"read the matches of {name}") as conn:
            return conn.execute(query).first() is not None

    def settle(self, match_id: str, length: int, winner_seat: int) -> bool:
        """:meth:`settle_in` in a transaction of its own."""
        try:
            with self.store.transaction(f"rate match {match_id}", write=True) as conn:
                return self.settle_in(conn, match_id, length, winner_seat)
        except StoreError as exc:
            if isinstance(exc.__cause__, sa.exc.IntegrityError):
                return False  # another process rated it first
            raise

    def settle_in(self, conn: Connection, match_id: str, length: int, winner_seat: int) -> bool:
        """Move both ratings of the finished rated match ``match_id`` (won by
        ``winner_seat``) by the FIBS formula, in ``conn``'s transaction (the one that ends
        the match, so a match is never over and unrated), once: the players' rows are
        locked and a match already rated is left alone.  True if this call rated it."""
        holders = self.seat_holders(conn, match_id)
        if set(holders) != {0, 1}:
            return False
        p = _players.c
        names = sorted({holders[0], holders[1]})
        locked = conn.execute(
            sa.select(_players).where(p.name.in_(names)).order_by(p.name).with_for_update()
        ).mappings()
        rows = {r["name"]: r for r in locked}
        done = sa.select(_ratings.c.player).where(_ratings.c.match_id == match_id)
        if conn.execute(done).first() is not None or len(rows) != 2:
            return False
        win, lose = rows[holders[winner_seat]], rows[holders[1 - winner_seat]]
        change = fibs_change(
            win["rating"], lose["rating"], length, win["experience"], lose["experience"]
        )
        now = time.time()
        counts = self._counts(conn, win, lose, now)
        for r, after, exp, won, counted in (
            (win, change.winner_rating, change.winner_experience, 1, counts[0]),
            (lose, change.loser_rating, change.loser_experience, 0, counts[1]),
        ):
            other = lose["name"] if won else win["name"]
            if not counted:
                after, exp = r["rating"], r["experience"]
            conn.execute(
                sa.update(_players).where(p.name == r["name"]).values(rating=after, experience=exp)
            )
            conn.execute(
                sa.insert(_ratings).values(
                    match_id=match_id,
                    player=r["name"],
                    opponent=other,
                    won=won,
                    before=r["rating"],
                    after=after,
                    experience=exp,
                    created=now,
                    counted=int(counted),
                )
            )
        return True

    @staticmethod
    def _counts(
        conn: Connection, a: sa.RowMapping, b: sa.RowMapping, now: float
    ) -> tuple[bool, bool]:
        """Whether a match between the players ``a`` and ``b`` moves each one's rating:
        not beyond the pair's :data:`PAIR_PER_DAY` in 24 hours, and not an established
        rating against an account that is not (:data:`ESTABLISHED`)."""
        r = _ratings.c
        pair = conn.execute(
            sa.select(sa.func.count()).where(
                r.player == a["name"],
                r.opponent == b["name"],
                r.counted == 1,
                r.created > now - 86400,
            )
        ).scalar_one()
        if pair >= PAIR_PER_DAY:
            return False, False

        def established(player: sa.RowMapping) -> bool:
            if player["bot"] is not None:
                return True
            moved = sa.select(sa.func.count()).where(r.player == player["name"], r.counted == 1)
            return bool(conn.execute(moved).scalar_one() >= ESTABLISHED)

        ea, eb = established(a), established(b)
        return (not ea or eb), (not eb or ea)

    def unrated(self, match_ids: list[str]) -> list[str]:
        """Those of ``match_ids`` (finished rated matches) that no rating records."""
        r = _ratings.c
        query = sa.select(r.match_id).where(r.match_id.in_(match_ids)).distinct()
        with self.store.transaction("read which matches are rated") as conn:
            rated = {str(row[0]) for row in conn.execute(query)}
        return [m for m in match_ids if m not in rated]

    def history(self, name: str) -> list[dict[str, Any]]:
        """``name``'s rating changes, oldest first."""
        r = _ratings.c
        query = sa.select(_ratings).where(r.player == name).order_by(r.created, r.match_id)
        with self.store.transaction(f"read the ratings of {name}") as conn:
            return [
                {
                    "match": row["match_id"],
                    "opponent": row["opponent"],
                    "won": bool(row["won"]),
                    "before": round(row["before"], 2),
                    "after": round(row["after"], 2),
                    "experience": row["experience"],
                    "created": row["created"],
                }
                for row in conn.execute(query).mappings()
            ]

    def matches(self, name: str, limit: int = 100) -> list[dict[str, Any]]:
        """``name``'s matches, unfinished ones first, newest first within each, with who
        held the other seat and the analysis's PR where there is one."""
        s, m = _seats.c, _matches.c
        other = _seats.alias("other")
        query = (
            sa.select(m.id, m.created, m.length, m.over, s.seat, other.c.player)
            .select_from(
                _seats.join(_matches, m.id == s.match_id).outerjoin(
                    other, sa.and_(other.c.match_id == s.match_id, other.c.seat != s.seat)
                )
            )
            .where(s.player == name)
            .order_by(m.over, m.created.desc())
            .limit(limit)
        )
        a = _analyses.c
        with self.store.transaction(f"read the matches of {name}") as conn:
            rows = list(conn.execute(query))
            ids = [r[0] for r in rows]
            analyses = dict(
                conn.execute(sa.select(a.match_id, a.analysis).where(a.match_id.in_(ids))).all()
            )
        return [
            {
                "id": r[0],
                "created": r[1],
                "length": r[2],
                "over": bool(r[3]),
                "seat": r[4],
                "opponent": r[5],
                "pr": _pr(analyses.get(r[0]), int(r[4])),
            }
            for r in rows
        ]

    def leaderboard(self, limit: int = 50) -> list[Player]:
        """The highest rated players who have finished a rated match."""
        p = _players.c
        query = (
            sa.select(_players)
            .where(p.experience > 0)
            .order_by(p.rating.desc(), p.name)
            .limit(limit)
        )
        with self.store.transaction("read the leaderboard") as conn:
            return [_player(r) for r in conn.execute(query).mappings()]

    # ------------------------------------------------------------------ chat
    def say(self, match_id: str, seat: int, name: str, text: str) -> ChatLine:
        """Keep a line of the match's chat (409 once it holds :data:`CHAT_LINES`)."""
        c = _chat.c
        # Under the match's row lock: lines said at once (from any process) take their
        # numbers one after the other instead of colliding on the (match, seq) key.
        with self.store.locked(match_id) as match:
            conn = match.conn
            count = conn.execute(
                sa.select(sa.func.count()).where(c.match_id == match_id)
            ).scalar_one()
            if count >= CHAT_LINES:
                raise ApiError(409, "chat_full", "this match's chat is full")
            line = ChatLine(int(count), seat, name, text, time.time())
            conn.execute(
                sa.insert(_chat).values(
                    match_id=match_id,
                    seq=line.seq,
                    seat=seat,
                    name=name,
                    text=text,
                    created=line.created,
                )
            )
        return line

    def chat(self, match_id: str, since: int = 0) -> list[ChatLine]:
        """The match's chat from line ``since`` on."""
        c = _chat.c
        query = (
            sa.select(c.seq, c.seat, c.name, c.text, c.created)
            .where(c.match_id == match_id, c.seq >= since)
            .order_by(c.seq)
        )
        with self.store.transaction(f"read the chat of {match_id}") as conn:
            return [ChatLine(*r) for r in conn.execute(query)]


def _pr(analysis: str | None, seat: int) -> float | None:
    """The PR of ``seat`` in a stored analysis (JSON as ``backgammon analyse`` writes)."""
    if analysis is None:
        return None
    try:
        value = json.loads(analysis)["players"][seat]["overall"]["pr"]
    except (ValueError, AttributeError, IndexError, KeyError, TypeError):
        return None
    return float(value) if isinstance(value, int | float) else None
