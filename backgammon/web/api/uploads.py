"""The upload routes: ``/analyse`` sends a .mat or SGF file (the body of
``POST /api/uploads?name=FILE``), ``GET /api/uploads/{id}`` tells the progress of its
analysis and then gives it, and ``/review/{id}`` is the review page, a link that can be
shared."""

from __future__ import annotations

import json
import secrets
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse

from backgammon.web.api import page
from backgammon.web.api.players import COOKIE
from backgammon.web.errors import ApiError
from backgammon.web.service.analysis import PLIES
from backgammon.web.service.fairness import EngineBar
from backgammon.web.service.server import Server
from backgammon.web.service.uploads import MAX_BYTES, STALE, Uploads
from backgammon.web.store.database import UploadRow

__all__ = ["upload_router"]


async def body_of(request: Request) -> bytes:
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


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def upload_router(server: Server, uploads: Uploads, bar: EngineBar | None = None) -> APIRouter:
    """The upload endpoints and pages over ``uploads``; ``bar`` refuses an analysis to a
    seat of a rated match in play."""
    router = APIRouter()
    store = uploads.store

    async def row_of(upload_id: str) -> UploadRow:
        row = await server.db(store.upload, upload_id)
        if row is None:
            raise ApiError(404, "not_found", "there is no such review")
        return row

    @router.get("/analyse", response_class=HTMLResponse, include_in_schema=False)
    async def analyse_page() -> str:
        return page("analyse.html")

    @router.get("/review/{upload_id}", response_class=HTMLResponse, include_in_schema=False)
    async def review_page(upload_id: str) -> str:
        await row_of(upload_id)
        return page("analysis.html")

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
        client = _client(request)
        if bar is not None:
            await bar.check(request.cookies.get(COOKIE))
        uploads.admit(client)
        data = await body_of(request)
        record = await uploads.read(name, data)
        text = data.decode("utf-8-sig")
        now = time.time()
        row = UploadRow(
            secrets.token_urlsafe(8), now, name, text, plies, verify=verify, started=now
        )
        await server.db(store.create_upload, row, write=True)
        uploads.start(row, record, client)
        body = {"id": row.id, "status": "running", "review": f"/review/{row.id}"}
        return JSONResponse(body, status_code=202)

    @router.get("/api/uploads/{upload_id}")
    async def status(upload_id: str, request: Request) -> dict[str, Any]:
        """``status`` running (``progress`` [done, total]; ``queue``: the analyses ahead of
        it while it waits), done (``analysis``) or failed (``error``), with the file's
        ``name``."""
        row = await row_of(upload_id)
        base = {"name": row.name, "plies": row.plies, "verify": row.verify}
        here = uploads.status(row)
        if here is not None:
            return base | here
        if upload_id in uploads.running:
            row = await row_of(upload_id)  # as the worker's result left it
        if row.analysis is not None:
            return base | {"status": "done", "analysis": json.loads(row.analysis)}
        if row.error is not None:
            return base | {"status": "failed", "error": row.error}
        # Unfinished and not analysed here: another process is on it (it said so lately),
        # or none is (the server restarted meanwhile) and this one takes it up.
        if not await server.db(store.claim_upload, upload_id, time.time(), STALE, write=True):
            return base | {"status": "running", "progress": [0, 0]}
        record = await uploads.read(row.name, row.text.encode("utf-8"))
        uploads.start(row, record, _client(request))
        return base | {"status": "running", "progress": [0, 0]}

    return router
