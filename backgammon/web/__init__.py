"""The web face: ``backgammon serve`` — play in the browser against the bot or a friend.

``create_app(database)`` builds the ASGI application; :func:`serve` runs it with uvicorn, in
one process or several (``workers``) sharing one port and one database.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI

from backgammon.web.app import create_app

__all__ = ["app_from_environment", "create_app", "serve", "server_options"]


def _server_process(app: FastAPI) -> FastAPI:
    """Tune a server process once ``app`` is built: the database threads hand the
    interpreter lock back to the event loop within 1 ms rather than Python's default 5 ms,
    which a request waiting for the loop would otherwise add; and what was loaded to start
    (modules, the bot's tables) is frozen out of the garbage collector's full passes, whose
    pauses every request waiting meanwhile would otherwise take on."""
    sys.setswitchinterval(0.001)
    gc.freeze()
    return app


def app_from_environment() -> FastAPI:
    """The application of one of several worker processes: ``BACKGAMMON_DATABASE`` and
    ``BACKGAMMON_BOT_PROCESSES`` (and ``BACKGAMMON_ENGINE``, ``BACKGAMMON_ANALYSIS_PLIES``)
    say what ``serve`` was given."""
    return _server_process(
        create_app(
            os.environ.get("BACKGAMMON_DATABASE", "backgammon.sqlite3"),
            bot_processes=int(os.environ.get("BACKGAMMON_BOT_PROCESSES", "2")),
            engine=os.environ.get("BACKGAMMON_ENGINE") or None,
            analysis_plies=int(os.environ.get("BACKGAMMON_ANALYSIS_PLIES", "2")),
            warm_engine=True,
        )
    )


def server_options(trusted_proxies: Sequence[str] = ()) -> dict[str, Any]:
    """uvicorn's options for the server: ``X-Forwarded-For`` and ``-Proto`` are read only
    from the ``trusted_proxies`` the operator names (none by default: uvicorn's own default
    believes them from 127.0.0.1, so anyone behind a local proxy that does not set them could
    pick their address and dodge the per-address limits)."""
    # States are a few KB sent to every watcher after every action: compressing each one
    # costs the loop more than the loopback or a LAN saves; a reverse proxy logs requests.
    options: dict[str, Any] = {"ws_per_message_deflate": False, "access_log": False}
    if trusted_proxies:
        options |= {"proxy_headers": True, "forwarded_allow_ips": ",".join(trusted_proxies)}
    else:
        options |= {"proxy_headers": False, "forwarded_allow_ips": ""}
    return options


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    database: str = "backgammon.sqlite3",
    *,
    workers: int = 1,
    bot_processes: int = 2,
    trusted_proxies: Sequence[str] = (),
    engine: str | None = None,
    analysis_plies: int = 2,
) -> None:
    """Run the web server until interrupted (matches are kept in ``database``), in
    ``workers`` processes behind one port, each with ``bot_processes`` bot workers; the
    forwarded client address and scheme are believed only from ``trusted_proxies``;
    ``engine`` (``gnubg[:PLIES]``, off by default) plays in the lobby and judges beside us;
    a match's review is made at ``analysis_plies``."""
    import uvicorn

    options = server_options(trusted_proxies)
    if workers == 1:
        app = _server_process(
            create_app(
                database,
                bot_processes=bot_processes,
                engine=engine,
                analysis_plies=analysis_plies,
                warm_engine=True,
            )
        )
        uvicorn.run(app, host=host, port=port, log_level="info", **options)
        return
    from backgammon.web.store.database import Store

    Store(database).close()  # a database that cannot be opened is said here, once
    os.environ["BACKGAMMON_DATABASE"] = database
    os.environ["BACKGAMMON_BOT_PROCESSES"] = str(bot_processes)
    os.environ["BACKGAMMON_ENGINE"] = engine or ""
    os.environ["BACKGAMMON_ANALYSIS_PLIES"] = str(analysis_plies)
    uvicorn.run(
        "backgammon.web:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
        **options,
    )
