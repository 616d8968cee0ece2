"""The network player: our trained nets with 0-2 ply lookahead and cube decisions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from backgammon.board import Move, Position
from backgammon.players.base import RankedMove
from backgammon.players.bearoff import BearoffDatabase
from backgammon.players.cube import (
    CubeAction,
    CubeDecision,
    CubeState,
    cube_decision,
    cube_efficiency,
)
from backgammon.players.encode import after_boards
from backgammon.players.evaluator import CompositeEvaluator
from backgammon.players.met import KAZAROSS_XG2, MatchEquityTable
from backgammon.players.net import DEFAULT_WEIGHTS, NetPair, default_nets
from backgammon.players.probabilities import Probabilities
from backgammon.players.search import Searcher

__all__ = ["NeuralPlayer", "limit_blas_threads", "match_weights"]

_limited = False


def limit_blas_threads() -> None:
    """Limit BLAS to one thread for the whole process (small matrices run slower
    multi-threaded); done once, the first time a network player is made."""
    global _limited
    if not _limited:
        threadpool_limits(limits=1)
        _limited = True


def match_weights(
    cube: CubeState, met: MatchEquityTable = KAZAROSS_XG2
) -> tuple[np.ndarray, float]:
    """Dead-cube match winning chances as ``w @ p + c`` of the five probabilities."""
    a, b = cube.away
    v = cube.cube_value
    post = cube.crawford or cube.post_crawford

    def m(x: int, y: int) -> float:
        return met.equity(x, y, post)

    w1, w2, w3 = m(a - v, b), m(a - 2 * v, b), m(a - 3 * v, b)
    l1, l2, l3 = m(a, b - v), m(a, b - 2 * v), m(a, b - 3 * v)
    # p = (win, win g+, win bg, lose g+, lose bg); exclusive outcomes are differences.
    w = np.array([w1 - l1, w2 - w1, w3 - w2, l2 - l1, l3 - l2])
    return w, l1


class NeuralPlayer:
    """Plays with our trained network at 0, 1 or 2 ply; cube decisions by Janowski (money)
    or the match-equity table (matches).  Ranks plays
    (:class:`~backgammon.players.base.MoveRanker`) and gives cubeful equities
    (:class:`~backgammon.players.base.CubeAdviser`)."""

    def __init__(
        self,
        plies: int = 0,
        weights: str | Path | None = None,
        bearoff: bool = True,
        met: MatchEquityTable = KAZAROSS_XG2,
    ) -> None:
        """``weights`` defaults to the shipped file; ``bearoff`` uses the bear-off
        database (built and cached on first use) for pure bear-offs."""
        if plies not in (0, 1, 2):
            raise ValueError(f"plies must be 0, 1 or 2, got {plies}")
        limit_blas_threads()
        self.plies = plies
        self.name = f"neural-{plies}ply"
        self.nets: NetPair = default_nets() if weights is None else NetPair.load(weights)
        if weights is None:
            self.weights_path = DEFAULT_WEIGHTS
        else:
            self.weights_path = Path(weights)
        self.met = met
        db = BearoffDatabase.load() if bearoff else None
        self.evaluator = CompositeEvaluator(self.nets, db)
        self.searcher = Searcher(self.evaluator)

    def _searcher(self, cube: CubeState | None) -> Searcher:
        """Money play maximises cubeless equity; match play dead-cube match winning chances."""
        if cube is None or cube.is_money:
            return self.searcher
        return Searcher(self.evaluator, match_weights(cube, self.met))

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> Move | None:
        """The best play (money equity, or match winning chances in a match)."""
        searcher = self._searcher(cube)
        if self.plies:
            return searcher.best_move(position, dice, self.plies)
        moves = position.legal_moves(dice)
        if len(moves) <= 1:
            return moves[0] if moves else None
        probs = searcher.probs_after(after_boards(position.board, moves))
        return moves[int(np.argmax(searcher.equity(probs)))]

    def ranked_moves(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> list[RankedMove]:
        """Every legal play, best first, as :meth:`choose_move` judges them (plays the
        lookahead filters out follow, judged at 0-ply)."""
        searcher = self._searcher(cube)
        return [
            RankedMove(move, Probabilities.of(p), float(searcher.equity(p[None, :])[0]), plies)
            for move, p, plies in searcher.rank_all(position, dice, self.plies)
        ]

    def probabilities(self, position: Position, plies: int | None = None) -> Probabilities:
        """The five cubeless probabilities for the side on roll (at the player's depth)."""
        if position.is_game_over():
            raise ValueError("the game is over")
        p = self.searcher.evaluate(position, self.plies if plies is None else plies)
        return Probabilities.of(p)

    def cube_decision(self, position: Position, cube: CubeState) -> CubeDecision:
        """Cubeful equities and actions for the side on roll of ``position``."""
        p = self.probabilities(position)
        x = cube_efficiency(position.is_race(), position.pip_counts()[0])
        return cube_decision(p, cube, x, self.met)

    def cube_action(self, position: Position, cube: CubeState, offered: bool = False) -> CubeAction:
        """Double or not (``offered`` False, we are on roll); take, pass or beaver when the
        side on roll of ``position`` has doubled us (``offered`` True)."""
        if offered:
            return self.cube_decision(position, cube).response
        return self.cube_decision(position, cube).action

    def accept_resignation(
        self, position: Position, points: int, cube: CubeState | None = None
    ) -> bool:
        """The side on roll offers to resign ``points`` (1-3) per cube; we accept if that
        is at least what we expect to win by playing on (cubeless)."""
        if points not in (1, 2, 3):
            raise ValueError(f"a resignation is of 1, 2 or 3 points, got {points}")
        ours = Probabilities.of(self.probabilities(position, 0)).flip()
        if cube is None or cube.is_money:
            return bool(points >= ours.equity() - 1e-9)
        w, c = match_weights(cube.flip(), self.met)
        a, b = cube.flip().away
        offered = self.met.equity(
            a - points * cube.cube_value, b, cube.crawford or cube.post_crawford
        )
        return bool(offered >= float(w @ ours.array() + c) - 1e-9)
