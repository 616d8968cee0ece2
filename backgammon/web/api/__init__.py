"""The web's routes, and only its routes: each module is one ``APIRouter`` over the service
room (matches and pages, players, engine, analysis, uploads, position, rollouts)."""

from __future__ import annotations

from importlib import resources

__all__ = ["page"]


def page(name: str) -> str:
    """The static page ``name`` (its scripts fill it in through the API)."""
    return resources.files("backgammon.web").joinpath("static", name).read_text("utf-8")
