"""backgammon: an exact rules engine agreeing with GNU Backgammon, with notations, match
files, bots, a terminal game and a web board.

The core is :class:`Position` (immutable, seen from the side to move) and :class:`Move`::

    >>> from backgammon import Position
    >>> pos = Position.initial()
    >>> len(pos.legal_moves((3, 1)))
    16
    >>> pos.play(pos.parse_move("8/5 6/5", (3, 1))).position_id()
    'sGfwATDgc/ABMA'

Matches and money sessions (the cube, Crawford, records) are :class:`Match`; match files
are in :mod:`backgammon.records.mat` and :mod:`backgammon.records.sgf`, bots in
:mod:`backgammon.players`.  The layers, lowest first: ``core``, ``ids``, ``play``,
``records``, ``players``, ``judging``, ``training``, ``protocols``; the faces ``cli`` and
``web``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from backgammon._version import __version__

if TYPE_CHECKING:
    from backgammon import ids
    from backgammon.core.position import Position
    from backgammon.core.values import (
        BAR,
        OFF,
        AmbiguousMoveError,
        GameResult,
        IllegalMoveError,
        InvalidMoveTextError,
        InvalidPositionError,
        Move,
        Outcome,
    )
    from backgammon.play.dice import AuditableDice, FixedDice, SeededDice, verify
    from backgammon.play.match import Match, MatchRecord
    from backgammon.play.rules import Rules
    from backgammon.records import convert, mat, sgf

__all__ = [
    "BAR",
    "OFF",
    "AmbiguousMoveError",
    "AuditableDice",
    "FixedDice",
    "GameResult",
    "IllegalMoveError",
    "InvalidMoveTextError",
    "InvalidPositionError",
    "Match",
    "MatchRecord",
    "Move",
    "Outcome",
    "Position",
    "Rules",
    "SeededDice",
    "__version__",
    "convert",
    "ids",
    "mat",
    "sgf",
    "verify",
]

_VALUES = "backgammon.core.values"
_HOMES = {
    "BAR": _VALUES,
    "OFF": _VALUES,
    "AmbiguousMoveError": _VALUES,
    "GameResult": _VALUES,
    "IllegalMoveError": _VALUES,
    "InvalidMoveTextError": _VALUES,
    "InvalidPositionError": _VALUES,
    "Move": _VALUES,
    "Outcome": _VALUES,
    "Position": "backgammon.core.position",
    "AuditableDice": "backgammon.play.dice",
    "FixedDice": "backgammon.play.dice",
    "SeededDice": "backgammon.play.dice",
    "verify": "backgammon.play.dice",
    "Match": "backgammon.play.match",
    "MatchRecord": "backgammon.play.match",
    "Rules": "backgammon.play.rules",
}
"""Each public class or function's module; the modules (``ids``, ``convert``, ``mat``,
``sgf``) are imported by name."""

_MODULES = {
    "ids": "backgammon.ids",
    "convert": "backgammon.records.convert",
    "mat": "backgammon.records.mat",
    "sgf": "backgammon.records.sgf",
}


def __getattr__(name: str) -> Any:
    """A public name, imported on first use, so that a program that needs only part of the
    package (``backgammon --help``) does not load the rest."""
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
