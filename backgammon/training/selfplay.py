"""Games without a match around them: the opening roll, and greedy 0-ply self-play."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from backgammon.board import Position
from backgammon.players.encode import after_boards
from backgammon.players.probabilities import cubeless_equity

__all__ = ["greedy_game", "opening_roll"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

Judge = Callable[[IntArray], FloatArray]
"""Probabilities of boards just played, for the side that played them."""
Visit = Callable[[IntArray, FloatArray, int], None]
"""Sees each choice: the boards after every play (opponent on roll), their equities, the
index chosen."""


def opening_roll(rng: random.Random) -> tuple[int, int]:
    """The first roll of a game: both dice thrown until they differ (R3)."""
    while True:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        if d1 != d2:
            return d1, d2


def greedy_game(
    rng: random.Random, judge: Judge, visit: Visit | None = None
) -> tuple[list[tuple[int, ...]], FloatArray]:
    """One game from the opening, each side choosing the play of highest cubeless equity by
    ``judge`` (the first on ties), dice from ``rng``.  Returns the boards met, each from its
    side on roll and the last one before the game ended, and the final ``judge`` output of
    the winning play (the winner's exact result when ``judge`` knows finished games)."""
    pos = Position.initial()
    dice = opening_roll(rng)
    boards = [pos.board]
    while True:
        moves = pos.legal_moves(dice)
        if not moves:
            pos = pos.flip()
        else:
            after = after_boards(pos.board, moves)
            probs = judge(after)
            eq = cubeless_equity(probs)
            best = int(np.argmax(eq))
            if visit is not None:
                visit(after, eq, best)
            pos = pos.play(moves[best])
            if pos.is_game_over():
                return boards, probs[best]
        boards.append(pos.board)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
