"""Match analysis in the browser: ``POST /api/matches/{id}/analysis`` starts it in a worker
process (never on the server's event loop), ``GET`` reports progress and, when done, the
analysis (:func:`backgammon.judging.analysis.analyse`, as ``backgammon analyse --json`` writes it);
``/m/{id}/analysis`` is the page that shows it.  A finished match can be analysed, and a
match against the bot while it is played; between two people only once it is over (hints
are off until then).  Results are stored in the database (any server process reads them);
progress is a file the worker writes in a temporary folder of this process."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from backgammon.play.match import Match
from backgammon.records import matchfile
from backgammon.records.matchfile import MatchFile
from backgammon.web.bots import NICENESS
from backgammon.web.game import Game
from backgammon.web.review import annotate
from backgammon.web.store import Store
from backgammon.workers import start_pool, stop_pool

__all__ = [
    "PLIES",
    "analysed",
    "analysis_pool",
    "analysis_router",
    "progress_of",
    "replay_steps",
    "shutdown_analyses",
    "write_result",
]

PLIES = 2
"""The depth of the web analysis (the terminal's default)."""
NAMES = 100
"""The longest player name a board is drawn with (a match file's names may pass the web's
31 characters)."""

_pool: ProcessPoolExecutor | None = None
_folders: list[Path] = []
"""The progress folders of this process's routers, removed at shutdown."""


def analysis_pool() -> ProcessPoolExecutor:
    """One worker process for analyses, started on first use, at the bots' lower priority
    (people's requests come first)."""
    global _pool
    if _pool is None:
        _pool = start_pool(1, niceness=NICENESS)
    return _pool


def shutdown_analyses() -> None:
    """Stop the worker process and remove the progress folders (the server is shutting
    down)."""
    global _pool
    if _pool is not None:
        stop_pool(_pool, wait=True)
        _pool = None
    while _folders:
        shutil.rmtree(_folders.pop(), ignore_errors=True)


def _submit(*args: Any) -> Future[None]:
    """``_job(*args)`` in the worker; a worker that died (killed, out of memory) is replaced
    once, as the bots' pool does, instead of failing every later analysis."""
    global _pool
    try:
        return analysis_pool().submit(_job, *args)
    except BrokenProcessPool:
        if _pool is not None:
            stop_pool(_pool)
        _pool = None
        return analysis_pool().submit(_job, *args)


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


def _job(record: MatchFile, game: Game, out: str, plies: int) -> None:
    """In the worker: analyse a web match, with each decision's replay step and log line."""
    result = analysed(record, out, plies)
    result["seq"] = game.seq
    replay_steps(game, result["decisions"])
    annotate(result, game.match, game.names)
    write_result(out, result)


def _page() -> str:
    return resources.files("backgammon.web").joinpath("static", "analysis.html").read_text("utf-8")


def analysis_router(store: Store) -> APIRouter:
    """The analysis endpoints for the matches of ``store`` (the app's server is read
    from ``request.app.state.server``)."""
    router = APIRouter()
    folder = Path(tempfile.mkdtemp(prefix="backgammon-analysis-"))
    _folders.append(folder)
    running: dict[str, Future[None]] = {}
    failed: dict[str, str] = {}

    def keep(match_id: str, seq: int, job: Future[None]) -> None:
        """When the worker is done, its result goes into the database (or, if it cannot be
        stored, the status says failed and why)."""
        out = out_path(match_id)
        if job.cancelled() or job.exception() is not None or not out.exists():
            return
        try:
            store.save_analysis(match_id, seq, out.read_text())
        except Exception as exc:  # a read-only or unreachable store: reported, not "running"
            failed[match_id] = f"the analysis could not be stored: {exc}"
        out.unlink(missing_ok=True)

    def out_path(match_id: str) -> Path:  # only for ids the server has loaded
        return folder / f"{match_id}.json"

    async def live_of(request: Request, match_id: str) -> Any:
        return await request.app.state.server.load(match_id)

    @router.get("/m/{match_id}/analysis", response_class=HTMLResponse, include_in_schema=False)
    async def page(request: Request, match_id: str) -> str:
        await live_of(request, match_id)
        return _page()

    @router.post("/api/matches/{match_id}/analysis", status_code=202)
    async def start(request: Request, match_id: str) -> JSONResponse:
        """Start analysing the match (finished, or against the bot so far)."""
        live = await live_of(request, match_id)
        game = live.game
        if not game.is_over and live.row.bot is None:
            return _error(409, "not_over", "hints are off between two people until the end")
        job = running.get(match_id)
        if job is not None and not job.done():
            return JSONResponse({"status": "running"}, status_code=202)
        names = (game.names[0], game.names[1])  # as the match page names them
        record = matchfile.from_match(game.match, names)
        folder.mkdir(parents=True, exist_ok=True)
        out = out_path(match_id)
        seq = game.seq
        failed.pop(match_id, None)
        job = _submit(record, game.copy(dice=False), str(out), PLIES)
        job.add_done_callback(lambda j: keep(match_id, seq, j))
        running[match_id] = job
        return JSONResponse({"status": "running"}, status_code=202)

    @router.get("/api/matches/{match_id}/analysis")
    async def status(request: Request, match_id: str) -> dict[str, Any]:
        """``status`` none, running, done or failed; ``progress`` [done, total] while
        running; ``analysis`` when done (``seq``: how many actions it covers)."""
        live = await live_of(request, match_id)
        out = out_path(match_id)
        job = running.get(match_id)
        # Done but not yet moved into the database by ``keep``: still running.
        if job is not None and (not job.done() or (not job.exception() and out.exists())):
            return {"status": "running", "progress": progress_of(out)}
        if job is not None and job.exception() is not None:
            return {"status": "failed", "error": str(job.exception())}
        if match_id in failed:
            return {"status": "failed", "error": failed[match_id]}
        text = await request.app.state.server.db(store.analysis, match_id)
        if text is not None:
            data = json.loads(text)
            game = live.game
            current = data.get("seq") == game.seq
            return {"status": "done", "analysis": data, "current": current, "over": game.is_over}
        return {"status": "none"}

    @router.get("/api/analysis/board.svg")
    async def board(
        gnubg_id: Annotated[str, Query(max_length=100)],
        play: Annotated[str, Query(max_length=100)] = "",
        viewer: int = 0,
        name0: Annotated[str, Query(max_length=NAMES)] = "Player 0",
        name1: Annotated[str, Query(max_length=NAMES)] = "Player 1",
    ) -> Response:
        """The board of a decision from its gnubg ID, from ``viewer``'s side, the players
        named ``name0`` and ``name1``; with ``play`` (a play of the dice in the ID) the
        board after it."""
        try:
            m = Match.from_gnubg_id(gnubg_id)
            position = None
            if play and m.dice is not None:
                position = m.position.play(m.position.parse_move(play, m.dice)).flip()
            from backgammon.svg import match_svg

            svg = match_svg(
                m,
                viewer=viewer if viewer in (0, 1) else 0,
                position=position,
                names=(name0, name1),
            )
        except ValueError as exc:
            return _error(400, "bad_query", str(exc))
        return Response(svg, media_type="image/svg+xml")

    return router


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)
