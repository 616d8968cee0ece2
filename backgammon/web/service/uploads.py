"""Any match file reviewed in the browser: ``/analyse`` sends a .mat or SGF file (the body of
``POST /api/uploads?name=FILE``, at most :data:`MAX_BYTES`, read by the package's lenient
readers and checked by the rules before anything is kept); it is analysed in the analyses'
worker process, ``GET /api/uploads/{id}`` tells the progress and then gives the analysis, and
``/review/{id}`` is the review page, a link that can be shared.  The file and its analysis
are kept in the database (:meth:`~backgammon.web.store.Store.create_upload`); an analysis cut
short by a restart starts again when its page asks for it."""

from __future__ import annotations

import shutil
import tempfile
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from backgammon.records.convert import detect_format, format_of_name, read_any
from backgammon.records.matchfile import MatchFile, MatchFileError, to_match
from backgammon.web.errors import ApiError
from backgammon.web.service.analysis import (
    analysed,
    analysis_pool,
    progress_of,
    write_result,
)
from backgammon.web.service.review import annotate
from backgammon.web.store.database import Store, UploadRow

__all__ = ["MAX_BYTES", "MAX_RUNNING", "Uploads", "read_upload"]

MAX_BYTES = 1_000_000
"""The largest match file taken (a long session's .mat is well under 100 KB)."""

MAX_RUNNING = 4
"""Uploaded files analysed or waiting in this process at most; more are refused (429)."""

_SUFFIXES = (".mat", ".sgf", ".txt")
"""File names taken: the two formats, and a text export (its format told by its text)."""


def _job(record: MatchFile, out: str, plies: int, verify: str | None) -> None:
    """In the worker: analyse an uploaded file, each decision numbered as its move log."""
    result = analysed(record, out, plies, verify)
    annotate(result, to_match(record), record.players)
    write_result(out, result)


def read_upload(name: str, data: bytes) -> MatchFile:
    """The match file ``data`` called ``name``, read and replayed by the rules; ApiError 415
    for what is not a match file's name or text, 422 for a file that cannot be read."""
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
        record = read_any(text, detect_format(text, name if format_of_name(name) else None))
    except (MatchFileError, ValueError) as exc:
        raise ApiError(422, "unreadable", f"cannot read the match: {exc}") from exc
    if not any(g.actions for g in record.games):
        raise ApiError(422, "unreadable", "the file holds no game to analyse")
    return record


class Uploads:
    """The uploads of ``store`` analysed by this process: at most :data:`MAX_RUNNING` at a
    time, each once, its progress read from its file, its result moved into the database."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.folder = Path(tempfile.mkdtemp(prefix="backgammon-uploads-"))
        self.running: dict[str, Future[None]] = {}

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

    def admit(self) -> None:
        """Refuse (429) a new upload while :data:`MAX_RUNNING` are being analysed."""
        busy = sum(not job.done() for job in self.running.values())
        if busy >= MAX_RUNNING:
            raise ApiError(429, "busy", "too many files are being analysed: try again later")

    def start(self, row: UploadRow, record: MatchFile) -> None:
        """Analyse ``record`` in the worker (once at a time per upload in this process)."""
        job = self.running.get(row.id)
        if job is not None and not job.done():
            return
        out = self.folder / f"{row.id}.json"
        job = analysis_pool().submit(_job, record, str(out), row.plies, row.verify)
        job.add_done_callback(lambda j: self._keep(row.id, j))
        self.running[row.id] = job

    def status(self, row: UploadRow) -> dict[str, Any] | None:
        """The status of ``row``'s analysis if this process runs or ran it (None if not,
        or if it is done and moved into the database: read the row again)."""
        job = self.running.get(row.id)
        if job is None:
            return None
        out = self.folder / f"{row.id}.json"
        # Done but not yet moved into the database by ``_keep``: still running.
        if not job.done() or (job.exception() is None and out.exists()):
            return {"status": "running", "progress": progress_of(out)}
        if job.exception() is not None:
            return {"status": "failed", "error": str(job.exception())}
        return None

    def close(self) -> None:
        """Remove the progress folder (the server is ending)."""
        shutil.rmtree(self.folder, ignore_errors=True)
