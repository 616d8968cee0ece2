"""The engine's routes: ``GET /api/engine/hint`` ranks the plays of a rolled position, or
gives the cube decision, and ``GET /api/engine/eval`` judges it, for a position named by XGID
or gnubg ID.  Each client address has a small token bucket, so one client cannot keep the
engine busy; errors are ``{"error": {"code", "message"}}`` with a 4xx status."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from backgammon.play.match import Phase
from backgammon.web.api.players import COOKIE
from backgammon.web.errors import ApiError
from backgammon.web.guards import RateLimiter
from backgammon.web.service.engine import MAX_PLAYS, evaluation, hint, match_in, think
from backgammon.web.service.fairness import EngineBar

__all__ = ["engine_router"]

Xgid = Annotated[str | None, Query(max_length=200, description="an XGID")]
GnubgId = Annotated[str | None, Query(max_length=200, description="a gnubg ID, PositionID:MatchID")]
Plies = Annotated[int, Query(ge=0, le=2, description="lookahead (0, 1 or 2)")]
Count = Annotated[int, Query(ge=1, le=MAX_PLAYS, description="plays listed at most")]


def engine_router(bar: EngineBar | None = None, limiter: RateLimiter | None = None) -> APIRouter:
    """The ``/api/engine`` routes, with their own rate limiter; ``bar`` refuses them to a
    seat of a rated match in play."""
    router = APIRouter(prefix="/api/engine", tags=["engine"])
    limits = limiter if limiter is not None else RateLimiter()

    def admit(request: Request) -> None:
        """Refuse (429, with Retry-After) a client over its rate."""
        client = request.client.host if request.client else "unknown"
        wait = limits.wait(client)
        if wait:
            raise ApiError(
                429,
                "rate_limited",
                f"too many engine requests: try again in {wait:.1f} s",
                {"Retry-After": str(max(1, round(wait)))},
            )

    @router.get("/hint")
    async def engine_hint(
        request: Request,
        xgid: Xgid = None,
        gnubgid: GnubgId = None,
        plies: Plies = 0,
        count: Count = MAX_PLAYS,
    ) -> dict[str, Any]:
        """The best ``count`` plays of the dice of the position, all judged at ``plies``
        (``backgammon hint``'s list), or its cube decision."""
        admit(request)
        match = match_in(xgid, gnubgid, (Phase.ROLL, Phase.MOVE, Phase.DOUBLED))
        if bar is not None:
            await bar.check(request.cookies.get(COOKIE), match)
        return await think(hint, match, plies, count)

    @router.get("/eval")
    async def engine_eval(
        request: Request, xgid: Xgid = None, gnubgid: GnubgId = None, plies: Plies = 0
    ) -> dict[str, Any]:
        """The position judged for the side on roll, before its roll: the five cubeless
        probabilities, the equity and the cube (``backgammon eval``'s numbers)."""
        admit(request)
        match = match_in(xgid, gnubgid, (Phase.ROLL, Phase.MOVE))
        if bar is not None:
            await bar.check(request.cookies.get(COOKIE), match)
        return await think(evaluation, match, plies)

    return router
