"""Lookahead at 0, 1 and 2 ply with move filtering, wrapping any evaluator.

0-ply is the evaluator (:class:`~backgammon.players.evaluator.CompositeEvaluator` in play).
n-ply averages the 21 rolls of the side on roll, each played with the best of its plays:
candidates are ranked at 0-ply and only the best few are looked at more deeply.  All
candidate plays of a roll are evaluated in one numpy call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from backgammon.board import Move, Position, iter_rolls
from backgammon.players.encode import boards_array
from backgammon.players.evaluator import Evaluator
from backgammon.players.probabilities import MONEY_WEIGHTS, flip_probs

__all__ = ["Searcher"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_ROLLS = [(a, b, 1.0 if a == b else 2.0) for a, b in iter_rolls()]


class Searcher:
    """The multi-ply evaluator: evaluates positions and ranks plays at a given depth on top
    of any 0-ply :class:`~backgammon.players.evaluator.Evaluator`."""

    def __init__(
        self,
        evaluator: Evaluator,
        weights: tuple[FloatArray, float] | None = None,
        filter_moves: int = 5,
        filter_width: float = 0.16,
        deep_moves: int = 1,
    ) -> None:
        """``weights`` turn probabilities into the equity to maximise (money by default);
        ``filter_moves``/``filter_width`` bound the plays looked at beyond 0-ply and
        ``deep_moves`` the replies looked at inside a 2-ply lookahead."""
        self.evaluator = evaluator
        self.w, self.c = weights if weights is not None else MONEY_WEIGHTS
        self.filter_moves = filter_moves
        self.filter_width = filter_width
        self.deep_moves = deep_moves

    # ------------------------------------------------------------------ 0-ply
    def probs_after(self, boards: IntArray) -> FloatArray:
        """0-ply probabilities for the side that has just played (opponent on roll)."""
        return flip_probs(self.evaluator.evaluate(boards))

    def equity(self, probs: FloatArray) -> FloatArray:
        """The equity being maximised, for each row of probabilities."""
        return np.asarray(probs @ self.w + self.c)

    # ------------------------------------------------------------------ n-ply
    def evaluate(self, position: Position, plies: int = 0) -> FloatArray:
        """Probabilities for the side on roll of a position at ``plies`` (a finished game's
        are exact at any depth)."""
        return self._evaluate(position, plies)

    def _evaluate(self, pos: Position, plies: int) -> FloatArray:
        if plies <= 0 or pos.is_game_over():
            return np.asarray(self.evaluator.evaluate(boards_array([pos.board]))[0])
        total = np.zeros(5)
        if plies == 1:
            # Every roll's plays in one batch.
            segments: list[tuple[int, int, float]] = []
            boards: list[tuple[int, ...]] = []
            for a, b, weight in _ROLLS:
                moves = pos.legal_moves((a, b))
                start = len(boards)
                if moves:
                    boards.extend(pos.play(m).board for m in moves)
                else:
                    boards.append(pos.flip().board)
                segments.append((start, len(boards), weight))
            probs = self.probs_after(boards_array(boards))
            eq = self.equity(probs)
            for start, end, weight in segments:
                best = start + int(np.argmax(eq[start:end]))
                total += weight * probs[best]
            return total / 36.0
        for a, b, weight in _ROLLS:
            moves = pos.legal_moves((a, b))
            after = [pos.play(m) for m in moves] if moves else [pos.flip()]
            probs = self.probs_after(boards_array(p.board for p in after))
            keep = self._filter(self.equity(probs), self.deep_moves)
            best_p: FloatArray | None = None
            best_e = -np.inf
            for i in keep:
                q = flip_probs(self._evaluate(after[i], plies - 1))
                e = float(self.equity(q[None, :])[0])
                if e > best_e:
                    best_e, best_p = e, q
            assert best_p is not None
            total += weight * best_p
        return total / 36.0

    def _filter(self, eq: FloatArray, limit: int) -> list[int]:
        order = np.argsort(-eq, kind="stable")
        top = eq[order[0]]
        return [int(i) for i in order[:limit] if eq[i] >= top - self.filter_width]

    def rank_moves(
        self, position: Position, dice: Sequence[int], plies: int = 0
    ) -> list[tuple[Move, FloatArray]]:
        """Legal plays with the mover's probabilities, best first (filtered beyond 0-ply)."""
        ranked = self.rank_all(position, dice, plies)
        if len(ranked) > 1 and plies > 0:
            ranked = [r for r in ranked if r[2] == plies]
        return [(move, p) for move, p, _ in ranked]

    def rank_all(
        self, position: Position, dice: Sequence[int], plies: int = 0
    ) -> list[tuple[Move, FloatArray, int]]:
        """Every legal play with the mover's probabilities and the depth they come from, best
        first: beyond 0-ply the plays the filter keeps, at ``plies``, then the others at
        0-ply in their 0-ply order."""
        moves = position.legal_moves(dice)
        if not moves:
            return []
        after = [position.play(m) for m in moves]
        probs = self.probs_after(boards_array(p.board for p in after))
        eq = self.equity(probs)
        order = [int(i) for i in np.argsort(-eq, kind="stable")]
        if plies <= 0 or len(moves) == 1:
            return [(moves[i], probs[i], 0) for i in order]
        keep = self._filter(eq, self.filter_moves if plies == 1 else max(2, self.filter_moves // 2))
        scored: list[tuple[float, int, FloatArray]] = []
        for i in keep:
            q = flip_probs(self._evaluate(after[i], plies))
            scored.append((float(self.equity(q[None, :])[0]), i, q))
        scored.sort(key=lambda t: (-t[0], t[1]))
        kept = set(keep)
        return [(moves[i], q, plies) for _, i, q in scored] + [
            (moves[i], probs[i], 0) for i in order if i not in kept
        ]

    def best_move(self, position: Position, dice: Sequence[int], plies: int = 0) -> Move | None:
        """The best legal play of ``dice`` at ``plies``, or None if there is none."""
        moves = position.legal_moves(dice)
        if not moves:
            return None
        if len(moves) == 1:
            return moves[0]
        if plies <= 0:
            after = boards_array(position.play(m).board for m in moves)
            return moves[int(np.argmax(self.equity(self.probs_after(after))))]
        return self.rank_moves(position, dice, plies)[0][0]
