"""Rollouts from the browser: ``POST /api/rollouts`` rolls out the plays of a position's dice,
its cube decision or the position itself (:func:`backgammon.judging.rollout.rollout`), bounded
per request (at most :data:`MAX_TRIALS` trials and :data:`MAX_CANDIDATES` plays, 0- or 1-ply
bots); ``GET /api/rollouts/{id}`` tells its progress and then its result; ``DELETE`` cancels it.

Rollouts run one at a time in their own worker process (so hints and analyses never wait
behind one), the others queue, at most :data:`MAX_QUEUED` in all.  Cancelling the one running
kills its worker at once and the next starts in a new one.  Jobs live in this server process
(a rollout is for the page that asked for it, not kept).
"""

from __future__ import annotations

import json
import secrets
import tempfile
import threading
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from pydantic import BaseModel, Field

from backgammon.core.values import InvalidMoveTextError, short_repr
from backgammon.play.match import Match, Phase
from backgammon.players import CubeState
from backgammon.web.bots import NICENESS
from backgammon.web.engine import RateLimiter, match_of
from backgammon.web.errors import ApiError
from backgammon.workers import start_pool, stop_pool

__all__ = [
    "MAX_CANDIDATES",
    "MAX_QUEUED",
    "MAX_TRIALS",
    "RolloutIn",
    "Rollouts",
    "rollout_router",
    "shutdown_rollouts",
]

MAX_TRIALS = 1296
"""The most trials a rollout from the web may play per candidate."""
MAX_CANDIDATES = 5
"""The most plays one rollout may compare."""
MAX_QUEUED = 4
"""Rollouts running or waiting at most; more are refused (429)."""
BATCH = 18
"""Trials between two progress reports (the results do not depend on it)."""
KEEP = 200
"""Finished rollouts remembered at most (the oldest are forgotten)."""


class RolloutIn(BaseModel):
    """What to roll out: the position (gnubg ID or XGID); with dice in it, the plays
    ``moves`` (else the ``top`` plays at 0-ply); without, its ``cube`` decision or the
    position itself; and how."""

    id: str = Field(min_length=1, max_length=100, description="a gnubg ID or an XGID")
    moves: list[Annotated[str, Field(max_length=40)]] | None = Field(
        default=None, max_length=MAX_CANDIDATES, description="the plays to roll out"
    )
    top: int = Field(default=MAX_CANDIDATES, ge=1, le=MAX_CANDIDATES)
    cube: bool = False
    trials: int = Field(default=144, ge=1, le=MAX_TRIALS)
    truncate: int = Field(default=0, ge=0, le=200, description="plies, 0: to the end")
    plies: int = Field(default=0, ge=0, le=1, description="the bots' lookahead")
    seed: int = Field(default=0, ge=0, le=2**31 - 1)


def _run(spec: dict[str, Any], progress: str) -> dict[str, Any]:
    """In the worker: the rollout of ``spec``, reporting ``[done, total]`` in ``progress``."""
    from backgammon.core.position import Position
    from backgammon.judging.rollout import RolloutSettings, rollout

    def report(done: int, total: int) -> None:
        Path(progress).write_text(json.dumps([done, total]))

    settings = RolloutSettings(
        trials=spec["trials"],
        truncate=spec["truncate"],
        plies=spec["plies"],
        cubeful=spec["cube"],
        seed=spec["seed"],
        batch=BATCH,
    )
    result = rollout(
        Position(spec["board"]),
        spec["state"],
        dice=spec["dice"],
        cube=spec["cube"],
        moves=spec["moves"],
        top=spec["top"],
        settings=settings,
        workers=1,
        progress=report,
    )
    return result.to_json()


def _spec(request: RolloutIn) -> dict[str, Any]:
    """The worker's task for ``request``, checked here: ApiError for a position or plays
    that cannot be rolled out."""
    m: Match = match_of(request.id)
    dice = m.dice if m.phase is Phase.MOVE else None
    if m.phase not in (Phase.ROLL, Phase.MOVE) or m.position.is_game_over():
        raise ApiError(422, "no_decision", f"nothing to roll out in the phase {m.phase}")
    if request.cube and (dice is not None or not m.may_double()):
        raise ApiError(422, "no_cube", "the side on roll cannot double here (before its roll)")
    moves = None
    if request.moves and dice is not None:
        try:
            moves = [str(m.position.parse_move(text, dice)) for text in request.moves]
        except (InvalidMoveTextError, ValueError) as exc:
            raise ApiError(422, "illegal_move", str(exc)) from exc
    return {
        "board": m.position.board,
        "state": CubeState.from_match(m),
        "dice": dice,
        "cube": request.cube,
        "moves": moves,
        "top": request.top,
        "trials": request.trials,
        "truncate": request.truncate,
        "plies": request.plies,
        "seed": request.seed,
    }


@dataclass
class _Job:
    id: str
    spec: dict[str, Any]
    progress: Path
    status: str = "queued"  # running, done, cancelled, failed
    result: dict[str, Any] | None = None
    error: str | None = None
    created: float = field(default_factory=time.time)

    def view(self) -> dict[str, Any]:
        """The job as the API tells it."""
        out: dict[str, Any] = {"id": self.id, "status": self.status}
        total = self.spec["trials"]
        if self.status == "running":
            try:
                done = json.loads(self.progress.read_text())
                out["progress"] = [int(done[0]), int(done[1])]
            except (OSError, ValueError, TypeError, IndexError):
                out["progress"] = [0, total]
        elif self.status == "done":
            out["progress"] = [total, total]
            out["result"] = self.result
        else:
            out["progress"] = [0, total]
        if self.error is not None:
            out["error"] = self.error
        return out


class Rollouts:
    """The rollouts of this server process: a queue run one at a time in one worker."""

    def __init__(self) -> None:
        self.jobs: dict[str, _Job] = {}
        self.queue: deque[_Job] = deque()
        self.current: _Job | None = None
        self.pool: ProcessPoolExecutor | None = None
        self.folder = Path(tempfile.mkdtemp(prefix="backgammon-rollouts-"))
        self.lock = threading.RLock()

    def submit(self, spec: dict[str, Any]) -> _Job:
        """Queue a rollout (ApiError 429 when too many are waiting)."""
        with self.lock:
            waiting = len(self.queue) + (self.current is not None)
            if waiting >= MAX_QUEUED:
                raise ApiError(429, "busy", "too many rollouts are waiting: try again later")
            job_id = secrets.token_urlsafe(9)
            job = _Job(job_id, spec, self.folder / f"{job_id}.progress")
            self.jobs[job_id] = job
            self.queue.append(job)
            self._forget()
            self._next()
            return job

    def cancel(self, job: _Job) -> None:
        """Stop ``job``: taken off the queue, or its worker killed if it is running."""
        with self.lock:
            if job.status == "queued":
                self.queue.remove(job)
            elif job.status == "running" and self.current is job and self.pool is not None:
                stop_pool(self.pool)
                self.pool, self.current = None, None
            else:
                return
            job.status = "cancelled"
            self._next()

    def close(self) -> None:
        """Stop the worker (the server is shutting down)."""
        with self.lock:
            self.queue.clear()
            if self.pool is not None:
                stop_pool(self.pool, wait=True)
                self.pool = None

    def _next(self) -> None:
        """Start the next queued rollout if none is running."""
        if self.current is not None or not self.queue:
            return
        job = self.queue.popleft()
        if self.pool is None:
            self.pool = start_pool(1, niceness=NICENESS)
        job.status = "running"
        self.current = job
        future = self.pool.submit(_run, job.spec, str(job.progress))
        future.add_done_callback(lambda f: self._finished(job, f))

    def _finished(self, job: _Job, future: Future[dict[str, Any]]) -> None:
        with self.lock:
            if job.status != "running":  # cancelled: its worker was killed
                return
            error = None if future.cancelled() else future.exception()
            if future.cancelled() or error is not None:
                job.status, job.error = "failed", str(error or "stopped")
            else:
                job.status, job.result = "done", future.result()
            job.progress.unlink(missing_ok=True)
            if self.current is job:
                self.current = None
            self._next()

    def _forget(self) -> None:
        finished = [j for j in self.jobs.values() if j.status not in ("queued", "running")]
        for job in sorted(finished, key=lambda j: j.created)[: max(0, len(finished) - KEEP)]:
            del self.jobs[job.id]


_all: list[Rollouts] = []


def shutdown_rollouts() -> None:
    """Stop every rollout worker of this process."""
    for r in _all:
        r.close()


def rollout_router(limiter: RateLimiter | None = None) -> APIRouter:
    """The ``/api/rollouts`` routes, with their own queue, worker and rate limiter."""
    router = APIRouter(prefix="/api/rollouts", tags=["rollouts"])
    limits = limiter if limiter is not None else RateLimiter(rate=0.5, burst=5)
    rollouts = Rollouts()
    _all.append(rollouts)

    def job_of(job_id: str) -> _Job:
        job = rollouts.jobs.get(job_id)
        if job is None:
            raise ApiError(404, "not_found", f"there is no rollout {short_repr(job_id)}")
        return job

    @router.post("", status_code=202)
    async def start(request: Request, spec: Annotated[RolloutIn, Body()]) -> dict[str, Any]:
        """Start a rollout; the answer holds its id, to ask for progress and the result."""
        client = request.client.host if request.client else "unknown"
        wait = limits.wait(client)
        if wait:
            raise ApiError(429, "rate_limited", f"too many rollouts: try again in {wait:.1f} s")
        return rollouts.submit(_spec(spec)).view()

    @router.get("/{job_id}")
    async def status(job_id: str) -> dict[str, Any]:
        """``status`` queued, running (``progress`` [done, total]), done (``result``, as
        ``backgammon rollout --json`` writes it), cancelled or failed (``error``)."""
        return job_of(job_id).view()

    @router.delete("/{job_id}")
    async def cancel(job_id: str) -> dict[str, Any]:
        """Cancel the rollout (a finished one stays as it is)."""
        job = job_of(job_id)
        rollouts.cancel(job)
        return job.view()

    return router
