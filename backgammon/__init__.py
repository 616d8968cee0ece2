"""backgammon: an exact rules engine agreeing with GNU Backgammon, with notations, match
files, bots, a terminal game and a web board.

The core is :class:`Position` (immutable, seen from the side to move) and :class:`Move`::

    >>> from backgammon import Position
    >>> pos = Position.initial()
    >>> len(pos.legal_moves((3, 1)))
    16
    >>> pos.play(pos.parse_move("8/5 6/5", (3, 1))).position_id()
    'sGfwATDgc/ABMA'

Matches and money sessions (the cube, Crawford, records) are :class:`Match`; match files are
in :mod:`backgammon.mat` and :mod:`backgammon.sgf`, bots in :mod:`backgammon.players`.
"""

from backgammon.board import (
    BAR,
    OFF,
    AmbiguousMoveError,
    GameResult,
    IllegalMoveError,
    InvalidMoveTextError,
    InvalidPositionError,
    Move,
    Outcome,
    Position,
)
from backgammon.dice import AuditableDice, FixedDice, SeededDice, verify
from backgammon.match import Match, MatchRecord
from backgammon.rules import Rules

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
    "verify",
]

__version__ = "0.1.0"
