"""The plays our net and gnubg's part on: which of the two a net prefers, against rollouts.

    python bench/disputed_plays.py labels/gnubg-plays/plays-32001.npz [--weights W.npz ...]

Each file of ``labels/gnubg-plays`` holds, for rolls of gnubg's self-play where our 0-ply's
best play and gnubg 0-ply's differ, the positions after both (one decision group a roll),
rolled out by our bot to the end.  For every such pair this prints how often a net orders
the two plays as the rollouts do (on the pairs the rollouts part by more than 0.04 of
cubeless money equity) and how far its difference between them is from the rollouts'
(rms, and the mean absolute error), for gnubg's 0-ply net (gnubg-nn) beside ours (the
shipped weights, or each ``--weights``).  The net that chose the plays (stage 15's) and
gnubg's disagree on every pair by construction, so for it the two orders add up to one; a
net fitted to some of the files is judged on one it was not fitted to.  What the judge of a
match meets is these differences: a play's error is one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
from gnubg_reference import to_gnubg

from backgammon.core.position import Position
from backgammon.evaluation.probabilities import cubeless_equity
from backgammon.players.neural import NeuralPlayer

CLEAR = 0.04
"""Pairs whose rollouts differ by more than this (cubeless money equity) count for order."""


def pairs(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of the two positions of every decision group of exactly two."""
    _, inverse, counts = np.unique(groups, return_inverse=True, return_counts=True)
    order = np.argsort(groups, kind="stable")
    order = order[(counts[inverse] == 2)[order]]
    return order[0::2], order[1::2]


def report(name: str, probs: np.ndarray, truth: np.ndarray, i: np.ndarray, j: np.ndarray) -> None:
    """One line: order agreement, difference rms and mean absolute error against ``truth``."""
    eq = cubeless_equity(probs)
    diff = eq[i] - eq[j]
    err = diff - truth
    clear = np.abs(truth) > CLEAR
    agree = float(np.mean(np.sign(diff[clear]) == np.sign(truth[clear])))
    print(
        f"{name:>24}: order as the rollouts' {agree:6.1%} of {int(clear.sum())} pairs; "
        f"difference rms {np.sqrt(np.mean(err**2)):.4f}, mean absolute {np.mean(np.abs(err)):.4f}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels", type=Path, help="a rolled-out file of labels/gnubg-plays")
    ap.add_argument("--weights", type=Path, nargs="*", default=[], help="nets other than ours")
    args = ap.parse_args()
    with np.load(args.labels) as data:
        boards, labels, groups = data["boards"].astype(np.int64), data["probs"], data["groups"]
    i, j = pairs(groups)
    if not len(i):
        raise SystemExit(f"{args.labels} holds no pairs of plays (decision groups of two)")
    truth = cubeless_equity(labels.astype(np.float64))
    truth = truth[i] - truth[j]
    print(f"{len(i)} pairs of plays, {int(np.sum(np.abs(truth) > CLEAR))} clear, {args.labels}")
    theirs = [gnubg_nn.probabilities(to_gnubg(Position(list(b))), 0) for b in boards]
    report("gnubg 0-ply", np.array(theirs, dtype=np.float64), truth, i, j)
    for weights in [None, *args.weights]:
        probs = NeuralPlayer(0, weights=weights).evaluator.evaluate(boards)
        report("ours" if weights is None else weights.name, probs, truth, i, j)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
