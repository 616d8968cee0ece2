"""A small net that ranks a roll's plays so that the full net judges only the best few.

gnubg judges each roll's plays with small pruning nets first and gives its full nets only
the best of them.  :class:`PruneNet` is ours: 16 hidden units on each point's count (a
learnt vector for each point and count, summed, clipped to [-1, 1]) and one output, the
equity of the side that played, fitted to the full evaluator's equities centred per roll
(:mod:`backgammon.training.prune`: the order of a roll's plays is what it is asked).  A
board costs it some 400 additions in compiled code, against the full net's inputs and
64,000 multiplications.  Rollouts use it where only an estimate is asked for: the luck of
the rolls not played (:class:`~backgammon.judging.rollout.engine.RolloutSettings`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

__all__ = ["DEFAULT_PRUNE", "PruneNet", "default_pruner", "prune_rows", "pruned_plays"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float32]

DEFAULT_PRUNE = Path(__file__).with_name("data") / "prune.npz"
COUNTS = 31
"""A point's count from -15 to 15: the row of its vector is ``point * 31 + count + 15``."""


@njit(cache=True, nogil=True)  # no fastmath: the same sums in the same order everywhere
def _scores(boards: Any, embed: Any, b1: Any, w2: Any, b2: float) -> Any:
    """The kernel of :meth:`PruneNet.scores`."""
    n, hidden = boards.shape[0], b1.shape[0]
    out = np.empty(n, np.float32)
    h = np.empty(hidden, np.float32)
    for k in range(n):
        for j in range(hidden):
            h[j] = b1[j]
        for p in range(26):
            row = p * COUNTS + boards[k, p] + 15
            for j in range(hidden):
                h[j] += embed[row, j]
        y = np.float32(b2)
        for j in range(hidden):
            y += min(max(h[j], np.float32(-1.0)), np.float32(1.0)) * w2[j]
        out[k] = y
    return out


@njit(cache=True, nogil=True)
def _keep(scores: Any, counts: Any, keep: int) -> tuple[Any, Any]:
    """The kernel of :func:`prune_rows`: an insertion into the best ``keep`` so far."""
    total = 0
    for c in counts:
        total += min(c, keep)
    rows = np.empty(total, np.int64)
    kept = np.empty(counts.shape[0], np.int64)
    start = 0
    r = 0
    chosen = np.empty(keep, np.int64)
    for s in range(counts.shape[0]):
        c = counts[s]
        if c <= keep:
            for j in range(c):
                rows[r] = start + j
                r += 1
            kept[s] = c
        else:
            # The ``keep`` highest, the earlier of equal ones first; then in board order.
            m = 0
            for j in range(c):
                v = scores[start + j]
                if m < keep:
                    at = m
                    m += 1
                elif v > scores[chosen[keep - 1]]:
                    at = keep - 1
                else:
                    continue
                while at > 0 and scores[chosen[at - 1]] < v:
                    chosen[at] = chosen[at - 1]
                    at -= 1
                chosen[at] = start + j
            chosen.sort()
            for j in range(keep):
                rows[r] = chosen[j]
                r += 1
            kept[s] = keep
        start += c
    return rows, kept


@dataclass(frozen=True)
class PruneNet:
    """The pruning net's weights: ``embed`` ``(26 * 31, H)`` (a vector for each point and
    count, :data:`COUNTS`), ``b1`` ``(H,)``, ``w2`` ``(H,)`` and the bias ``b2``."""

    embed: FloatArray
    b1: FloatArray
    w2: FloatArray
    b2: float

    @classmethod
    def load(cls, path: str | Path = DEFAULT_PRUNE) -> PruneNet:
        """Read weights saved by :meth:`save`."""
        with np.load(path) as data:
            return cls(
                np.ascontiguousarray(data["embed"], dtype=np.float32),
                np.ascontiguousarray(data["b1"], dtype=np.float32),
                np.ascontiguousarray(data["w2"], dtype=np.float32).reshape(-1),
                float(data["b2"]),
            )

    def save(self, path: str | Path) -> None:
        """Write the weights (``np.savez``)."""
        np.savez(path, embed=self.embed, b1=self.b1, w2=self.w2, b2=np.float32(self.b2))

    def scores(self, boards: npt.ArrayLike) -> FloatArray:
        """The estimated equity, for the side that has just played, of each ``(N, 26)``
        board (the opponent on roll, as :func:`~backgammon.evaluation.children.child_boards`
        gives them)."""
        b = np.ascontiguousarray(boards, dtype=np.int64).reshape(-1, 26)
        if len(b) and (b.min() < -15 or b.max() > 15):
            raise ValueError("a board holds at most 15 checkers on a point")
        return self._scores_of(b)

    def _scores_of(self, b: IntArray) -> FloatArray:
        """:meth:`scores` of boards already known to be ``(N, 26)`` int64 and sound."""
        return np.asarray(_scores(b, self.embed, self.b1, self.w2, self.b2))


def prune_rows(
    scores: npt.ArrayLike, counts: npt.ArrayLike, keep: int
) -> tuple[IntArray, IntArray]:
    """In each run of ``counts`` rows, the ``keep`` of highest score (all if fewer; the
    earlier of equal ones), in row order: the rows kept and how many of each run."""
    if keep < 1:
        raise ValueError(f"keep at least one play a roll, not {keep}")
    s = np.ascontiguousarray(scores, dtype=np.float32)
    c = np.ascontiguousarray(counts, dtype=np.int64)
    if (len(c) and c.min() < 0) or int(c.sum()) != len(s):
        raise ValueError(f"the runs' counts add up to {int(c.sum())}, not {len(s)} scores")
    rows, kept = _keep(s, c, keep)
    return np.asarray(rows), np.asarray(kept)


@lru_cache(maxsize=1)
def default_pruner() -> PruneNet:
    """The shipped pruning net, read once per process."""
    return PruneNet.load()


def pruned_plays(
    net: PruneNet, boards: IntArray, counts: IntArray, keep: int
) -> tuple[IntArray, IntArray]:
    """The rows of ``boards`` (every play of a run of rolls, :func:`prune_rows`'s runs of
    ``counts``, as :func:`~backgammon.evaluation.children.child_boards` makes them: not
    checked again) that ``net`` ranks among each roll's best ``keep``, and their counts."""
    b = np.ascontiguousarray(boards, dtype=np.int64).reshape(-1, 26)
    rows, kept = prune_rows(net._scores_of(b), counts, keep)
    return boards[rows], kept
