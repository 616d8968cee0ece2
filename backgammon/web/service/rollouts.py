"""Rollouts for the browser: the plays of a position's dice, its cube decision or the position
itself (:func:`backgammon.judging.rollout.rollout`), bounded per request (at most
:data:`~backgammon.web.schemas.MAX_TRIALS` trials and
:data:`~backgammon.web.schemas.MAX_CANDIDATES` plays, 0- or 1-ply bots).

Rollouts run one at a time in their own worker process (so hints and analyses never wait
behind one), the others queue, at most :data:`MAX_QUEUED` in all.  Cancelling the one running
kills its worker at once and the next starts in a new one.  Jobs live in this server process
(a rollout is for the page that asked for it, not kept).
"""

from __future__ import annotations

import json
import secrets
import shutil
import tempfile
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backgammon.core.values import InvalidMoveTextError, short_repr
from backgammon.play.match import Match, Phase
from backgammon.players import CubeState
from backgammon.web.errors import ApiError
from backgammon.web.schemas import RolloutIn
from backgammon.web.service.engine import match_of
from backgammon.web.service.jobs import WorkerPool

__all__ = ["BATCH", "MAX_QUEUED", "Rollouts", "spec_of"]

MAX_QUEUED = 4
"""Rollouts running or waiting at most; more are refused (429)."""
BATCH = 18
"""Trials between two progress reports (the results do not depend on it)."""
KEEP = 200
"""Finished rollouts remembered at most (the oldest are forgotten)."""


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


def spec_of(request: RolloutIn) -> dict[str, Any]:
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
    client: str = ""
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
        self.pool = WorkerPool(1)
        self.folder = Path(tempfile.mkdtemp(prefix="backgammon-rollouts-"))
        self.lock = threading.RLock()

    def submit(self, spec: dict[str, Any], client: str = "") -> _Job:
        """Queue a rollout of ``client`` (ApiError 429 when too many are waiting, or when
        the client has one waiting or running already: one client cannot fill the queue)."""
        with self.lock:
            waiting = [*self.queue, *([] if self.current is None else [self.current])]
            if any(j.client == client for j in waiting):
                raise ApiError(
                    429, "one_at_a_time", "your rollout is still running: wait for it or cancel it"
                )
            if len(waiting) >= MAX_QUEUED:
                raise ApiError(429, "busy", "too many rollouts are waiting: try again later")
            job_id = secrets.token_urlsafe(9)
            job = _Job(job_id, spec, self.folder / f"{job_id}.progress", client)
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
            elif job.status == "running" and self.current is job:
                self.pool.discard()
                self.current = None
            else:
                return
            job.status = "cancelled"
            self._next()

    def close(self) -> None:
        """Stop the worker and remove the progress folder (the server is shutting down)."""
        with self.lock:
            self.queue.clear()
            self.pool.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def view(self, job: _Job) -> dict[str, Any]:
        """``job`` as the API tells it, with its place in the queue while it waits (1:
        next)."""
        with self.lock:
            out = job.view()
            if job.status == "queued" and job in self.queue:
                out["queue"] = self.queue.index(job) + 1
            return out

    def job(self, job_id: str) -> _Job:
        """The rollout ``job_id`` (ApiError 404 if this process has none)."""
        job = self.jobs.get(job_id)
        if job is None:
            raise ApiError(404, "not_found", f"there is no rollout {short_repr(job_id)}")
        return job

    def _next(self) -> None:
        """Start the next queued rollout if none is running."""
        if self.current is not None or not self.queue:
            return
        job = self.queue.popleft()
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
