"""The analysis routes: ``POST /api/matches/{id}/analysis`` starts a match's analysis,
``GET`` reports its progress and, when done, the analysis; ``/m/{id}/analysis`` is the page
that shows it, ``/api/analysis/board.svg`` a decision's board.  A finished match can be
analysed, and a match against the bot while it is played; between two people only once it is
over (hints are off until then)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from backgammon.play.match import Match
from backgammon.web.api import page
from backgammon.web.api.players import COOKIE
from backgammon.web.errors import ApiError
from backgammon.web.service.analysis import Analyses
from backgammon.web.service.fairness import EngineBar
from backgammon.web.service.server import Server

__all__ = ["analysis_router"]

NAMES = 100
"""The longest player name a board is drawn with (a match file's names may pass the web's
31 characters)."""


def analysis_router(server: Server, analyses: Analyses, bar: EngineBar | None = None) -> APIRouter:
    """The analysis endpoints for the matches of ``server``; ``bar`` refuses an analysis to
    a seat of a rated match in play."""
    router = APIRouter()

    @router.get("/m/{match_id}/analysis", response_class=HTMLResponse, include_in_schema=False)
    async def analysis_page(match_id: str) -> str:
        await server.load(match_id)
        return page("analysis.html")

    @router.post("/api/matches/{match_id}/analysis", status_code=202)
    async def start(match_id: str, request: Request) -> JSONResponse:
        """Start analysing the match (finished, or an unrated one against the bot so far)."""
        live = await server.load(match_id)
        game = await server.refresh(live)
        if live.row.rated and not game.is_over:
            raise ApiError(403, "rated_in_play", "a rated match is analysed once it is over")
        if bar is not None:
            await bar.check(request.cookies.get(COOKIE))
        analyses.start(live)
        return JSONResponse({"status": "running"}, status_code=202)

    @router.get("/api/matches/{match_id}/analysis")
    async def status(match_id: str) -> dict[str, Any]:
        """``status`` none, running, done or failed; ``progress`` [done, total] while
        running (``queue``: the analyses ahead of it while it waits); ``analysis`` when done
        (``seq``: how many actions it covers)."""
        live = await server.load(match_id)
        return analyses.status(live, await server.db(analyses.store.analysis, match_id))

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
            raise ApiError(400, "bad_query", str(exc)) from exc
        return Response(svg, media_type="image/svg+xml")

    return router
