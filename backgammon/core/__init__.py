"""The rules core, dependency-free: positions, plays, their generation and notation, and
the entry of a play step by step (rules R1-R19 of docs/rules.md).

    >>> from backgammon.core import Position
    >>> len(Position.initial().legal_moves((3, 1)))
    16
"""

from __future__ import annotations

from backgammon.core.position import Position
from backgammon.core.turn import EntryError, TurnEntry
from backgammon.core.values import (
    BAR,
    OFF,
    AmbiguousMoveError,
    DiceError,
    GameResult,
    IllegalMoveError,
    InvalidMoveTextError,
    InvalidPositionError,
    Move,
    Outcome,
    Step,
    check_dice,
    iter_rolls,
    iter_weighted_rolls,
)

__all__ = [
    "BAR",
    "OFF",
    "AmbiguousMoveError",
    "DiceError",
    "EntryError",
    "GameResult",
    "IllegalMoveError",
    "InvalidMoveTextError",
    "InvalidPositionError",
    "Move",
    "Outcome",
    "Position",
    "Step",
    "TurnEntry",
    "check_dice",
    "iter_rolls",
    "iter_weighted_rolls",
]
