"""The web application put together: the store, the live server and its services, the guards
in front, the error answers (``{"error": {"code", "message"}}``, or a page for a browser) and
the routers of :mod:`backgammon.web.api`.  It holds no route of its own."""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from importlib import resources

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from backgammon._version import __version__
from backgammon.web.api.analysis import analysis_router
from backgammon.web.api.docs import add_docs
from backgammon.web.api.engine import engine_router
from backgammon.web.api.matches import matches_router
from backgammon.web.api.players import players_router
from backgammon.web.api.position import position_router
from backgammon.web.api.rollouts import rollout_router
from backgammon.web.api.uploads import upload_router
from backgammon.web.errors import ApiError, BodyLimit, validation_message
from backgammon.web.errors import body as error_body
from backgammon.web.guards import LoginLimiter, SameOrigin, SecurityHeaders
from backgammon.web.schemas import API_DOC, BOTS
from backgammon.web.service import jobs
from backgammon.web.service.analysis import PLIES, Analyses
from backgammon.web.service.bots import BotPool
from backgammon.web.service.engine import warm as warm_hints
from backgammon.web.service.fairness import EngineBar
from backgammon.web.service.gnubg import check_engine, engine_label
from backgammon.web.service.passwords import Passwords
from backgammon.web.service.rollouts import Rollouts
from backgammon.web.service.server import Server
from backgammon.web.service.uploads import HEARTBEAT, Uploads
from backgammon.web.store.accounts import Accounts
from backgammon.web.store.database import STORAGE_FAILURES, Store

__all__ = ["Services", "answer_errors", "create_app"]

_log = logging.getLogger("backgammon.web")


@dataclass
class Services:
    """What one application serves from: its store and accounts, the live server, and the
    analyses, uploads, rollouts and password hashing it runs."""

    store: Store
    accounts: Accounts
    server: Server
    analyses: Analyses
    uploads: Uploads
    rollouts: Rollouts
    passwords: Passwords

    @classmethod
    def open(
        cls,
        database: str,
        bot_processes: int,
        bot_timeout: float,
        bot_stall: float,
        engine: str | None = None,
        clock: Callable[[], float] = time.time,
        analysis_plies: int = PLIES,
    ) -> Services:
        """The services over ``database``, bots in ``bot_processes`` workers, the matches'
        clocks on ``clock``, their reviews at ``analysis_plies``; with an ``engine``
        (``gnubg[:PLIES]``) it is a bot too and judges beside us."""
        store = Store(database)
        names = dict(BOTS)
        if engine is not None:
            engine = check_engine(engine)
            names[engine] = engine_label(engine)
        pool = BotPool(bot_processes, bot_timeout, names=names)
        server = Server(store, pool, bot_stall=bot_stall, clock=clock)
        accounts = Accounts(store, names)
        server.accounts = accounts
        analyses, uploads = Analyses(store, engine, analysis_plies), Uploads(store, engine)
        return cls(store, accounts, server, analyses, uploads, Rollouts(), Passwords())

    async def resume(self) -> None:
        """A bot whose turn it was when the server died plays on; updates are watched."""
        unfinished = await self.server.db(lambda: self.store.match_ids(unfinished_bot_matches=True))
        await self.server.resume_bots(unfinished)
        await self.server.watch()

    async def heartbeat(self) -> None:
        """Say in the store which uploads this process is analysing, every
        :data:`~backgammon.web.service.uploads.HEARTBEAT` seconds (another process then
        waits for them instead of starting them again)."""
        while True:
            await asyncio.sleep(HEARTBEAT)
            active = self.uploads.active()
            if active:
                with contextlib.suppress(*STORAGE_FAILURES):
                    await self.server.db(
                        self.store.still_analysing, active, time.time(), write=True
                    )

    def close(self) -> None:
        """Stop everything (the server is ending): the worker pools last."""
        self.server.close()
        self.store.close()
        self.analyses.close()
        self.uploads.close()
        self.rollouts.close()
        self.passwords.close()
        jobs.shutdown()


def _wants_page(request: Request) -> bool:
    """A browser asking for a page (not the API, not a script): errors come as a page."""
    path = request.url.path
    return not path.startswith(("/api/", "/static/")) and "text/html" in request.headers.get(
        "accept", ""
    )


def _error_page(status: int, message: str) -> HTMLResponse:
    """An error as a page in the site's style, with the way back home."""
    title = {404: "Not found"}.get(status, "Something went wrong")
    page = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{title} · backgammon</title><script src='/static/theme.js'></script>"
        "<link rel='stylesheet' href='/static/page.css'>"
        "<style>main{max-width:560px;margin:0 auto;padding:1.2rem}</style></head><body><main>"
        f"<h1>{title}</h1><p>{html.escape(message)}</p>"
        "<p><a href='/'>Back to the lobby</a></p></main></body></html>"
    )
    return HTMLResponse(page, status_code=status)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    if _wants_page(request):
        return _error_page(exc.status, exc.message)
    body = error_body(exc.code, exc.message)
    return JSONResponse(body, status_code=exc.status, headers=exc.headers)


async def _bad_request(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return JSONResponse(error_body("malformed_json", "the body is not JSON"), status_code=400)
    return JSONResponse(error_body("invalid_request", validation_message(errors)), 400)


async def _storage(_request: Request, exc: Exception) -> JSONResponse:
    _log.warning("storage unavailable: %s", exc)
    message = "the match store cannot be reached or written now: try again shortly"
    return JSONResponse(error_body("storage", message), status_code=503)


async def _internal(_request: Request, exc: Exception) -> JSONResponse:
    _log.error("internal error", exc_info=exc)
    return JSONResponse(error_body("internal", "internal server error"), status_code=500)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if _wants_page(request):
        return _error_page(exc.status_code, str(exc.detail))
    codes = {404: "not_found", 405: "method_not_allowed"}
    code = codes.get(exc.status_code, "http_error")
    return JSONResponse(
        error_body(code, str(exc.detail)), status_code=exc.status_code, headers=exc.headers
    )


def answer_errors(app: FastAPI) -> None:
    """Every error as the one shape: 4xx for the client's, 503 for a database down or
    read-only (never a 500), 500 for the server's own."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _bad_request)
    for failure in STORAGE_FAILURES:
        app.add_exception_handler(failure, _storage)
    app.add_exception_handler(Exception, _internal)
    app.add_exception_handler(StarletteHTTPException, _http_error)


def create_app(
    database: str = "backgammon.sqlite3",
    *,
    bot_processes: int = 2,
    bot_timeout: float = 10.0,
    bot_stall: float = 15.0,
    engine: str | None = None,
    clock: Callable[[], float] = time.time,
    warm_engine: bool = False,
    analysis_plies: int = PLIES,
) -> FastAPI:
    """The ASGI application over ``database``: an SQLite file (a path or sqlite:/// URL) or
    ``postgresql://...``.  Bots think in ``bot_processes`` worker processes, ``bot_timeout``
    seconds per attempt; a bot left due for ``bot_stall`` seconds is started again.  An
    ``engine`` (``gnubg`` or ``gnubg:PLIES``; none by default) is a bot in the lobby and
    judges every analysis beside ours; a match's review is made at ``analysis_plies`` (0-2).
    ``clock`` is the time the match clocks and
    invitations run on (tests inject theirs); ``warm_engine`` (the served server) loads
    the hints' engine as it starts."""
    services = Services.open(
        database, bot_processes, bot_timeout, bot_stall, engine, clock, analysis_plies
    )
    server = services.server
    server.ended = services.analyses.start  # a finished match's review starts by itself

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        server.bots.warm()
        with contextlib.suppress(*STORAGE_FAILURES):  # before serving; else at the next start
            await server.rate_unrated()
        if warm_engine:  # the first hint after a start is not the one that loads the network
            warm_hints()
        tasks = [asyncio.create_task(services.resume()), asyncio.create_task(services.heartbeat())]
        yield
        for task in tasks:
            task.cancel()
        services.close()

    app = FastAPI(
        title="backgammon",
        description=API_DOC,
        version=__version__,
        lifespan=lifespan,
        docs_url=None,  # add_docs serves them with local files, not a CDN's
        redoc_url=None,
    )
    app.state.server, app.state.services = server, services
    app.add_middleware(BodyLimit)
    app.add_middleware(SameOrigin)
    app.add_middleware(SecurityHeaders)
    answer_errors(app)
    passwords = services.passwords
    app.include_router(players_router(server, services.accounts, LoginLimiter(), passwords))
    bar = EngineBar(server, services.accounts)
    app.include_router(engine_router(bar))
    app.include_router(analysis_router(server, services.analyses, bar))
    app.include_router(upload_router(server, services.uploads, bar))
    app.include_router(position_router())
    app.include_router(rollout_router(services.rollouts, bar))
    app.include_router(matches_router(server, services.accounts, services.store))
    add_docs(app)
    static = str(resources.files("backgammon.web").joinpath("static"))
    app.mount("/static", StaticFiles(directory=static), name="static")
    return app
