"""An engine named on the command line: ``gnubg``, ``gnubg:2`` (its plies), ``ubgi:CMD``
(any UBGI engine's command), or one of our bots (``neural``, ``neural:2``, ``pubeval``).
"""

from __future__ import annotations

from backgammon.engine.base import SimpleEngine
from backgammon.engine.bot import BotProtocol
from backgammon.players import UnknownPlayerError, get

__all__ = ["EngineNameError", "open_engine"]


class EngineNameError(ValueError):
    """An engine name that is not ``gnubg[:PLIES]``, ``ubgi:CMD`` or one of our bots."""


def _plies(text: str, name: str) -> int:
    if not text.isdigit() or int(text) > 7:
        raise EngineNameError(f"engine {name!r}: plies are 0-7, not {text!r}")
    return int(text)


def open_engine(name: str, *, timeout: float | None = None) -> SimpleEngine:
    """The engine ``name`` started and ready (close it when done)."""
    kind, sep, rest = name.strip().partition(":")
    kind = kind.lower()
    extra = {} if timeout is None else {"timeout": timeout}
    if kind == "gnubg":
        plies = _plies(rest, name) if sep else None
        return SimpleEngine.popen_gnubg(plies=plies, **extra)
    if kind == "ubgi":
        if not rest.strip():
            raise EngineNameError(f"engine {name!r}: give the command, as ubgi:CMD")
        return SimpleEngine.popen_ubgi(rest, **extra)
    try:
        player = get(kind, plies=_plies(rest, name)) if sep else get(kind)
    except UnknownPlayerError as exc:
        raise EngineNameError(
            f"unknown engine {name!r}; choose gnubg, gnubg:PLIES, ubgi:CMD or one of our bots"
        ) from exc
    return SimpleEngine(BotProtocol(player))
