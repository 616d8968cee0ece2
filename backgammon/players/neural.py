"""The network player: our trained nets with 0-2 ply lookahead and cube decisions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from threadpoolctl import threadpool_limits

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.bearoff import BearoffDatabase
from backgammon.evaluation.bearoff2 import TwoSidedDatabase
from backgammon.evaluation.cube import (
    CubeAction,
    CubeDecision,
    CubeState,
    dead_cube_weights,
    decision_from_values,
    double_pass_value,
    to_emg,
)
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.met import KAZAROSS_XG2, MatchEquityTable
from backgammon.evaluation.net import DEFAULT_WEIGHTS, NetPair, default_nets
from backgammon.evaluation.probabilities import Probabilities
from backgammon.evaluation.search import MoveFilter, Searcher
from backgammon.evaluation.trailer import TrailerNet
from backgammon.players.base import RankedMove

__all__ = ["NeuralPlayer", "limit_blas_threads"]

_limited = False

ODD_BLEND = 0.5
"""The player's 1-ply judgement is the mean of its 0- and 1-ply lookahead: against gnubg's
2-ply on 400 decisions of gnubg's self-play, that mean gave up 4.3 mppg per decision, the
0-ply 7.4 and the 1-ply alone 4.8, and judged the differences between plays best (rms 26.8
mppg, against 30.4 and 29.0)."""

PRUNE = 8
"""Plays of each roll the full net judges inside a lookahead, the pruning net choosing
them (:class:`~backgammon.evaluation.search.Searcher`'s ``prune``; 0: all)."""


def limit_blas_threads() -> None:
    """Limit BLAS to one thread for the whole process (small matrices run slower
    multi-threaded); done once, the first time a network player is made."""
    global _limited
    if not _limited:
        threadpool_limits(limits=1)
        _limited = True


class NeuralPlayer:
    """Plays with our trained network at 0, 1 or 2 ply, plays and cube actions by cubeful
    value at the real score (gnubg's method: Janowski for money, the match-equity table in
    matches, the cube carried through the lookahead).  Ranks plays
    (:class:`~backgammon.players.base.MoveRanker`) and gives cubeful equities
    (:class:`~backgammon.players.base.CubeAdviser`)."""

    def __init__(
        self,
        plies: int = 0,
        weights: str | Path | None = None,
        bearoff: bool = True,
        met: MatchEquityTable = KAZAROSS_XG2,
        prune: int = PRUNE,
    ) -> None:
        """``weights`` defaults to the shipped file; ``bearoff`` uses the bear-off
        databases for pure bear-offs (the two-sided one, exact, is built and cached the
        first time one of six checkers a side or fewer is met); ``prune`` plays of each
        roll are judged by the full net inside a lookahead (0: all)."""
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
        two = TwoSidedDatabase() if bearoff else None
        trailer = TrailerNet.load() if bearoff else None
        self.evaluator = CompositeEvaluator(self.nets, db, two_sided=two, trailer=trailer)
        self.searcher = Searcher(self.evaluator, odd_blend=ODD_BLEND, prune=prune)
        self.searcher.met = met

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> Move | None:
        """The play with the best cubeful value at the real score (money equity, or match
        winning chances in a match); with no ``cube`` (no cube in play) the best cubeless
        money equity."""
        moves = position.legal_moves(dice)
        if len(moves) <= 1:
            return moves[0] if moves else None
        if cube is None:
            return self.searcher.best_move(position, dice, self.plies, moves)
        return self.searcher.rank_cubeful(position, dice, cube, self.plies)[0][0]

    def ranked_moves(
        self,
        position: Position,
        dice: Sequence[int],
        cube: CubeState | None = None,
        keep: int | MoveFilter | None = None,
        include: Sequence[Move] = (),
        plies: int | None = None,
    ) -> list[RankedMove]:
        """Every legal play, best first, by cubeful value at the cube and score of ``cube``
        (cubeless money equity when None), as :meth:`choose_move` judges them.  The best
        ``keep`` plays (or those a :class:`~backgammon.evaluation.search.MoveFilter` picks; the
        filter's choice by default) and those in ``include`` are judged at the player's depth
        (or ``plies``), the others follow at 0-ply."""
        depth = self.plies if plies is None else plies
        ranked = self.searcher.rank_cubeful(position, dice, cube, depth, keep, include)
        if cube is None:
            return [RankedMove(m, Probabilities.of(p), v, n) for m, p, v, n in ranked]
        return [
            RankedMove(
                move,
                Probabilities.of(p),
                float(to_emg(value, cube, self.met)),
                n,
                None if cube.is_money else value,
            )
            for move, p, value, n in ranked
        ]

    def probabilities(self, position: Position, plies: int | None = None) -> Probabilities:
        """The five cubeless probabilities for the side on roll (at the player's depth)."""
        if position.is_game_over():
            raise ValueError("the game is over")
        p = self.searcher.evaluate(position, self.plies if plies is None else plies)
        return Probabilities.of(p)

    def cube_decision(
        self, position: Position, cube: CubeState, plies: int | None = None
    ) -> CubeDecision:
        """Cubeful values (money equity per unit cube, or MWC) and actions for the side on
        roll of ``position``, at the player's depth or ``plies``."""
        depth = self.plies if plies is None else plies
        _, v = self.searcher.cubeful(position, [cube, cube.doubled()], depth, top=True)
        dt = float(v[1]) * (2.0 if cube.is_money else 1.0)
        return decision_from_values(float(v[0]), dt, double_pass_value(cube, self.met), cube)

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
        w, c = dead_cube_weights(cube.flip(), self.met)
        a, b = cube.flip().away
        offered = self.met.equity(
            a - points * cube.cube_value, b, cube.crawford or cube.post_crawford
        )
        return bool(offered >= float(w @ ours.array() + c) - 1e-9)
