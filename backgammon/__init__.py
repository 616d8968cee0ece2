"""backgammon: an exact rules engine agreeing with GNU Backgammon, with notations, match
files, bots, a terminal game and a web board.

The core is :class:`Position` (immutable, seen from the side to move) and :class:`Move`::

    >>> from backgammon import Position
    >>> pos = Position.initial()
    >>> [str(m) for m in pos.legal_moves((3, 1))][:3]
    ['24/21 24/23', '24/21 13/12', '24/21 8/7']
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

# --- match play (branch `match`): rules, matches, dice, IDs
from backgammon.dice import AuditableDice, FixedDice, SeededDice, verify
from backgammon.match import Match, MatchRecord
from backgammon.rules import Rules

# --- end match play

__all__ = [
    "BAR",
    "OFF",
    "AmbiguousMoveError",
    "GameResult",
    "IllegalMoveError",
    "InvalidMoveTextError",
    "InvalidPositionError",
    "Move",
    "Outcome",
    "Position",
]
__all__ += ["AuditableDice", "FixedDice", "Match", "MatchRecord", "Rules", "SeededDice", "verify"]

__version__ = "0.1.0"
