"""The live server: the matches of one database in memory, every action committed under
the database's lock of its match, the bots' turns, and the pushes to the watchers.

Every rule is decided by :class:`backgammon.play.match.Match` (through :class:`Game`).  An
action is checked on a copy of the match, stored in one committed transaction, and only then
applied and acknowledged; a match in memory is always the replay of its stored actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from fastapi import WebSocket
from sqlalchemy.engine import Connection

from backgammon.core.values import clip
from backgammon.play.rules import RulesError
from backgammon.web.errors import ApiError
from backgammon.web.errors import body as error_body
from backgammon.web.schemas import NewMatch
from backgammon.web.service.bots import BotFailed, BotPool, bot_action
from backgammon.web.service.game import ActionError, Game, rules_of
from backgammon.web.service.live import (
    Live,
    bot_due,
    close_replaced,
    default_clock,
    pushed,
)
from backgammon.web.service.sockets import Outbox
from backgammon.web.store.accounts import Accounts
from backgammon.web.store.database import CHANNEL, Locked, MatchRow, Store, StoreError, hash_token

__all__ = ["Live", "Server", "pushed"]

_log = logging.getLogger("backgammon.web")
T = TypeVar("T")
MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a match id can be (``secrets.token_urlsafe`` makes them): anything else is no match."""


class Server:
    """The matches of one database, loaded lazily and cached; every action is stored
    under the database's lock of its match, so several processes may serve one database."""

    def __init__(
        self,
        store: Store,
        bots: BotPool,
        *,
        bot_stall: float = 15.0,
        keep: int = 100,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store, self.bots, self.bot_stall = store, bots, bot_stall
        self.now = clock
        """The time the clocks and invitations run on (seconds, as :func:`time.time`)."""
        self.live: dict[str, Live] = {}  # least recently loaded first
        self.keep = keep
        self._in_play = 0  # matches beyond ``keep`` the last look found still in play
        self.bot_jobs: dict[str, asyncio.Task[None]] = {}
        self._poked: set[str] = set()
        self._acting: dict[str, int] = {}  # match id -> this process's commits under way
        self._heard: dict[str, int] = {}  # match id -> actions heard of meanwhile
        self._tasks: set[asyncio.Task[None]] = set()
        self.closed = False
        self.accounts: Accounts | None = None
        """The accounts that rate a rated match in the transaction that ends it (committed
        with its last action or not at all)."""
        self.ended: Callable[[Live], object] | None = None
        """Called with each match an action of this process has just ended (its analysis
        is started, so the review is under way before anyone opens it)."""
        self._threads = ThreadPoolExecutor(16, thread_name_prefix="backgammon-db")
        # SQLite lets one writer in at a time and makes the others sleep and poll for the
        # lock: this process's writes queue on one thread instead (PostgreSQL takes many).
        self._writer = (
            self._threads
            if store.is_postgresql
            else ThreadPoolExecutor(1, thread_name_prefix="backgammon-write")
        )

    async def db(self, fn: Callable[..., T], *args: Any, write: bool = False) -> T:
        """``fn(*args)`` in a database thread (a lock wait or an fsync never blocks the loop)."""
        pool = self._writer if write else self._threads
        return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def close(self) -> None:
        """Stop the background tasks and the database threads."""
        self.closed = True
        for task in [*self._tasks, *self.bot_jobs.values()]:
            task.cancel()
        for live in self.live.values():
            for outbox in live.outboxes.values():
                outbox.finish()
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._writer.shutdown(wait=False, cancel_futures=True)

    async def load(self, match_id: str) -> Live:
        """The live match, rebuilt from the database by replaying its actions if needed."""
        live = self.live.pop(match_id, None)
        if live is None:
            row, game = await self.db(self._read, match_id)
            live = self.live.pop(match_id, None) or Live(row, game)  # loaded meanwhile?
        self.live[match_id] = live
        self._forget_idle()
        return live

    def _forget_idle(self) -> None:
        """Keep at most ``keep`` matches in memory besides those in play here (watched,
        acting, or the bot's turn), forgetting the least recently loaded: the database
        has them all, and a long-running server's memory (and the garbage collector's
        pauses, which grow with it) must not grow with every match it has ever served.
        When many are in play, it looks again only once as many more have been loaded, so
        a request's cost does not grow with them."""
        excess = len(self.live) - self.keep
        if excess <= 2 * self._in_play:
            return
        idle: list[str] = []
        for match_id, live in self.live.items():
            if len(idle) == excess:
                break
            if not (live.sockets or match_id in self.bot_jobs or match_id in self._acting):
                idle.append(match_id)
        for match_id in idle:
            del self.live[match_id]
        self._in_play = max(0, len(self.live) - self.keep)

    def _read(self, match_id: str) -> tuple[MatchRow, Game]:
        if not MATCH_ID.fullmatch(match_id):  # never sent to the database (a NUL, a page)
            raise ApiError(404, "no_such_match", f"there is no match {clip(match_id)!r}")
        row = self.store.get_match(match_id)
        if row is None:
            raise ApiError(404, "no_such_match", f"there is no match {match_id!r}")
        return row, Game.replay(row, [a for _seat, a in self.store.actions(match_id)])

    async def refresh(self, live: Live) -> Game:
        """The match with every action stored so far (by any process), ended first if its
        clock or its invitation has run out meanwhile."""
        game = live.game
        self.adopt(
            live, await self.db(lambda: game.extended(self.store.actions(live.row.id, game.seq)))
        )
        due = live.game.due(live.row)
        if due is not None and due < self.now():
            await self.expire(live)
        return live.game

    async def expire(self, live: Live, *, withdraw: bool = False) -> Game:
        """Store the server's action ending ``live``'s match if one is due now (a forfeit
        on time, an expired invitation, a match left by both players), or, ``withdraw``,
        the host's withdrawal of an invitation no one has joined (409 otherwise); a rated
        match lost on time is rated in the same transaction."""
        try:
            game = await self.db(self._expire, live.row.id, live.game, withdraw, write=True)
        except StoreError as exc:
            raise ApiError(503, "storage", str(exc)) from exc
        self.adopt(live, game)
        return live.game

    def _expire(self, match_id: str, known: Game, withdraw: bool) -> Game:
        now = self.now()
        with self.store.locked(match_id) as match:
            row = match.row()
            game = known.extended(match.actions(known.seq)).copy()
            if withdraw:
                if game.is_over or row.arrived:
                    raise ApiError(409, "joined", "only an invitation no one has joined")
                end: dict[str, Any] | None = {"action": "close", "reason": "withdrawn"}
            else:
                end = game.expiry(row, now)
            if end is not None:
                self._append(match, game, None, {**end, "at": now})
            else:  # a seat was taken meanwhile, say: when to look next
                match.set_due(game.due(row))
            return game

    def adopt(self, live: Live, game: Game) -> None:
        """Make ``game`` the live one if it is further on, and tell the watchers."""
        if game.seq > live.game.seq:
            live.game = game
            self._spawn(self.broadcast(live))

    async def rate_unrated(self) -> list[str]:
        """Rate every finished rated match that no rating records (ended by a release that
        rated after the commit, by a process that died in between): the job each process
        finishes at start-up.  Returns the ids it rated."""
        accounts = self.accounts
        if accounts is None:
            return []
        ids = await self.db(functools.partial(self.store.match_ids, finished_rated=True))
        done = []
        for match_id in await self.db(accounts.unrated, ids):
            if await self.db(self._rate_stored, match_id, write=True):
                done.append(match_id)
        return done

    def _rate_stored(self, match_id: str) -> bool:
        with self.store.locked(match_id) as match:
            row = match.row()
            game = Game.replay(row, [a for _seat, a in match.actions()])
            return self._rate(match, game)

    def _rate(self, match: Locked, game: Game) -> bool:
        """Rate ``game``'s match if it is a finished rated one, in ``match``'s transaction."""
        winner = game.winner
        if self.accounts is None or not game.row.rated or winner is None:
            return False
        return self.accounts.settle_in(match.conn, game.row.id, game.row.length, winner)

    def poke(self, match_id: str, actions: int | None = None) -> None:
        """Another process stored an action (the match has ``actions`` if known): watchers
        here are sent it (one read at a time)."""
        live = self.live.get(match_id)
        if live is None or not live.sockets or match_id in self._poked:
            return
        if actions is not None and live.game.seq >= actions:
            return  # this process made it, or has read it already
        if match_id in self._acting:
            # A commit of this process is under way: the news is most likely of it, and
            # heard before the commit returned; act() looks again once it has.
            self._heard[match_id] = max(self._heard.get(match_id, 0), actions or 1 << 30)
            return
        self._poked.add(match_id)

        async def catch_up() -> None:
            self._poked.discard(match_id)
            with contextlib.suppress(ApiError, StoreError):
                await self.refresh(live)

        self._spawn(catch_up())

    def attach(self, live: Live, ws: WebSocket, seat: int | None, *, chatty: bool = False) -> Live:
        """Make ``ws`` a watcher of ``live``'s match, in the match kept in memory (``live``
        itself unless it was forgotten while the socket was opened); returns that match."""
        kept = self.live.setdefault(live.row.id, live)
        kept.sockets[ws] = seat
        kept.outboxes[ws] = Outbox(ws, lambda: self.detach(kept, ws))
        if chatty:
            kept.chatty.add(ws)
        if not self._tell_presence(kept) and chatty:  # unchanged: only the newcomer is told
            kept.send(ws, json.dumps(kept.told))
        return kept

    def _tell_presence(self, live: Live) -> bool:
        """Tell the chatty sockets the presence if it changed (a spectator coming or going
        changes nothing, so n sockets cost n messages, not n squared); True if it did."""
        now = live.presence()
        if now == live.told:
            return False
        live.told = now
        self._spawn(self.send_chatty(live, now))
        return True

    def detach(self, live: Live, ws: WebSocket) -> None:
        """``ws`` has closed: the others are told who is still there."""
        live.chatty.discard(ws)
        live.sockets.pop(ws, None)
        outbox = live.outboxes.pop(ws, None)
        if outbox is not None:
            outbox.finish()
        self._tell_presence(live)

    async def seat_of(self, live: Live, token: str | None) -> int | None:
        """The seat a token holds, None for a spectator; a wrong token is an error.  A
        public invitation's free seat may have been claimed through another process: its
        row is read again before a token is refused."""
        if not token:
            return None
        digest = hash_token(token)
        if live.row.rated and not live.game.is_over:
            # Another process may have given the seat a new token (a logout): read again.
            row = await self.db(self.store.get_match, live.row.id)
            if row is not None:
                live.row = row
        for _ in range(2):
            for seat, stored in enumerate(live.row.token_hashes):
                if secrets.compare_digest(digest, stored):
                    if seat == 1 and not live.row.arrived:
                        await self.arrive(live)
                    return seat
            if "" not in live.row.token_hashes:
                break
            row = await self.db(self.store.get_match, live.row.id)
            if row is not None:
                live.row = row
        raise ApiError(403, "bad_token", "this token does not hold a seat in this match")

    async def reseat(self, match_id: str, seat: int) -> str:
        """A new token for ``seat`` of ``match_id``, stored before it is answered: the old
        one (a cookie kept 90 days) holds the seat no more, and its sockets here close."""
        token = secrets.token_urlsafe(18)

        def store_it() -> MatchRow:
            with self.store.locked(match_id) as match:
                return match.set_token(seat, hash_token(token))

        try:
            row = await self.db(store_it, write=True)
        except StoreError as exc:
            raise ApiError(503, "storage", str(exc)) from exc
        live = self.live.get(match_id)
        if live is not None:
            live.row = row
            for ws, held in list(live.sockets.items()):
                if held == seat:
                    self._spawn(close_replaced(ws))
        return token

    async def arrive(self, live: Live) -> None:
        """Seat 1 has come to the match (its token was used): stored, and the host told."""
        with contextlib.suppress(StoreError):
            live.row = await self.db(self._arrive, live.row.id, write=True)
            live.views.clear()
            self._tell_presence(live)

    def _arrive(self, match_id: str) -> MatchRow:
        with self.store.locked(match_id) as match:
            return match.set_options(arrived=True)

    async def create(
        self,
        spec: NewMatch,
        *,
        host: str | None = None,
        then: Callable[[Connection, MatchRow], None] | None = None,
    ) -> tuple[MatchRow, list[str]]:
        """Store a new match (with what ``then`` writes, in the same transaction); returns
        it with the two seat tokens.  ``host``: the logged-in account creating it (its name
        at the table; a rated match against a human leaves seat 1 free to be joined)."""
        bots = self.bots.names
        if spec.opponent == "bot" and spec.bot not in bots:
            raise ApiError(422, "no_such_bot", f"unknown bot {spec.bot!r}; try {sorted(bots)}")
        tokens = [secrets.token_urlsafe(18), secrets.token_urlsafe(18)]
        seed = secrets.token_bytes(32)
        bot = spec.bot if spec.opponent == "bot" else None
        names = (host or spec.name, bots[spec.bot] if bot else "Friend")
        public = spec.public and bot is None  # seat 1 is claimed from the lobby
        joined = spec.rated and bot is None  # seat 1 is joined by a logged-in account
        row = MatchRow(
            id=secrets.token_urlsafe(8),
            created=self.now(),
            length=0 if spec.money else spec.length,
            bot=bot,
            bot_seat=1 if bot else None,
            token_hashes=(
                hash_token(tokens[0]),
                "" if public or joined else hash_token(tokens[1]),
            ),
            seed=seed.hex(),
            commitment=Game.commitment_of(seed),
            names=names,
            jacoby=spec.jacoby,
            beavers=spec.beavers,
            public=public,
            rated=spec.rated,
            invited=spec.invite if joined else None,
            arrived=bot is not None,
            clock=default_clock(spec),
        )
        try:
            rules_of(row)
        except RulesError as exc:
            raise ApiError(422, "bad_rules", str(exc)) from exc
        also = None if then is None else (lambda conn: then(conn, row))
        game = Game(row)
        await self.db(self.store.create_match, row, also, game.due(row), write=True)
        self.live[row.id] = Live(row, game)
        self._forget_idle()
        return row, tokens

    async def rematch(self, live: Live, seat: int) -> str:
        """The id of the rematch of ``live``'s finished match (made now if it was not yet):
        the same seats, tokens, names and rules; stored before it is answered."""
        if not (await self.refresh(live)).is_over:
            raise ApiError(409, "not_over", "the match is still being played")
        try:
            return await self.db(self._rematch, live.row.id, write=True)
        except StoreError as exc:
            raise ApiError(503, "storage", str(exc)) from exc

    def _rematch(self, match_id: str) -> str:
        seed = secrets.token_bytes(32)
        with self.store.locked(match_id) as match:  # two players' calls make one rematch
            old = match.row()
            names = Game.replay(old, [a for _seat, a in match.actions()]).names
            new = dataclasses.replace(
                old,
                id=secrets.token_urlsafe(8),
                created=self.now(),
                seed=seed.hex(),
                commitment=Game.commitment_of(seed),
                names=(names[0], names[1]),
                public=False,
                rematch_of=old.id,
                dated=True,
            )
            return match.rematch(new, Game(new).due(new)).id

    async def claim(
        self, live: Live, name: str, check: Callable[[Locked], None] | None = None
    ) -> str:
        """Give the free seat of ``live``'s public invitation (and its ``name``, if no one
        has rolled yet) to a new token, stored before it is answered; returns the token.
        ``check`` (a rated match's join) may refuse, or write more, under the match's lock."""
        token = secrets.token_urlsafe(18)
        if not (live.row.public or check is not None):
            raise ApiError(409, "seat_taken", "this invitation has been taken")
        try:
            row, game = await self.db(
                self._claim, live.row.id, live.game, hash_token(token), name, check, write=True
            )
        except StoreError as exc:
            raise ApiError(503, "storage", str(exc)) from exc
        live.row = row
        self.adopt(live, game)
        return token

    def _claim(
        self,
        match_id: str,
        known: Game,
        token_hash: str,
        name: str,
        check: Callable[[Locked], None] | None,
    ) -> tuple[MatchRow, Game]:
        with self.store.locked(match_id) as match:
            game = known.extended(match.actions(known.seq)).copy()
            if game.is_over:
                raise ApiError(409, "closed", "this invitation was withdrawn or has expired")
            if check is not None:
                check(match)
            if not match.claim_seat(token_hash):
                raise ApiError(409, "seat_taken", "this invitation has been taken")
            match.set_options(arrived=True)
            # The host may have rolled: the seat is still given, the name stays.
            with contextlib.suppress(ApiError):
                self._append(match, game, 1, {"action": "name", "name": name})
            return match.row(), game

    async def act(
        self, live: Live, seat: int | None, action: dict[str, Any], *, reply: bool = False
    ) -> Game:
        """Check and store one action of ``seat`` (under the database's lock of the match);
        returns the game as committed (``reply``: with ``seat``'s view of it made).  The
        bot's answer, if it is due, follows later."""
        if seat is None:
            raise ApiError(403, "spectator", "spectators cannot act: open your seat's link")
        if live.row.rated and action.get("action") == "name":
            raise ApiError(409, "rated", "in a rated match each seat is its account's name")
        action = {**action, "at": self.now()}
        self._acting[live.row.id] = self._acting.get(live.row.id, 0) + 1
        was_over = live.game.is_over
        try:
            # The watchers' views are made in the same thread, after the commit: the event
            # loop only sends them, and stays free for other requests meanwhile.
            seats = {*live.sockets.values(), *([seat] if reply else [])}
            try:
                game = await self.db(
                    self._commit_viewed, live, live.game, seat, action, seats, write=True
                )
            except StoreError as exc:
                raise ApiError(503, "storage", str(exc)) from exc
            except ApiError as exc:
                if exc.code == "out_of_time":
                    await self.expire(live)
                raise
            self.adopt(live, game)
            if self.ended is not None and game.is_over and not was_over:
                try:
                    self.ended(live)
                except Exception as exc:  # the match is over all the same: said, not raised
                    _log.warning("after match %s ended: %s", live.row.id, exc)
        finally:
            self._acted(live)
        if bot_due(live.row, game):
            self.start_bot(live, fresh=True)
        return game

    def _acted(self, live: Live) -> None:
        """A commit of ``live`` by this process has returned: what was heard of meanwhile
        and is not that commit is read now."""
        match_id = live.row.id
        self._acting[match_id] -= 1
        if not self._acting[match_id]:
            del self._acting[match_id]
            heard = self._heard.pop(match_id, 0)
            if heard > live.game.seq:
                self.poke(match_id, heard)

    def _commit_viewed(
        self,
        live: Live,
        known: Game,
        seat: int,
        action: dict[str, Any],
        seats: set[int | None],
    ) -> Game:
        """:meth:`_commit`, then the committed game's views for ``seats`` (into the cache)."""
        game = self._commit(live.row, known, seat, action)
        for viewer in seats:
            live.state_json(game, viewer)
        return game

    def _commit(self, row: MatchRow, known: Game, seat: int, action: dict[str, Any]) -> Game:
        action = dict(action)
        seq = action.pop("seq", None)
        waits = row.clock is not None and not row.arrived  # perhaps stale: see under the lock
        if (seq is None or seq == known.seq) and not waits:
            # Usually this process knows every stored action: the action is checked on
            # what it knows and stored as the next one, which the database refuses if
            # another process stored that one first.  Then (or if the rules refuse it,
            # perhaps because what is known is stale) it is done again under the lock.
            game = known.copy()
            with contextlib.suppress(ActionError):
                stored = game.apply(seat, action)
                due = bot_due(row, game)
                if row.rated and game.is_over:
                    raise ActionError(409, "rated", "rated under the lock, below")
                if self.store.append_next(
                    row.id,
                    game.seq - 1,
                    seat,
                    stored,
                    over=game.is_over,
                    bot_due=due,
                    due=game.due(row),
                ):
                    return game
        with self.store.locked(row.id) as match:
            game = known.extended(match.actions(known.seq)).copy()
            fresh = match.row()
            if fresh.clock is not None and not fresh.arrived and action.get("action") != "name":
                raise ApiError(409, "not_arrived", "a timed match starts when both have come")
            if seq is not None and seq != game.seq:
                raise ApiError(
                    409, "stale", f"you have seen {seq} actions but the match has {game.seq}"
                )
            self._append(match, game, seat, action)
        return game

    def _append(self, match: Locked, game: Game, seat: int | None, action: dict[str, Any]) -> None:
        """Apply ``action`` to ``game`` (a copy) and store it in ``match``'s transaction;
        the last action of a rated match is rated in that same transaction."""
        try:
            stored = game.apply(seat, action)  # Match checks first: a refusal changes nothing
        except ActionError as exc:
            raise ApiError(exc.status, exc.code, str(exc)) from exc
        due = bot_due(game.row, game)
        look = game.due(match.row())
        match.append(game.seq - 1, seat, stored, over=game.is_over, bot_due=due, due=look)
        if game.is_over:
            self._rate(match, game)

    def start_bot(self, live: Live, *, fresh: bool = False) -> None:
        """Let the bot make every action that is its to make (unless it already is);
        ``fresh``: this process has just stored the match's last action, so the bot need
        not read the match again first (if another process was quicker, the bot's action
        is refused as stale and the match read then)."""
        if live.row.id not in self.bot_jobs and not self.closed:
            task = asyncio.create_task(self._bot_job(live, fresh))
            self.bot_jobs[live.row.id] = task

    async def _bot_job(self, live: Live, fresh: bool) -> None:
        row = live.row
        assert row.bot is not None and row.bot_seat is not None
        failed = False
        try:
            game = live.game if fresh else await self.refresh(live)
            while bot_due(row, game):
                try:
                    action = await self.bots.decide(bot_action, row.bot, game)
                    game = await self.act(live, row.bot_seat, {**action, "seq": game.seq})
                except ApiError as exc:
                    if exc.code not in ("stale", "not_your_turn", "match_over"):
                        raise BotFailed(f"the bot's action was refused: {exc.message}") from exc
                    game = await self.refresh(live)  # another process's bot answered first
        except Exception as exc:  # BotFailed, StoreError, or a bug: reported, never silent
            failed = True
            _log.error("bot %s in match %s: %s", row.bot, row.id, exc)
            error = error_body("bot_failed", f"{exc}; it will be tried again")
            await self.send_all(live, {"type": "error", **error})
        finally:
            del self.bot_jobs[row.id]
            if not failed and bot_due(row, live.game):  # a turn came while the job ended
                self.start_bot(live)

    async def resume_bots(self, ids: list[str]) -> None:
        """Start the bot of each of these matches if it is due (after a restart, or when
        another process left it waiting)."""
        for match_id in ids:
            if match_id in self.bot_jobs:
                continue
            with contextlib.suppress(ApiError, StoreError):
                live = await self.load(match_id)
                if bot_due(live.row, await self.refresh(live)):
                    self.start_bot(live)

    async def watch(self, *, poll: float = 0.05, sweep: float = 5.0) -> None:
        """Keep this process's watchers and stalled bots going: PostgreSQL's NOTIFY (or, on
        SQLite, polling the watched matches) brings other processes' actions; a sweep finds
        bots that have been due for ``bot_stall`` seconds (their process died)."""
        if self.store.is_postgresql:
            self._spawn(self._listen())
        sweep = min(sweep, self.bot_stall)
        next_sweep = time.monotonic()
        while True:
            if not self.store.is_postgresql:
                watched = [i for i, live in self.live.items() if live.sockets]
                with contextlib.suppress(StoreError):
                    if watched:
                        counts = await self.db(self.store.counts, watched)
                        for match_id, n in counts.items():
                            if n > self.live[match_id].game.seq:
                                self.poke(match_id)
            if time.monotonic() >= next_sweep:
                next_sweep = time.monotonic() + sweep
                with contextlib.suppress(StoreError, ApiError):
                    await self.sweep()
                with contextlib.suppress(StoreError):
                    before = time.time() - self.bot_stall
                    await self.resume_bots(
                        await self.db(
                            functools.partial(self.store.match_ids, bot_due_before=before)
                        )
                    )
            await asyncio.sleep(poll)

    async def sweep(self) -> list[str]:
        """End every match whose clock, invitation or idleness has run out (each process
        looks every few seconds: a player who is gone loses on time all the same)."""
        ids = await self.db(functools.partial(self.store.match_ids, due_before=self.now()))
        for match_id in ids:
            with contextlib.suppress(StoreError, ApiError):  # the others are ended all the same
                await self.refresh(await self.load(match_id))
        return ids

    async def _listen(self) -> None:
        import psycopg

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.store.dsn, autocommit=True
                ) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    for match_id in list(self.live):  # what was missed while not listening
                        self.poke(match_id)
                    async for note in conn.notifies():
                        match_id, _, actions = note.payload.partition(" ")
                        self.poke(match_id, int(actions) if actions.isdigit() else None)
            except (psycopg.Error, OSError) as exc:
                _log.warning("LISTEN %s: %s; listening again in 1 s", CHANNEL, exc)
                await asyncio.sleep(1)

    async def broadcast(self, live: Live) -> None:
        """Send the new state to every open WebSocket of the match."""
        for ws, seat in list(live.sockets.items()):
            live.send(ws, pushed(live.state_json(live.game, seat)))

    async def send_all(self, live: Live, message: dict[str, Any]) -> None:
        """Send ``message`` to every open WebSocket of the match."""
        text = json.dumps(message)
        for ws in list(live.sockets):
            live.send(ws, text)

    async def send_chatty(self, live: Live, message: dict[str, Any]) -> None:
        """Send ``message`` (presence, chat) to the sockets that asked for them."""
        text = json.dumps(message)
        for ws in list(live.chatty):
            live.send(ws, text)
