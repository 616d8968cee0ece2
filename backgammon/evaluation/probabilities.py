"""gnubg's five cubeless probabilities: their money equity, their flip and the exact
probabilities of a finished game, each written once here.

The five numbers are cumulative and seen from the side on roll, like gnubg's outputs:
``P(win)``, ``P(win a gammon or more)``, ``P(win a backgammon)``, ``P(lose a gammon or
more)``, ``P(lose a backgammon)``.  The array functions take one row ``(5,)`` or a batch
``(N, 5)``; :class:`Probabilities` is the same five numbers as one value.

    >>> p = Probabilities(0.6, 0.2, 0.01, 0.1, 0.005)
    >>> round(p.equity(), 3)
    0.305
    >>> p.flip().flip() == p, round(p.flip().equity(), 3)
    (True, -0.305)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = [
    "MONEY_WEIGHTS",
    "N_OUTPUTS",
    "OUTPUT_NAMES",
    "Probabilities",
    "cubeless_equity",
    "flip_probs",
    "game_over_probs",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

N_OUTPUTS = 5
"""How many probabilities: gnubg's five outputs."""

OUTPUT_NAMES = ("win", "gammon", "backgammon", "lose-gammon", "lose-backgammon")
"""The five outputs in their order (gnubg's): the side on roll's chances of winning, of
winning a gammon or a backgammon, of losing a gammon or a backgammon."""

MONEY_WEIGHTS: tuple[FloatArray, float] = (np.array([2.0, 1.0, 1.0, -1.0, -1.0]), -1.0)
"""Cubeless money equity as ``p @ w + c``: a win, a gammon and a backgammon each add a
point (they are cumulative), and the losses take them away."""

_FLIP = np.array([0, 3, 4, 1, 2])


def flip_probs(p: FloatArray) -> FloatArray:
    """The same probabilities seen from the other side (one row or a batch)."""
    q = p.take(_FLIP, axis=-1)  # as p[..., _FLIP], faster
    np.subtract(1.0, p[..., 0], out=q[..., 0])  # (no temporary array)
    return q


def cubeless_equity(p: FloatArray) -> FloatArray:
    """Cubeless money equity (points per game for the side on roll) of one row or a batch."""
    w, c = MONEY_WEIGHTS
    return np.asarray(p @ w + c)


def game_over_probs(boards: IntArray) -> tuple[BoolArray, FloatArray]:
    """Which boards (``(N, 26)``, each from its side on roll) are finished games, and their
    exact probabilities from the side on roll (rows of unfinished boards are zero).

    A side that has borne off all its checkers has won; a gammon if the loser has borne off
    none, a backgammon if the loser also has a checker on the bar or in the winner's home
    board (R18-R19).
    """
    b = np.asarray(boards, dtype=np.int64)
    mine = np.maximum(b, 0)
    theirs = np.maximum(-b, 0)
    won = ~(b > 0).any(axis=1)
    lost = ~(b < 0).any(axis=1) & ~won
    probs = np.zeros((len(b), N_OUTPUTS))
    # We lost: we still have all 15 (gammon), some on their home board or our bar (19-25).
    gammon = mine.sum(axis=1) == 15
    probs[:, 3] = lost & gammon
    probs[:, 4] = lost & gammon & (mine[:, 19:26].sum(axis=1) > 0)
    # We won: they still have all 15, some on our home board or their bar (0-6).
    their_gammon = theirs.sum(axis=1) == 15
    probs[:, 0] = won
    probs[:, 1] = won & their_gammon
    probs[:, 2] = won & their_gammon & (theirs[:, 0:7].sum(axis=1) > 0)
    return np.asarray(won | lost), probs


class Probabilities(NamedTuple):
    """The five probabilities of one position as a value (a tuple, so ``np.asarray`` and
    indexing work): the cube logic, ranked plays and hints pass it around."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @classmethod
    def of(cls, p: npt.ArrayLike) -> Probabilities:
        """From any five numbers (a numpy row, a list)."""
        a = np.asarray(p, dtype=np.float64).reshape(N_OUTPUTS)
        return cls(float(a[0]), float(a[1]), float(a[2]), float(a[3]), float(a[4]))

    def array(self) -> FloatArray:
        """The five numbers as a numpy row."""
        return np.array(self, dtype=np.float64)

    def equity(self) -> float:
        """Cubeless money equity for the side these probabilities are seen from."""
        return float(cubeless_equity(self.array()))

    def flip(self) -> Probabilities:
        """The same probabilities seen from the other side."""
        return Probabilities.of(flip_probs(self.array()))
