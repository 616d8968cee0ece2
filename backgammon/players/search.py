"""Position evaluation at 0, 1 and 2 ply with move filtering, built on the trained nets.

0-ply is the network (or exact values for finished games and the bear-off probabilities of
pure bear-offs).  n-ply averages the 21 rolls of the side on roll, each played with the best
of its plays: candidates are ranked at 0-ply and only the best few are looked at more deeply.
All candidate plays of a roll are evaluated in one numpy call.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backgammon.board import Move, Position, iter_rolls
from backgammon.players.bearoff import BearoffDatabase, is_bearoff
from backgammon.players.encode import boards_array
from backgammon.players.net import Evaluator, flip_probs, terminal_probs_after

__all__ = ["DEFAULT_WEIGHTS", "Searcher", "default_evaluator", "money_weights"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

DEFAULT_WEIGHTS = Path(__file__).with_name("data") / "weights.npz"
_ROLLS = [(a, b, 1.0 if a == b else 2.0) for a, b in iter_rolls()]


@lru_cache(maxsize=4)
def default_evaluator(path: str = str(DEFAULT_WEIGHTS)) -> Evaluator:
    """The shipped (or given) weights, loaded once."""
    return Evaluator.load(path)


def money_weights() -> tuple[FloatArray, float]:
    """Cubeless money equity as ``w @ p + c`` of the five probabilities."""
    return np.array([2.0, 1.0, 1.0, -1.0, -1.0]), -1.0


class Searcher:
    """Evaluates positions and chooses plays at a fixed depth."""

    def __init__(
        self,
        evaluator: Evaluator,
        bearoff: BearoffDatabase | None = None,
        weights: tuple[FloatArray, float] | None = None,
        filter_moves: int = 5,
        filter_width: float = 0.16,
        deep_moves: int = 1,
    ) -> None:
        """``weights`` turn probabilities into the equity to maximise (money by default);
        ``filter_moves``/``filter_width`` bound the plays looked at beyond 0-ply and
        ``deep_moves`` the replies looked at inside a 2-ply lookahead."""
        self.evaluator = evaluator
        self.bearoff = bearoff
        self.w, self.c = weights if weights is not None else money_weights()
        self.filter_moves = filter_moves
        self.filter_width = filter_width
        self.deep_moves = deep_moves

    # ------------------------------------------------------------------ 0-ply
    def probs(self, boards: IntArray) -> FloatArray:
        """0-ply probabilities for the side on roll of each unfinished board.

        The net's five outputs are independent sigmoids; they are made consistent here
        (a gammon is a win, a backgammon a gammon).
        """
        p = self.evaluator.evaluate(boards)
        np.minimum(p[:, 1], p[:, 0], out=p[:, 1])
        np.minimum(p[:, 2], p[:, 1], out=p[:, 2])
        np.minimum(p[:, 3], 1.0 - p[:, 0], out=p[:, 3])
        np.minimum(p[:, 4], p[:, 3], out=p[:, 4])
        if self.bearoff is not None:
            bo = is_bearoff(boards)
            if bo.any():
                sub = boards[bo]
                q = p[bo]
                q[:, 0] = self.bearoff.win_probabilities(sub)
                mine_off = np.maximum(sub, 0).sum(axis=1) < 15
                theirs_off = np.maximum(-sub, 0).sum(axis=1) < 15
                q[:, 1] = np.where(theirs_off, 0.0, np.minimum(q[:, 1], q[:, 0]))
                q[:, 3] = np.where(mine_off, 0.0, np.minimum(q[:, 3], 1.0 - q[:, 0]))
                q[:, 2] = 0.0
                q[:, 4] = 0.0
                p[bo] = q
        return p

    def probs_after(self, boards: IntArray) -> FloatArray:
        """0-ply probabilities for the side that has just played (opponent on roll)."""
        won, exact = terminal_probs_after(boards)
        if won.all():
            return exact
        out = exact
        out[~won] = flip_probs(self.probs(boards[~won]))
        return out

    def equity(self, probs: FloatArray) -> FloatArray:
        """The equity being maximised, for each row of probabilities."""
        return np.asarray(probs @ self.w + self.c)

    # ------------------------------------------------------------------ n-ply
    def evaluate(self, position: Position, plies: int = 0) -> FloatArray:
        """Probabilities for the side on roll of an unfinished position at ``plies``."""
        return self._evaluate(position, plies)

    def _evaluate(self, pos: Position, plies: int) -> FloatArray:
        if plies <= 0:
            return np.asarray(self.probs(boards_array([pos.board]))[0])
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
                if after[i].is_game_over():
                    q = probs[i]
                else:
                    q = flip_probs(self._evaluate(after[i], plies - 1)[None, :])[0]
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
        moves = position.legal_moves(dice)
        if not moves:
            return []
        after = [position.play(m) for m in moves]
        probs = self.probs_after(boards_array(p.board for p in after))
        eq = self.equity(probs)
        if plies <= 0 or len(moves) == 1:
            order = np.argsort(-eq, kind="stable")
            return [(moves[int(i)], probs[int(i)]) for i in order]
        keep = self._filter(eq, self.filter_moves if plies == 1 else max(2, self.filter_moves // 2))
        scored: list[tuple[float, int, FloatArray]] = []
        for i in keep:
            if after[i].is_game_over():
                q = probs[i]
            else:
                q = flip_probs(self._evaluate(after[i], plies)[None, :])[0]
            scored.append((float(self.equity(q[None, :])[0]), i, q))
        scored.sort(key=lambda t: (-t[0], t[1]))
        return [(moves[i], q) for _, i, q in scored]

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
