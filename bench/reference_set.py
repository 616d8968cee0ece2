"""How far each judge is from the rollouts of a reference set: ours and gnubg's, 0-2 ply.

    python bench/reference_set.py [FILE ...] [--plies 0 1 2] [--weights W] [--limit N]

The reference set (``labels/broad`` seeds 33000-33002 by default, kept out of every fit:
every contact position of gnubg 0-ply's self-play) holds boards seen from the side on roll,
rolled out to the end by our bot (the broad file) and by gnubg (``labels/reference``, made
by ``bench/reference_gnubg.py``).  For each depth, our player's judgement (the shipped net
or ``--weights``) and gnubg's (gnubg-nn, a benchmark-only dependency) of the same positions
are compared with each program's rollouts and with their mean: the root mean square
distance of the win chance (points) and of the cubeless money equity, with the CPU time
each took.  The rollouts' own noise adds to every distance alike; gnubg's standard errors
give its size, printed first.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
from gnubg_reference import to_gnubg

from backgammon.core.position import Position
from backgammon.evaluation.probabilities import cubeless_equity
from backgammon.players.neural import NeuralPlayer

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_SEEDS = (33000, 33001, 33002)
"""The broad files that form the reference set (bench/reference_gnubg.py rolls out the same)."""


def load(files: list[Path], limit: int | None) -> tuple[list[Position], np.ndarray]:
    """The positions of ``files`` and their rolled-out probabilities (the first ``limit``)."""
    boards, probs = [], []
    for f in files:
        with np.load(f) as d:
            boards.append(d["boards"].astype(np.int64))
            probs.append(d["probs"].astype(np.float64))
    b, p = np.concatenate(boards), np.concatenate(probs)
    if limit is not None:
        b, p = b[:limit], p[:limit]
    return [Position(tuple(int(x) for x in row)) for row in b], p


def distances(judged: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """The rms distance of the win chance (points) and of the cubeless equity."""
    win = float(np.sqrt(np.mean((judged[:, 0] - truth[:, 0]) ** 2))) * 100.0
    eq = cubeless_equity(judged) - cubeless_equity(truth)
    return win, float(np.sqrt(np.mean(eq**2)))


def gnubg_rollouts(files: list[Path]) -> np.ndarray | None:
    """gnubg's rollouts of ``files`` (``labels/reference/gnubg-SEED.npz``), when all exist."""
    probs = []
    for f in files:
        g = ROOT / "labels" / "reference" / f"gnubg-{f.stem.split('-')[-1]}.npz"
        if not g.exists():
            return None
        with np.load(g) as d:
            probs.append(d["probs"].astype(np.float64))
    return np.concatenate(probs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--plies", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--weights", default=None)
    ap.add_argument("--limit", type=int, default=None, help="the first N positions only")
    args = ap.parse_args()
    files = args.files or [ROOT / "labels" / "broad" / f"broad-{s}.npz" for s in REFERENCE_SEEDS]
    positions, truth = load(files, args.limit)
    theirs = gnubg_rollouts(files)
    truths = {"our": truth}
    if theirs is not None:
        theirs = theirs[: len(truth)]
        truths = {"our": truth, "gnubg's": theirs, "mean": (truth + theirs) / 2}
        win, eq = distances(truth, theirs)
        print(f"the two programs' rollouts apart: {win:.2f} points of win, {eq:.3f} equity (rms)")
    ours = NeuralPlayer(0, weights=args.weights)
    print(f"{len(positions)} positions of {len(files)} files, rms from the rollouts")
    print("judge       " + "".join(f"{k + ' rollouts':>26}" for k in truths) + "   CPU s")
    print("            " + "   win (points)  equity   " * len(truths))
    for plies in args.plies:
        for name in ("ours", "gnubg"):
            t = time.process_time()
            if name == "ours":
                judged = np.array([ours.probabilities(p, plies).array() for p in positions])
            else:
                judged = np.array(
                    [gnubg_nn.probabilities(to_gnubg(p), plies)[:5] for p in positions]
                )
            cpu = time.process_time() - t
            cells = ""
            for t_probs in truths.values():
                win, eq = distances(judged, t_probs)
                cells += f"{win:15.2f} {eq:7.3f}    "
            print(f"{name:6} {plies}-ply{cells}{cpu:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
