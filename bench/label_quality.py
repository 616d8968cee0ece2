"""How good are training labels?  Ours beside gnubg's 2-ply, on our own self-play positions.

    python bench/label_quality.py [--positions 60] [--seed 1] [--trials 36] [--truncate 7]
                                  [--weights W] [--nets W2 W3 ...]

Self-play games of our net (dice from ``--seed``) give contact positions (every fifth one
met, side on roll).  Each gets the labels a training round could use: our 0-ply, our
2-ply (``distill generate --plies 2``) and a variance-reduced 0-ply rollout of ``--trials``
trials truncated at ``--truncate`` plies (``distill generate --rollout-trials``).  Their
cubeless money equities are compared with gnubg's 2-ply (gnubg-nn, a benchmark-only
dependency, a measuring stick and never a training target): the root mean square and mean
differences, and what each label costs per position (CPU time).  A rollout's difference
includes its own noise, which fitting averages away.  ``--nets`` adds the 0-ply of other
nets on the same positions: how far a round of fitting moved the net towards gnubg's
judgement, without playing a game.
"""

from __future__ import annotations

import argparse
import random
import time

import gnubg_nn
import numpy as np
from threadpoolctl import threadpool_limits

from backgammon.board import Position
from backgammon.players.bearoff import BearoffDatabase
from backgammon.players.encode import boards_array, is_race
from backgammon.players.evaluator import CompositeEvaluator
from backgammon.players.net import NetPair, default_nets
from backgammon.players.search import Searcher
from backgammon.rollout import RolloutSettings
from backgammon.training.distill import generate, rolled_out, two_ply


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trials", type=int, default=36)
    ap.add_argument("--truncate", type=int, default=7)
    ap.add_argument("--weights", default=None)
    ap.add_argument("--nets", nargs="*", default=[], help="more nets whose 0-ply to compare")
    args = ap.parse_args()
    threadpool_limits(limits=1)
    nets = default_nets() if args.weights is None else NetPair.load(args.weights)
    database = BearoffDatabase.load(progress=False)
    searcher = Searcher(CompositeEvaluator(nets, database))
    rng = random.Random(args.seed)
    sample: list[Position] = []
    while len(sample) < args.positions:
        # distill's own positions (its cheap 1-ply labels are not used)
        boards, _, _ = generate(searcher, 1, rng, alternatives=0, progress=False, plies=1)
        boards = boards.astype(np.int64)
        sample += [Position(tuple(row)) for row in boards[~is_race(boards)][::5].tolist()]
    sample = sample[: args.positions]
    equity = searcher.equity

    def gnubg(plies: int) -> np.ndarray:
        rows = [gnubg_nn.probabilities([list(a) for a in p.arrays()], plies) for p in sample]
        return equity(np.array(rows))

    t = time.process_time()
    ours0 = equity(np.array([searcher.evaluate(p, 0) for p in sample]))
    cost0 = (time.process_time() - t) / len(sample)
    t = time.process_time()
    ours2 = equity(two_ply(searcher, sample))
    cost2 = (time.process_time() - t) / len(sample)
    settings = RolloutSettings(
        trials=args.trials, truncate=args.truncate, batch=args.trials, seed=args.seed
    )
    t = time.process_time()
    rolled = rolled_out(sample, settings, args.weights)
    cost_r = (time.process_time() - t) / len(sample)
    ours_r = equity(rolled)
    reference = gnubg(2)
    print(
        f"{len(sample)} contact positions of our self-play (seed {args.seed}); "
        "cubeless money equity against gnubg 2-ply"
    )
    print(f"{'label':34} {'rms':>7} {'mean':>8} {'CPU s/position':>15}")
    horizon = f"{args.truncate} plies" if args.truncate else "to the end"
    rows = [
        ("gnubg 0-ply", gnubg(0), None),
        ("our 0-ply", ours0, cost0),
        ("our 2-ply", ours2, cost2),
        (f"our rollout, {args.trials} trials, {horizon}", ours_r, cost_r),
    ]
    sample_boards = boards_array(p.board for p in sample)
    for path in args.nets:  # through the evaluator the player uses, as "our 0-ply" is
        other = CompositeEvaluator(NetPair.load(path), database).evaluate(sample_boards)
        rows.append((f"0-ply of {path}", equity(other), None))
    for name, values, cost in rows:
        diff = values - reference
        rms = float(np.sqrt((diff**2).mean()))
        spent = "" if cost is None else f"{cost:.3f}"  # gnubg's own cost is not ours to show
        print(f"{name:34} {rms:7.4f} {float(diff.mean()):+8.4f} {spent:>15}")


if __name__ == "__main__":
    main()
