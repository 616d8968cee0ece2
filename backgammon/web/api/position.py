"""The position editor's routes: its page, and the position an ID names or one edit of it
(:mod:`backgammon.web.service.position` makes the edits)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from fastapi.responses import HTMLResponse

from backgammon.web.api import page
from backgammon.web.schemas import PositionEdit
from backgammon.web.service.engine import match_of
from backgammon.web.service.position import edited, view

__all__ = ["position_router"]


def position_router() -> APIRouter:
    """The editor's page and its two endpoints."""
    router = APIRouter()

    @router.get("/position", response_class=HTMLResponse, include_in_schema=False)
    async def position_page() -> str:
        return page("position.html")

    @router.get("/api/position", tags=["position"])
    async def read(
        id: Annotated[str, Query(min_length=1, max_length=100, description="gnubg ID or XGID")],
    ) -> dict[str, Any]:
        """The position an ID names, as a game in play (the editor's view)."""
        return view(edited(match_of(id), PositionEdit(id=id)))

    @router.post("/api/position", tags=["position"])
    async def edit(change: Annotated[PositionEdit, Body()]) -> dict[str, Any]:
        """The position after one edit (the IDs, the board and the fields)."""
        return view(edited(match_of(change.id), change))

    return router
