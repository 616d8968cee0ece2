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
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from backgammon.records import matchfile
from backgammon.records.matchfile import MatchFile
from backgammon.web.errors import ApiError
from backgammon.web.service.game import Game
from backgammon.web.service.gnubg import engine_analysis, engine_label
from backgammon.web.service.jobs import WorkerPool, shared
from backgammon.web.service.review import annotate
from backgammon.web.service.server import Live
from backgammon.web.service.verdicts import engine_column
from backgammon.web.store.database import Store

__all__ = [
    "PLIES",
    "Analyses",
    "analysed",
    "analysis_pool",
    "progress_of",
    "replay_steps",
    "second_opinion",
    "write_result",
]

PLIES = 2
"""The depth of the web analysis (the terminal's default)."""


def analysis_pool() -> WorkerPool:
    """The process's one worker for analyses (of matches and of uploads)."""
    return shared("analyses")


def replay_steps(game: Game, decisions: list[dict[str, Any]]) -> None:
    """Give each decision the replay step it was taken at (``step``: how many of the match's
    stored actions came before it), found by its gnubg ID, in order, as the stored actions
    are replayed; a decision not found keeps no step."""
    stepper = Game.replay(game.row, [])
    ids = [stepper.match.gnubg_id()]
    for action in game.actions:
        stepper.apply(int(action["seat"]), dict(action))
        ids.append(stepper.match.gnubg_id())
    at = 0
    for d in decisions:
        found = next((k for k in range(at, len(ids)) if ids[k] == d["gnubg_id"]), None)
        if found is not None:
            d["step"] = at = found


def analysed(record: MatchFile, out: str, plies: int, verify: str | None = None) -> dict[str, Any]:
    """In a worker: ``record`` analysed at ``plies`` as JSON (decisions marked ``verify`` or
    worse rolled out again), the progress written as ``[done, total]`` beside ``out``
    meanwhile (see :func:`progress_of`)."""
    from backgammon.judging.analysis import analyse

    progress = Path(out + ".progress")
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] > 0.5 or done == total:
            last[0] = now
            progress.write_text(json.dumps([done, total]))

    return analyse(record, plies=plies, progress=report, verify=verify).to_json()


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


def second_opinion(result: dict[str, Any], record: MatchFile, engine: str | None) -> None:
    """In a worker: the engine's verdicts on ``record`` beside ours in ``result`` (gnubg's
    own analysis of the file), when the server has an engine."""
    if engine is not None:
        report = engine_analysis(engine, record)
        rates = (report.error_rate(0), report.error_rate(1))
        engine_column(result, report.analysis, engine_label(engine), rates)


def _job(record: MatchFile, game: Game, out: str, plies: int, engine: str | None) -> None:
    """In the worker: analyse a web match, with each decision's replay step and log line,
    and the engine's verdicts beside ours when the server has one."""
    result = analysed(record, out, plies)
    result["seq"] = game.seq
    replay_steps(game, result["decisions"])
    annotate(result, game.match, game.names)
    second_opinion(result, record, engine)
    write_result(out, result)


class Analyses:
    """The analyses of the matches of ``store`` started by this process: at most one at a
    time per match, its progress read from its file, its result moved into the database;
    with an ``engine`` (``gnubg[:PLIES]``), its verdicts beside ours."""

    def __init__(self, store: Store, engine: str | None = None) -> None:
        self.store, self.engine = store, engine
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
        names = (game.names[0], game.names[1])  # as the match page names them
        record = matchfile.from_match(game.match, names)
        self.folder.mkdir(parents=True, exist_ok=True)
        out, seq = self._out(match_id), game.seq
        self.failed.pop(match_id, None)
        game = game.copy(dice=False)
        job = analysis_pool().submit(_job, record, game, str(out), PLIES, self.engine)
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
