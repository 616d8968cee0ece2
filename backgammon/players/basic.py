"""The simple players: uniformly random plays, and Tesauro's pubeval."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.cube import CubeAction, CubeState
from backgammon.evaluation.encode import boards_array
from backgammon.players.pubeval import pubeval_scores

__all__ = ["PubevalPlayer", "RandomPlayer"]


class RandomPlayer:
    """Plays a uniformly random legal play; never doubles, always takes, accepts any
    resignation.  Reproducible from ``seed``."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` makes the choices reproducible."""
        self._rng = random.Random(seed)

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> Move | None:
        """A random legal play of ``dice``, or None if there is none."""
        moves = position.legal_moves(dice)
        return self._rng.choice(moves) if moves else None

    def cube_action(self, position: Position, cube: CubeState, offered: bool = False) -> CubeAction:
        """Never doubles; always takes."""
        return CubeAction.TAKE if offered else CubeAction.NO_DOUBLE

    def accept_resignation(
        self, position: Position, points: int, cube: CubeState | None = None
    ) -> bool:
        """Accepts every resignation."""
        return True


class PubevalPlayer:
    """Tesauro's pubeval (a cubeless benchmark): never doubles, always takes, and accepts
    a resignation only of a gammon or more."""

    name = "pubeval"

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> Move | None:
        """The legal play with the highest pubeval score (the first one on ties)."""
        moves = position.legal_moves(dice)
        if len(moves) <= 1:
            return moves[0] if moves else None
        after = boards_array(position.play(m).flip().board for m in moves)
        scores = pubeval_scores(after, race=position.is_race())
        return moves[int(np.argmax(scores))]

    def cube_action(self, position: Position, cube: CubeState, offered: bool = False) -> CubeAction:
        """Never doubles; always takes."""
        return CubeAction.TAKE if offered else CubeAction.NO_DOUBLE

    def accept_resignation(
        self, position: Position, points: int, cube: CubeState | None = None
    ) -> bool:
        """Accepts gammons and backgammons only."""
        return points >= 2
