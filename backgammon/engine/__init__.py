"""Engines: one interface for our bots, GNU Backgammon and any UBGI engine, as
python-chess's ``chess.engine`` drives UCI engines (docs/engines.md).

    >>> from backgammon import Position
    >>> from backgammon.engine import open_engine
    >>> with open_engine("neural") as engine:
    ...     engine.choose(Position.initial(), (3, 1))
    Move('8/5 6/5')
"""

from __future__ import annotations

from backgammon.engine.base import (
    NO_LIMIT,
    EngineCapabilityError,
    EnginePlayer,
    EngineProtocol,
    Evaluation,
    Limit,
    LimitError,
    SimpleEngine,
)
from backgammon.engine.bot import BotProtocol
from backgammon.engine.names import EngineNameError, open_engine
from backgammon.engine.process import (
    EngineError,
    EngineOutputError,
    EngineTerminatedError,
    EngineTimeoutError,
)

__all__ = [
    "NO_LIMIT",
    "BotProtocol",
    "EngineCapabilityError",
    "EngineError",
    "EngineNameError",
    "EngineOutputError",
    "EnginePlayer",
    "EngineProtocol",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "Evaluation",
    "Limit",
    "LimitError",
    "SimpleEngine",
    "open_engine",
]
