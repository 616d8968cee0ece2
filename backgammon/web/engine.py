"""The engine endpoint of the web server: ``GET /api/engine/hint`` ranks the plays of a
rolled position, or gives the cube decision, for a position named by XGID or gnubg ID.

The bot thinks in a worker process (:func:`backgammon.workers.start_pool`, at the bots' lower
priority, within a time limit), off the event loop and the server's interpreter lock; each
client address has a small token bucket, so one client cannot keep the engine busy.  Errors are
``{"error": {"code", "message"}}`` with a 4xx status, as in the rest of the API.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from backgammon.ids.gnubg import InvalidMatchIdError
from backgammon.ids.xgid import InvalidXgidError
from backgammon.judging.evaluate import best_plays, evaluate
from backgammon.play.dice import FixedDice
from backgammon.play.match import Match, Phase
from backgammon.play.rules import RulesError
from backgammon.play.state import MatchError
from backgammon.players import CubeState
from backgammon.players.neural import NeuralPlayer
from backgammon.web.bots import NICENESS
from backgammon.web.errors import ApiError
from backgammon.workers import WorkerTimeout, result_within, start_pool, stop_pool

__all__ = ["RateLimiter", "engine_router", "evaluation", "hint", "match_of", "shutdown_engine"]

MAX_PLAYS = 20  # plays listed at most (a roll can have hundreds)
TIME_LIMIT = 30.0
"""Seconds a hint may take (a 1-ply hint takes well under one, a 2-ply one about one)."""

_pool: ProcessPoolExecutor | None = None


def _executor() -> ProcessPoolExecutor:
    """The engine's one worker process, shared by every application here, started on first
    use (or again after a time limit or a crash stopped it)."""
    global _pool
    if _pool is None:
        _pool = start_pool(1, niceness=NICENESS)
    return _pool


def _abandon(pool: ProcessPoolExecutor, *, wait: bool = False) -> None:
    """Stop a worker that ran out of time or died; the next hint starts a new one."""
    global _pool
    if _pool is pool:
        _pool = None
    stop_pool(pool, wait=wait)


def shutdown_engine() -> None:
    """Stop the engine's worker (the server is shutting down)."""
    if _pool is not None:
        _abandon(_pool, wait=True)


@dataclass
class RateLimiter:
    """A token bucket per client: ``burst`` requests at once, then ``rate`` a second."""

    rate: float = 2.0
    burst: float = 10.0
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self, client: str) -> float:
        """0 if ``client`` may go now (a token is spent), else the seconds until it may."""
        now = time.monotonic()
        with self._lock:
            if len(self._buckets) > 10000:  # forget clients idle long enough to be full
                full = self.burst / self.rate
                self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < full}
            tokens, then = self._buckets.get(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens < 1:
                self._buckets[client] = (tokens, now)
                return (1 - tokens) / self.rate
            self._buckets[client] = (tokens - 1, now)
            return 0.0


_players: dict[int, NeuralPlayer] = {}


def _player(plies: int) -> NeuralPlayer:
    if plies not in _players:
        _players[plies] = NeuralPlayer(plies=plies)
    return _players[plies]


def hint(match: Match, plies: int = 0, count: int = MAX_PLAYS) -> dict[str, Any]:
    """The engine's advice for ``match`` as JSON-ready values: its best ``count`` plays
    when the dice are rolled (as ``backgammon hint`` lists them), else the cube decision
    (from the side on roll, the doubler)."""
    bot = _player(plies)
    cube = CubeState.from_match(match)
    base: dict[str, Any] = {"gnubgid": match.gnubg_id(), "xgid": match.xgid(), "plies": plies}
    if match.phase is Phase.MOVE:
        assert match.dice is not None
        ranked = best_plays(bot, match.position, match.dice, cube, count)
        plays = [
            {
                "move": str(r.move),
                "equity": round(r.equity, 6),
                "probabilities": [round(float(x), 6) for x in r.probabilities.array()],
                "plies": r.plies,
            }
            | ({} if r.mwc is None else {"mwc": round(r.mwc, 6)})
            for r in ranked
        ]
        return {**base, "kind": "plays", "dice": list(match.dice), "plays": plays}
    d = bot.cube_decision(match.position, cube)
    return {
        **base,
        "kind": "cube",
        "cube": {
            "no_double": round(d.no_double, 6),
            "double_take": round(d.double_take, 6),
            "double_pass": round(d.double_pass, 6),
            "action": d.action.value,
            "response": d.response.value,
            "may_double": match.may_double(match.on_roll),
        },
    }


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Any:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


def evaluation(match: Match, plies: int = 0) -> dict[str, Any]:
    """The position of ``match`` judged for its side on roll, before the roll (as
    ``backgammon eval`` prints it), as JSON-ready values."""
    judged = evaluate(match.position, CubeState.from_match(match), plies, _player(plies))
    return {"gnubgid": match.gnubg_id(), "xgid": match.xgid(), **judged.to_json()}


def match_of(text: str) -> Match:
    """The match an XGID or a gnubg ID (``PositionID:MatchID``) names; ApiError 400 for
    anything else."""
    text = text.strip()
    try:
        if text.startswith("XGID=") or len(text.split(":")[0]) == 26:
            return Match.from_xgid(text)
        return Match.from_gnubg_id(text)
    except (InvalidXgidError, InvalidMatchIdError, MatchError, RulesError, ValueError) as exc:
        raise ApiError(400, "invalid_position", str(exc)) from exc


Xgid = Annotated[str | None, Query(max_length=200, description="an XGID")]
GnubgId = Annotated[str | None, Query(max_length=200, description="a gnubg ID, PositionID:MatchID")]
Plies = Annotated[int, Query(ge=0, le=2, description="lookahead (0, 1 or 2)")]
Count = Annotated[int, Query(ge=1, le=MAX_PLAYS, description="plays listed at most")]


def engine_router(limiter: RateLimiter | None = None) -> APIRouter:
    """The ``/api/engine`` routes, with their own rate limiter."""
    router = APIRouter(prefix="/api/engine", tags=["engine"])
    limits = limiter if limiter is not None else RateLimiter()

    async def answer(
        request: Request,
        xgid: str | None,
        gnubgid: str | None,
        work: Callable[..., dict[str, Any]],
        plies: int,
        phases: tuple[Phase, ...],
        *extra: Any,
    ) -> Any:
        """``work(match, plies)`` in the engine's worker for the position named, once the
        client's rate limit and the position are checked."""
        client = request.client.host if request.client else "unknown"
        wait = limits.wait(client)
        if wait:
            return _error(
                429,
                "rate_limited",
                f"too many engine requests: try again in {wait:.1f} s",
                {"Retry-After": str(max(1, round(wait)))},
            )
        if (xgid is None) == (gnubgid is None):
            return _error(400, "invalid_request", "give one position: xgid or gnubgid")
        try:
            match = Match.from_xgid(xgid) if xgid is not None else Match.from_gnubg_id(str(gnubgid))
        except (InvalidXgidError, InvalidMatchIdError, MatchError, RulesError) as exc:
            return _error(400, "invalid_position", str(exc))
        if match.phase not in phases:
            return _error(422, "no_decision", f"nothing to decide in the phase {match.phase}")
        match.dice_source = FixedDice(())  # what the worker gets throws no dice
        pool = _executor()
        try:
            return await result_within(pool.submit(work, match, plies, *extra), TIME_LIMIT)
        except (WorkerTimeout, BrokenProcessPool) as exc:
            _abandon(pool)
            return _error(503, "engine_unavailable", f"the engine gave no answer ({exc})")

    @router.get("/hint")
    async def engine_hint(
        request: Request,
        xgid: Xgid = None,
        gnubgid: GnubgId = None,
        plies: Plies = 0,
        count: Count = MAX_PLAYS,
    ) -> Any:
        """The best ``count`` plays of the dice of the position, all judged at ``plies``
        (``backgammon hint``'s list), or its cube decision."""
        phases = (Phase.ROLL, Phase.MOVE, Phase.DOUBLED)
        return await answer(request, xgid, gnubgid, hint, plies, phases, count)

    @router.get("/eval")
    async def engine_eval(
        request: Request, xgid: Xgid = None, gnubgid: GnubgId = None, plies: Plies = 0
    ) -> Any:
        """The position judged for the side on roll, before its roll: the five cubeless
        probabilities, the equity and the cube (``backgammon eval``'s numbers)."""
        return await answer(request, xgid, gnubgid, evaluation, plies, (Phase.ROLL, Phase.MOVE))

    return router
