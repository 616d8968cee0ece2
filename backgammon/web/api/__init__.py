"""The web's routes, and only its routes: each module is one ``APIRouter`` over the service
room (matches and pages, players, engine, analysis, uploads, position, rollouts)."""

from __future__ import annotations

from importlib import resources

from fastapi import Request
from fastapi.responses import JSONResponse, Response

__all__ = ["page", "seat_cookie", "seat_response"]


def page(name: str) -> str:
    """The static page ``name`` (its scripts fill it in through the API)."""
    return resources.files("backgammon.web").joinpath("static", name).read_text("utf-8")


def seat_cookie(response: Response, request: Request, match_id: str, token: str) -> None:
    """Set the cookie of a seat's token on ``response``: HttpOnly, SameSite=Lax, and Secure
    when the request came over HTTPS (behind a proxy: as a trusted proxy says)."""
    response.set_cookie(
        f"bg_{match_id}",
        token,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        max_age=90 * 24 * 3600,
    )


def seat_response(request: Request, match_id: str, seat: int, token: str) -> JSONResponse:
    """The answer that gives a seat of ``match_id``: its token, link and cookie."""
    link = f"/m/{match_id}/join/{token}"
    body = {"id": match_id, "seat": seat, "token": token, "link": link}
    response = JSONResponse(body, status_code=201)
    seat_cookie(response, request, match_id, token)
    return response
