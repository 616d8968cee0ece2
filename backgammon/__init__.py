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

from backgammon import ids
from backgammon._version import __version__
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
