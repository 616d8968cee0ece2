"""The trailer net's labels and fit (:mod:`backgammon.evaluation.trailer`): games of the
trailer alone, and the net fitted to them::

    python -m backgammon.training.trailer labels/trailer/round2/trailer-*.npz \\
        --out backgammon/evaluation/data/trailer.npz [--hold-out 36007] [--seed 1]

Each label file (``labels/trailer/make.py``) holds trailers and, per trailer, how many of
its games bore the first checker off after k rolls and brought the last checker out of the
leader's home after k rolls.  The net's outputs are the survival curves (cross-entropy of
each output against the share of games still going), fitted with Adam.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backgammon.core.position import Position
from backgammon.evaluation.bearoff import MAX_ROLLS, BearoffDatabase, indices
from backgammon.evaluation.children import child_boards
from backgammon.evaluation.net import Net
from backgammon.evaluation.trailer import N_TRAILER_INPUTS, PIPS_TO_HOME, TrailerNet, trailer_inputs
from backgammon.training.nets import Adam

__all__ = ["TrailerGames", "fit_trailer", "load_labels", "survival_targets"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Board = tuple[int, ...]


class TrailerGames:
    """The trailer alone, played to its first checker off: a checker off if it can, else
    all home with the soonest first bear-off (the one-sided database), else the fewest
    checkers left in the other side's home board (a backgammon), then the soonest first
    bear-off by ``net`` (the mean of its survival curve), or without a net the fewest pips
    and checkers still to come home.  The net's policy saves more gammons than the plain
    rule (one round of policy iteration); the rule made the first net's labels."""

    def __init__(self, db: BearoffDatabase, seed: int, net: TrailerNet | None = None) -> None:
        """``seed`` fixes the dice; ``net`` (optional) judges the plays that leave
        checkers outside."""
        self.first_mean = (1.0 - db.first_cumulative).sum(axis=1)  # rolls to one off, home
        self.net = net
        self.rng = np.random.default_rng(seed)
        self.chosen: dict[tuple[Board, tuple[int, int]], Board] = {}

    def _scores(self, after: IntArray) -> FloatArray:
        """Lower is better (see the class), for boards seen from the trailer."""
        mine = np.maximum(after, 0)
        outside = mine[:, 7:].sum(axis=1)
        score = np.zeros(len(after))  # a checker off
        all_on = mine.sum(axis=1) == 15
        home = all_on & (outside == 0)
        rest = all_on & (outside > 0)
        if home.any():
            score[home] = 1000.0 + self.first_mean[indices(mine[home, 1:7])]
        if rest.any():
            m = mine[rest]
            if self.net is None:
                value = m[:, 1:25] @ PIPS_TO_HOME + 2.0 * outside[rest]
            else:
                value = self.net.survival(m[:, 1:25])[0].sum(axis=1)
            score[rest] = 2000.0 + 1000.0 * m[:, 19:].sum(axis=1) + value
        return score

    def _choose(self, pairs: list[tuple[Board, tuple[int, int]]]) -> None:
        """Find the play of each ``(board, dice)`` not chosen before, all scored at once."""
        todo = [pair for pair in dict.fromkeys(pairs) if pair not in self.chosen]
        if not todo:
            return
        boards = [board for board, _ in todo]
        after, rows = child_boards(boards, [d for _, d in todo])
        after = -after[:, ::-1]  # the trailer's view again (no play: the board itself)
        scores = self._scores(after)
        start = 0
        for pair, n in zip(todo, rows.tolist(), strict=True):
            best = start + int(np.argmin(scores[start : start + n]))
            self.chosen[pair] = tuple(after[best].tolist())
            start += n

    def play(self, board: Board, dice: tuple[int, int]) -> Board:
        """The trailer's board after its play of ``dice``."""
        self._choose([(board, dice)])
        return self.chosen[(board, dice)]

    def times(self, pos: Position, games: int) -> tuple[IntArray, IntArray]:
        """For ``games`` games of the side on roll in ``pos`` alone, played side by side:
        after how many rolls it bore its first checker off, and after how many its last
        checker left the other side's home board (0 if none is there; MAX_ROLLS: not
        within the table's range)."""
        first = np.full(games, MAX_ROLLS)
        escaped = np.full(games, 0 if max(pos.board[19:]) <= 0 else MAX_ROLLS)
        boards = [pos.board] * games
        going = list(range(games))
        for k in range(1, MAX_ROLLS):
            if not going:
                break
            rolls = self.rng.integers(1, 7, size=(len(going), 2)).tolist()
            pairs = [(boards[g], (a, b)) for g, (a, b) in zip(going, rolls, strict=True)]
            self._choose(pairs)
            still = []
            for g, pair in zip(going, pairs, strict=True):
                board = boards[g] = self.chosen[pair]
                if escaped[g] == MAX_ROLLS and max(board[19:]) <= 0:
                    escaped[g] = k
                if sum(x for x in board if x > 0) < 15:
                    first[g] = k
                else:
                    still.append(g)
            going = still
        return first, escaped


def survival_targets(first: IntArray, escaped: IntArray) -> FloatArray:
    """``(N, 2 * MAX_ROLLS)`` shares of games with no checker off, and with a checker still
    in the leader's home, after j = 0 .. MAX_ROLLS - 1 rolls, from counts per roll."""
    games = first.sum(axis=1, keepdims=True)
    s = 1.0 - np.cumsum(first, axis=1)[:, :MAX_ROLLS] / games
    e = 1.0 - np.cumsum(escaped, axis=1)[:, :MAX_ROLLS] / games
    return np.concatenate([s, e], axis=1)


def load_labels(paths: Sequence[str | Path]) -> tuple[IntArray, FloatArray]:
    """The trailers' ``(N, 24)`` counts and their targets, from label files."""
    counts, targets = [], []
    for path in paths:
        with np.load(path) as data:
            counts.append(np.maximum(data["boards"][:, 1:25].astype(np.int64), 0))
            targets.append(survival_targets(data["first"], data["escaped"]))
    return np.concatenate(counts), np.concatenate(targets)


def fit_trailer(
    counts: IntArray,
    targets: FloatArray,
    hidden: int = 48,
    epochs: int = 80,
    batch: int = 128,
    lr: float = 3e-3,
    seed: int = 1,
) -> TrailerNet:
    """A net fitted to ``targets`` from random weights (reproducible from ``seed``)."""
    rng = np.random.default_rng(seed)
    x = trailer_inputs(counts)
    mean = np.clip(targets.mean(axis=0), 1e-4, 1 - 1e-4)
    net = Net(
        rng.normal(0.0, 1.0 / np.sqrt(N_TRAILER_INPUTS), (N_TRAILER_INPUTS, hidden)),
        np.zeros(hidden),
        rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, 2 * MAX_ROLLS)),
        np.log(mean / (1.0 - mean)),
    )
    adam = Adam(net, lr)
    for epoch in range(epochs):
        if epoch == epochs * 3 // 4:
            adam.lr = lr / 5
        order = rng.permutation(len(x))
        for i in range(0, len(x), batch):
            rows = order[i : i + batch]
            adam.step(x[rows], targets[rows])
    return TrailerNet(net)


def report(name: str, net: TrailerNet, counts: IntArray, targets: FloatArray) -> None:
    """The rms difference of each curve from its labels, in percentage points."""
    s, e = net.survival(counts)
    ds = 100 * (s - targets[:, :MAX_ROLLS])
    de = 100 * (e - targets[:, MAX_ROLLS:])
    print(
        f"{name}: {len(counts)} trailers, no checker off rms {np.sqrt((ds**2).mean()):.2f} pts "
        f"(largest {np.abs(ds).max():.1f}), in the leader's home rms "
        f"{np.sqrt((de**2).mean()):.2f} (largest {np.abs(de).max():.1f})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("labels", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--hold-out", nargs="*", default=[], help="seeds to test on, not fit")
    ap.add_argument("--hidden", type=int, default=48)
    ap.add_argument("--epochs", type=int, default=80)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    held = [p for p in args.labels if Path(p).stem.split("-")[-1] in args.hold_out]
    fitted = [p for p in args.labels if p not in held]
    counts, targets = load_labels(fitted)
    net = fit_trailer(counts, targets, args.hidden, args.epochs, seed=args.seed)
    report("fitted", net, counts, targets)
    if held:
        report("held out", net, *load_labels(held))
    net.save(Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
