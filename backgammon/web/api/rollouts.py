"""The rollout routes: ``POST /api/rollouts`` rolls out the plays of a position's dice, its
cube decision or the position itself; ``GET /api/rollouts/{id}`` tells its progress and then
its result; ``DELETE`` cancels it.  Each client address has its own token bucket."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request

from backgammon.web.api.players import COOKIE
from backgammon.web.errors import ApiError
from backgammon.web.guards import RateLimiter
from backgammon.web.schemas import RolloutIn
from backgammon.web.service.engine import match_of
from backgammon.web.service.fairness import EngineBar
from backgammon.web.service.rollouts import Rollouts, spec_of

__all__ = ["rollout_router"]


def rollout_router(
    rollouts: Rollouts, bar: EngineBar | None = None, limiter: RateLimiter | None = None
) -> APIRouter:
    """The ``/api/rollouts`` routes over ``rollouts``, with their own rate limiter; ``bar``
    refuses them to a seat of a rated match in play."""
    router = APIRouter(prefix="/api/rollouts", tags=["rollouts"])
    limits = limiter if limiter is not None else RateLimiter(rate=0.5, burst=5)

    @router.post("", status_code=202)
    async def start(request: Request, spec: Annotated[RolloutIn, Body()]) -> dict[str, Any]:
        """Start a rollout; the answer holds its id, to ask for progress and the result."""
        client = request.client.host if request.client else "unknown"
        wait = limits.wait(client)
        if wait:
            raise ApiError(429, "rate_limited", f"too many rollouts: try again in {wait:.1f} s")
        if bar is not None:
            await bar.check(request.cookies.get(COOKIE), match_of(spec.id))
        return rollouts.view(rollouts.submit(spec_of(spec), client))

    @router.get("/{job_id}")
    async def status(job_id: str) -> dict[str, Any]:
        """``status`` queued (``queue``: its place, 1 next), running (``progress`` [done,
        total]), done (``result``, as ``backgammon rollout --json`` writes it), cancelled or
        failed (``error``)."""
        return rollouts.view(rollouts.job(job_id))

    @router.delete("/{job_id}")
    async def cancel(job_id: str) -> dict[str, Any]:
        """Cancel the rollout (a finished one stays as it is)."""
        job = rollouts.job(job_id)
        rollouts.cancel(job)
        return rollouts.view(job)

    return router
