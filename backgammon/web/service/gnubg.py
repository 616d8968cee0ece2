"""The server's engine (``backgammon serve --engine gnubg``, off by default): gnubg as a bot
in the lobby and as a second judge beside ours in the review.  Each worker process keeps one
gnubg, started on first use (:func:`engine`); a call has :data:`CALL_TIME` seconds (an
analysis :data:`ANALYSIS_TIME`), a crashed or hung gnubg is killed and the next call starts
a fresh one, and a worker's gnubg dies with it (:mod:`backgammon.engine.process`)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from backgammon.engine import EnginePlayer, Limit, SimpleEngine, open_engine
from backgammon.engine.gnubg import GnubgReport
from backgammon.play.record import MatchRecord
from backgammon.records.mat import write_record

__all__ = [
    "ANALYSIS_TIME",
    "CALL_TIME",
    "ServeEngineError",
    "check_engine",
    "engine",
    "engine_analysis",
    "engine_label",
    "engine_player",
    "is_engine",
]

CALL_TIME = 8.0
"""Seconds gnubg has for one decision as a bot (within the bot pool's 10 s an attempt)."""

ANALYSIS_TIME = 900.0
"""Seconds gnubg has to analyse a whole match (an upload holds at most 2,000 actions)."""

_open: dict[str, SimpleEngine] = {}


class ServeEngineError(ValueError):
    """An engine the server cannot take: it needs gnubg's numbers (``gnubg`` or
    ``gnubg:PLIES``, plies 0-7) for the review's column."""


def check_engine(name: str) -> str:
    """``name`` as the server keeps it (``gnubg`` or ``gnubg:N``), or ServeEngineError."""
    kind, sep, plies = name.strip().lower().partition(":")
    if kind != "gnubg" or (sep and not (plies.isdigit() and int(plies) <= 7)):
        raise ServeEngineError(
            f"the server's engine is gnubg or gnubg:PLIES (plies 0-7), not {name!r}"
        )
    return f"gnubg:{int(plies)}" if sep else "gnubg"


def is_engine(name: str) -> bool:
    """Whether the bot ``name`` of a match is the server's engine, not one of our bots."""
    return name.partition(":")[0] == "gnubg"


def engine_label(name: str) -> str:
    """The engine's name at the table and in the review: ``GNU Backgammon (2-ply)``."""
    _, sep, plies = name.partition(":")
    return f"GNU Backgammon ({plies}-ply)" if sep else "GNU Backgammon"


def engine(name: str) -> SimpleEngine:
    """This process's engine ``name``, started on first use and kept: one per worker."""
    if name not in _open:
        _open[name] = open_engine(check_engine(name), timeout=CALL_TIME)
    return _open[name]


def engine_player(name: str) -> EnginePlayer:
    """The engine as a bot: each decision within :data:`CALL_TIME` seconds."""
    return EnginePlayer(engine(name), Limit(time=CALL_TIME))


def engine_analysis(name: str, record: MatchRecord) -> GnubgReport:
    """gnubg's own ``analyse match`` of ``record`` (at the engine's plies, else gnubg's
    analysis settings), its verdicts read back from the SGF it saves."""
    with tempfile.TemporaryDirectory(prefix="backgammon-engine-") as folder:
        path = Path(folder) / "match.mat"
        path.write_text(write_record(record), encoding="utf-8")
        return engine(name).analyse_file(path, Limit(time=ANALYSIS_TIME))
