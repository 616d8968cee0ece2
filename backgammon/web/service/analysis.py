"""Match analysis off the event loop: a web match's analysis runs in the shared analyses'
worker (:func:`backgammon.judging.analysis.analyse`, as ``backgammon analyse --json`` writes
it), reports its progress in a file of a temporary folder of this process, and is stored in
the database, where any server process reads it (:class:`Analyses`)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from backgammon.play.match import Match
from backgammon.play.record import MatchRecord
from backgammon.records.walk import Visitor
from backgammon.records.written import as_written
from backgammon.web.errors import ApiError
from backgammon.web.service.game import Game
from backgammon.web.service.gnubg import engine_analysis, engine_label
from backgammon.web.service.jobs import WorkerPool, shared
from backgammon.web.service.live import Live
from backgammon.web.service.review import ReplaySteps, ReviewLog, annotate, replay_steps
from backgammon.web.service.verdicts import engine_column
from backgammon.web.store.database import Store

__all__ = [
    "PLIES",
    "Analyses",
    "analysed",
    "analysis_pool",
    "progress_of",
    "second_opinion",
    "write_result",
]

PLIES = 2
"""The depth of the web analysis (the terminal's default)."""


def analysis_pool() -> WorkerPool:
    """The process's one worker for analyses (of matches and of uploads)."""
    return shared("analyses")


def analysed(
    source: Match | MatchRecord,
    out: str,
    plies: int,
    verify: str | None = None,
    names: tuple[str, str] | None = None,
    visitors: Sequence[Visitor] = (),
) -> dict[str, Any]:
    """In a worker: ``source`` analysed at ``plies`` as JSON (decisions marked ``verify`` or
    worse rolled out again) in one walk of its record that ``visitors`` share, the progress
    written as ``[done, total]`` beside ``out`` meanwhile (see :func:`progress_of`)."""
    from backgammon.judging.analysis import analyse

    progress = Path(out + ".progress")
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] > 0.5 or done == total:
            last[0] = now
            progress.write_text(json.dumps([done, total]))

    result = analyse(
        source, plies=plies, names=names, progress=report, verify=verify, visitors=visitors
    )
    return result.to_json()


def write_result(out: str, result: dict[str, Any]) -> None:
    """In a worker: the finished analysis into ``out`` at once (its progress file goes)."""
    tmp = out + ".tmp"
    Path(tmp).write_text(json.dumps(result))
    os.replace(tmp, out)
    Path(out + ".progress").unlink(missing_ok=True)


def progress_of(out: Path) -> list[int]:
    """``[done, total]`` of the analysis writing ``out`` ([0, 0] before its first report)."""
    try:
        done = json.loads(Path(str(out) + ".progress").read_text())
    except (OSError, ValueError):
        return [0, 0]
    return [int(x) for x in done] if isinstance(done, list) and len(done) == 2 else [0, 0]


def second_opinion(result: dict[str, Any], record: MatchRecord, engine: str | None) -> None:
    """In a worker: the engine's verdicts on ``record`` beside ours in ``result`` (gnubg's
    own analysis of the file), when the server has an engine."""
    if engine is not None:
        report = engine_analysis(engine, record)
        rates = (report.error_rate(0), report.error_rate(1))
        engine_column(result, report.analysis, engine_label(engine), rates)


def _job(game: Game, out: str, plies: int, engine: str | None) -> None:
    """In the worker: analyse a web match, with each decision's replay step and log line,
    all in one walk of its record, and the engine's verdicts beside ours when the server
    has one."""
    names = (game.names[0], game.names[1])  # as the match page names them
    log, steps = ReviewLog(game.names), ReplaySteps(game.ends)
    result = analysed(game.match, out, plies, names=names, visitors=(log, steps))
    result["seq"] = game.seq
    replay_steps(result["decisions"], steps.ids())
    annotate(result, log)
    second_opinion(result, as_written(game.match, names), engine)
    write_result(out, result)


class Analyses:
    """The analyses of the matches of ``store`` started by this process: at most one at a
    time per match, its progress read from its file, its result moved into the database;
    with an ``engine`` (``gnubg[:PLIES]``), its verdicts beside ours; made at ``plies``."""

    def __init__(self, store: Store, engine: str | None = None, plies: int = PLIES) -> None:
        if plies not in (0, 1, 2):
            raise ValueError(f"a review is made at 0, 1 or 2 plies, not {plies}")
        self.store, self.engine, self.plies = store, engine, plies
        self.folder = Path(tempfile.mkdtemp(prefix="backgammon-analysis-"))
        self.running: dict[str, Future[None]] = {}
        self.failed: dict[str, str] = {}

    def _out(self, match_id: str) -> Path:  # only for ids the server has loaded
        return self.folder / f"{match_id}.json"

    def _keep(self, match_id: str, seq: int, job: Future[None]) -> None:
        """When the worker is done, its result goes into the database (or, if it cannot be
        stored, the status says failed and why)."""
        out = self._out(match_id)
        if job.cancelled() or job.exception() is not None or not out.exists():
            return
        try:
            self.store.save_analysis(match_id, seq, out.read_text())
        except Exception as exc:  # a read-only or unreachable store: reported, not "running"
            self.failed[match_id] = f"the analysis could not be stored: {exc}"
        out.unlink(missing_ok=True)

    def start(self, live: Live) -> None:
        """Start analysing ``live`` (finished, or against the bot so far) unless it is."""
        game = live.game
        if not game.is_over and live.row.bot is None:
            raise ApiError(409, "not_over", "hints are off between two people until the end")
        match_id = live.row.id
        job = self.running.get(match_id)
        if job is not None and not job.done():
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        out, seq = self._out(match_id), game.seq
        self.failed.pop(match_id, None)
        job = analysis_pool().submit(_job, game.copy(dice=False), str(out), self.plies, self.engine)
        job.add_done_callback(lambda j: self._keep(match_id, seq, j))
        self.running[match_id] = job

    def status(self, live: Live, stored: str | None) -> dict[str, Any]:
        """The status of ``live``'s analysis as this process knows it, else as its
        ``stored`` analysis (from the database) says."""
        match_id = live.row.id
        out = self._out(match_id)
        job = self.running.get(match_id)
        # Done but not yet moved into the database by ``_keep``: still running.
        if job is not None and (not job.done() or (not job.exception() and out.exists())):
            ahead = analysis_pool().ahead(job)
            return {"status": "running", "progress": progress_of(out)} | (
                {"queue": ahead} if ahead else {}
            )
        if job is not None and job.exception() is not None:
            return {"status": "failed", "error": str(job.exception())}
        if match_id in self.failed:
            return {"status": "failed", "error": self.failed[match_id]}
        if stored is not None:
            data = json.loads(stored)
            game = live.game
            current = data.get("seq") == game.seq
            return {"status": "done", "analysis": data, "current": current, "over": game.is_over}
        return {"status": "none"}

    def close(self) -> None:
        """Remove the progress folder (the server is ending)."""
        shutil.rmtree(self.folder, ignore_errors=True)
