"""The API's documentation pages, Swagger UI at ``/docs`` and ReDoc at ``/redoc``, served
with their viewers' files from this server (the fastapi-offline package ships them), so they
work offline and load nothing from a CDN."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["FILES", "add_docs"]

FILES = "/docs-files"
"""Where the viewers' scripts, style and icon are served."""


def add_docs(app: FastAPI) -> None:
    """Serve ``/docs`` and ``/redoc`` for ``app`` (made with ``docs_url=None`` and
    ``redoc_url=None``) from the local viewer files."""
    router = APIRouter()
    title = f"{app.title} API"

    @router.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=str(app.openapi_url),
            title=title,
            swagger_js_url=f"{FILES}/swagger-ui-bundle.js",
            swagger_css_url=f"{FILES}/swagger-ui.css",
            swagger_favicon_url=f"{FILES}/favicon.png",
        )

    @router.get("/redoc", response_class=HTMLResponse, include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=str(app.openapi_url),
            title=title,
            redoc_js_url=f"{FILES}/redoc.standalone.js",
            redoc_favicon_url=f"{FILES}/favicon.png",
            with_google_fonts=False,
        )

    app.include_router(router)
    files = str(resources.files("fastapi_offline").joinpath("static"))
    app.mount(FILES, StaticFiles(directory=files), name="docs-files")
