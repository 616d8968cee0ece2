"""Any match file reviewed in the browser: ``/analyse`` sends a .mat or SGF file (the body of
``POST /api/uploads?name=FILE``, at most :data:`MAX_BYTES`, read by the package's lenient
readers and checked by the rules before anything is kept); it is analysed in the analyses'
worker process, ``GET /api/uploads/{id}`` tells the progress and then gives the analysis, and
``/review/{id}`` is the review page, a link that can be shared.  The file and its analysis
are kept in the database (:meth:`~backgammon.web.store.Store.create_upload`); an analysis cut
short by a restart starts again when its page asks for it."""

from __future__ import annotations

import asyncio
import json
import secrets
import tempfile
import time
from concurrent.futures import Future
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse

from backgammon.records.convert import detect_format, format_of_name, read_any
from backgammon.records.matchfile import MatchFile, MatchFileError, to_match
from backgammon.web.analysis import PLIES, analysed, analysis_pool, progress_of, write_result
from backgammon.web.errors import ApiError
from backgammon.web.review import annotate
from backgammon.web.store import Store, UploadRow

__all__ = ["MAX_BYTES", "upload_router"]

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


def _page(name: str) -> str:
    return resources.files("backgammon.web").joinpath("static", name).read_text("utf-8")


async def _body(request: Request) -> bytes:
    """The request's body, refused with 413 as soon as it is known to pass MAX_BYTES (by its
    Content-Length before anything is read, else while it is read)."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BYTES:
        raise ApiError(413, "too_large", f"a match file is at most {MAX_BYTES:,} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data.extend(chunk)
        if len(data) > MAX_BYTES:
            raise ApiError(413, "too_large", f"a match file is at most {MAX_BYTES:,} bytes")
    return bytes(data)


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


def upload_router(store: Store) -> APIRouter:
    """The upload endpoints and pages over ``store`` (the app's server from
    ``request.app.state.server`` runs the database calls)."""
    router = APIRouter()
    folder = Path(tempfile.mkdtemp(prefix="backgammon-uploads-"))
    running: dict[str, Future[None]] = {}

    def keep(upload_id: str, job: Future[None]) -> None:
        """When the worker is done, its result (or its failure) goes into the database."""
        out = folder / f"{upload_id}.json"
        if job.cancelled():
            return
        error = job.exception()
        if error is not None:
            store.finish_upload(upload_id, None, str(error) or type(error).__name__)
        elif out.exists():
            store.finish_upload(upload_id, out.read_text(), None)
            out.unlink(missing_ok=True)

    def start(row: UploadRow, record: MatchFile) -> None:
        """Analyse ``record`` in the worker (once at a time per upload in this process)."""
        job = running.get(row.id)
        if job is not None and not job.done():
            return
        out = folder / f"{row.id}.json"
        job = analysis_pool().submit(_job, record, str(out), row.plies, row.verify)
        job.add_done_callback(lambda j: keep(row.id, j))
        running[row.id] = job

    async def row_of(request: Request, upload_id: str) -> UploadRow:
        row = await request.app.state.server.db(store.upload, upload_id)
        if row is None:
            raise ApiError(404, "not_found", "there is no such review")
        return row  # type: ignore[no-any-return]

    @router.get("/analyse", response_class=HTMLResponse, include_in_schema=False)
    async def analyse_page() -> str:
        return _page("analyse.html")

    @router.get("/review/{upload_id}", response_class=HTMLResponse, include_in_schema=False)
    async def review_page(request: Request, upload_id: str) -> str:
        await row_of(request, upload_id)
        return _page("analysis.html")

    @router.post("/api/uploads", status_code=202)
    async def upload(
        request: Request,
        name: Annotated[str, Query(min_length=1, max_length=200, description="the file's name")],
        plies: Annotated[int, Query(ge=0, le=2, description="the depth (0, 1 or 2)")] = PLIES,
        verify: Annotated[
            Literal["doubtful", "bad", "very bad"] | None,
            Query(description="roll out again the decisions marked this badly or worse"),
        ] = None,
    ) -> JSONResponse:
        """Send a .mat or SGF file (the body) to be analysed; the answer names its review."""
        busy = sum(not job.done() for job in running.values())
        if busy >= MAX_RUNNING:
            raise ApiError(429, "busy", "too many files are being analysed: try again later")
        data = await _body(request)
        record = await asyncio.to_thread(read_upload, name, data)
        text = data.decode("utf-8-sig")
        row = UploadRow(secrets.token_urlsafe(8), time.time(), name, text, plies, verify=verify)
        await request.app.state.server.db(store.create_upload, row, write=True)
        start(row, record)
        body = {"id": row.id, "status": "running", "review": f"/review/{row.id}"}
        return JSONResponse(body, status_code=202)

    @router.get("/api/uploads/{upload_id}")
    async def status(request: Request, upload_id: str) -> dict[str, Any]:
        """``status`` running (``progress`` [done, total]), done (``analysis``) or failed
        (``error``), with the file's ``name``."""
        row = await row_of(request, upload_id)
        base = {"name": row.name, "plies": row.plies, "verify": row.verify}
        job = running.get(upload_id)
        if job is not None:
            out = folder / f"{upload_id}.json"
            # Done but not yet moved into the database by ``keep``: still running.
            if not job.done() or (job.exception() is None and out.exists()):
                return base | {"status": "running", "progress": progress_of(out)}
            if job.exception() is not None:
                return base | {"status": "failed", "error": str(job.exception())}
            row = await row_of(request, upload_id)  # as ``keep`` left it
        if row.analysis is not None:
            return base | {"status": "done", "analysis": json.loads(row.analysis)}
        if row.error is not None:
            return base | {"status": "failed", "error": row.error}
        # Kept but never finished here (the server restarted meanwhile): analyse it again.
        record = await asyncio.to_thread(read_upload, row.name, row.text.encode("utf-8"))
        start(row, record)
        return base | {"status": "running", "progress": [0, 0]}

    return router
