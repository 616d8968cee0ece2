"""The web face: ``backgammon serve`` — play in the browser against the bot or a friend.

``create_app(database)`` builds the ASGI application; :func:`serve` runs it with uvicorn.
"""

from __future__ import annotations

from backgammon.web.app import create_app

__all__ = ["create_app", "serve"]


def serve(host: str = "127.0.0.1", port: int = 8000, database: str = "backgammon.sqlite3") -> None:
    """Run the web server until interrupted (matches are kept in ``database``)."""
    import uvicorn

    uvicorn.run(create_app(database), host=host, port=port, log_level="info")
