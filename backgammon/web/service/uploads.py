"""Any match file reviewed in the browser: a .mat or SGF file (at most :data:`MAX_BYTES` and
:data:`MAX_DECISIONS`, read by the package's lenient readers in a worker process within
:data:`READ_LIMIT` and checked by the rules before anything is kept) is analysed in the
analyses' worker (:class:`Uploads`), one file at a time per client.  The file and its analysis
are kept in the database (:meth:`~backgammon.web.store.database.Store.create_upload`); the
process analysing it says so there every :data:`HEARTBEAT` seconds, so a poll served by
another process waits for it, and an analysis whose process died starts again elsewhere."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from backgammon.play.match import Match, Phase
from backgammon.play.record import MatchRecord
from backgammon.records.convert import (
    detect_format,
    format_of_name,
    read_record_text,
    written_actions,
)
from backgammon.records.errors import MatchFileError
from backgammon.records.walk import Visitor
from backgammon.web.errors import ApiError
from backgammon.web.service.analysis import (
    analysed,
    analysis_pool,
    progress_of,
    second_opinion,
    write_result,
)
from backgammon.web.service.jobs import shared
from backgammon.web.service.review import ReviewLog, annotate
from backgammon.web.service.verdicts import engine_column, file_analysis
from backgammon.web.store.database import Store, UploadRow
from backgammon.workers import result_within

__all__ = [
    "HEARTBEAT",
    "MAX_BYTES",
    "MAX_DECISIONS",
    "MAX_RUNNING",
    "STALE",
    "Uploads",
    "cut_short",
    "read_upload",
]

MAX_BYTES = 1_000_000
"""The largest match file taken (a long session's .mat is well under 100 KB)."""

MAX_RUNNING = 4
"""Uploaded files analysed or waiting in this process at most; more are refused (429)."""

MAX_DECISIONS = 2000
"""The most plays and cube actions a file may hold (a long session's match holds a few
hundred): the analysis's cost grows with them."""

READ_LIMIT = 30.0
"""Seconds a file may take to be read and checked by the rules (in a worker, off the
server's process; the worker's start is not counted)."""

STARTUP = 120.0
"""Seconds a new reading worker may take to start."""

HEARTBEAT = 30.0
"""Seconds between two notes of the analysing process that it still is."""

STALE = 3 * HEARTBEAT
"""Seconds after the last note past which an unfinished analysis is taken up again."""

_SUFFIXES = (".mat", ".sgf", ".txt")
"""File names taken: the two formats, and a text export (its format told by its text)."""


class _Last(Visitor):
    """Keeps the match a walk ends with (for what the review must warn of)."""

    match: Match | None = None

    def end(self, match: Match) -> None:
        self.match = match


def _job(
    record: MatchRecord, out: str, plies: int, verify: str | None, text: str, engine: str | None
) -> None:
    """In the worker: analyse an uploaded file, each decision numbered as its move log, in
    one walk of its record, with what the review must warn of (a file that stops mid-game);
    beside ours, gnubg's verdicts as the file carries them (an SGF gnubg analysed: nothing
    recomputed), else the server's engine's."""
    log, last = ReviewLog(record.players), _Last()
    result = analysed(record, out, plies, verify, visitors=(log, last))
    annotate(result, log)
    result["warnings"] = [] if last.match is None else cut_short(last.match)
    carried = file_analysis(text)
    if carried is not None:
        engine_column(result, carried, "GNU Backgammon (from the file)")
    else:
        second_opinion(result, record, engine)
    write_result(out, result)


def cut_short(played: Match) -> list[str]:
    """The warning for a file whose last game stops before its end (``played``: the file
    replayed), else none: its decisions so far are reviewed, its result is not known."""
    if played.is_over or played.phase is Phase.OPENING:
        return []
    return [
        f"The file stops in the middle of game {played.game_number}: that game has no end "
        "or result, and is reviewed only as far as it goes."
    ]


def _warm() -> None:
    """In a new reading worker, before the first file: nothing more to do, as unpickling
    this function has imported the readers and the rules."""


def read_upload(name: str, data: bytes, limit: int = MAX_DECISIONS) -> MatchRecord:
    """The match file ``data`` called ``name``, read into its record (the rules check every
    action); ApiError 415 for what is not a match file's name or text, 422 for a file that
    cannot be read, 413 for one holding more than ``limit`` actions."""
    suffix = Path(name).suffix.lower()
    if suffix not in _SUFFIXES:
        raise ApiError(415, "wrong_type", "send a .mat or .sgf match file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ApiError(415, "not_text", "the file is not text (UTF-8): not a match file") from exc
    if not text.strip():
        raise ApiError(422, "unreadable", "the file is empty")
    try:
        fmt = detect_format(text, name if format_of_name(name) else None)
        record = read_record_text(text, fmt)  # the rules check every action
    except (MatchFileError, ValueError) as exc:
        raise ApiError(422, "unreadable", f"cannot read the match: {exc}") from exc
    decisions = written_actions(record)  # as the file counts them: a roll and its play once
    if not decisions:
        raise ApiError(422, "unreadable", "the file holds no game to analyse")
    if decisions > limit:
        raise ApiError(
            413, "too_long", f"the file holds {decisions} actions: at most {limit} are analysed"
        )
    return record


class Uploads:
    """The uploads of ``store`` analysed by this process: at most :data:`MAX_RUNNING` at a
    time, each once, its progress read from its file, its result moved into the database."""

    def __init__(self, store: Store, engine: str | None = None) -> None:
        self.store, self.engine = store, engine
        self.folder = Path(tempfile.mkdtemp(prefix="backgammon-uploads-"))
        self.running: dict[str, Future[None]] = {}
        self.clients: dict[str, str] = {}
        """Who sent each upload analysed here (one at a time each)."""
        self.max_decisions = MAX_DECISIONS

    def _keep(self, upload_id: str, job: Future[None]) -> None:
        """When the worker is done, its result (or its failure) goes into the database."""
        out = self.folder / f"{upload_id}.json"
        if job.cancelled():
            return
        error = job.exception()
        if error is not None:
            self.store.finish_upload(upload_id, None, str(error) or type(error).__name__)
        elif out.exists():
            self.store.finish_upload(upload_id, out.read_text(), None)
            out.unlink(missing_ok=True)

    def active(self) -> list[str]:
        """The uploads this process is analysing or about to."""
        return [upload_id for upload_id, job in self.running.items() if not job.done()]

    def admit(self, client: str) -> None:
        """Refuse (429) a new upload of ``client`` while one of its files is analysed here,
        or while :data:`MAX_RUNNING` are."""
        active = self.active()
        if any(self.clients.get(upload_id) == client for upload_id in active):
            raise ApiError(
                429, "one_at_a_time", "your previous file is still being analysed: wait for it"
            )
        if len(active) >= MAX_RUNNING:
            raise ApiError(429, "busy", "too many files are being analysed: try again later")

    async def read(self, name: str, data: bytes) -> MatchRecord:
        """:func:`read_upload` in a worker process, within :data:`READ_LIMIT` (ApiError 413
        past it: the file is too long to be read here)."""
        # Reading is what the sender waits for: at the server's own priority, but apart.
        pool = shared("readers", warm=(_warm, ()), niceness=0)
        executor = pool.executor()
        try:
            await asyncio.wait_for(asyncio.gather(*map(asyncio.wrap_future, pool.warming)), STARTUP)
            future = executor.submit(read_upload, name, data, self.max_decisions)
            return await result_within(future, READ_LIMIT)
        except TimeoutError as exc:  # the start's, or the reading's (WorkerTimeout)
            pool.discard(executor)
            raise ApiError(413, "too_long", "the file takes too long to read") from exc
        except BrokenProcessPool as exc:
            pool.discard(executor)
            raise ApiError(503, "unavailable", "the file could not be read now") from exc

    def start(self, row: UploadRow, record: MatchRecord, client: str = "") -> None:
        """Analyse ``record`` in the worker (once at a time per upload in this process)."""
        job = self.running.get(row.id)
        if job is not None and not job.done():
            return
        out = self.folder / f"{row.id}.json"
        job = analysis_pool().submit(
            _job, record, str(out), row.plies, row.verify, row.text, self.engine
        )
        job.add_done_callback(lambda j: self._keep(row.id, j))
        self.running[row.id] = job
        self.clients[row.id] = client

    def status(self, row: UploadRow) -> dict[str, Any] | None:
        """The status of ``row``'s analysis if this process runs or ran it (None if not,
        or if it is done and moved into the database: read the row again)."""
        job = self.running.get(row.id)
        if job is None:
            return None
        out = self.folder / f"{row.id}.json"
        # Done but not yet moved into the database by ``_keep``: still running.
        if not job.done() or (job.exception() is None and out.exists()):
            ahead = analysis_pool().ahead(job)
            return {"status": "running", "progress": progress_of(out)} | (
                {"queue": ahead} if ahead else {}
            )
        if job.exception() is not None:
            return {"status": "failed", "error": str(job.exception())}
        return None

    def close(self) -> None:
        """Remove the progress folder (the server is ending)."""
        shutil.rmtree(self.folder, ignore_errors=True)
