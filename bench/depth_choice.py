"""Which depth of ours picks plays as gnubg's 2-ply does: 0-ply, 1-ply and their blends.

    python bench/depth_choice.py [--decisions 400] [--seed 91]

Decisions (a roll with a choice) from games of gnubg 0-ply against itself; the six best
plays of each at our 0-ply are judged by gnubg's 2-ply cubeless equity (gnubg-nn, a
benchmark-only dependency) and by ours at 0-ply, at 1-ply (pure, without the player's blend)
and at blends ``(1 - w) * 0-ply + w * 1-ply``.  Printed for each: the equity its pick gives
up against gnubg 2-ply's best (millipoints per decision), how often it picks gnubg's play,
and the rms error of its differences between the plays of a decision (each less the
decision's mean).  The player's 1-ply uses ``w`` = ``backgammon.players.neural.ODD_BLEND``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
import numpy as np
from gnubg_reference import played_game_cases, to_gnubg

from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.probabilities import MONEY_WEIGHTS
from backgammon.evaluation.search import Searcher
from backgammon.players.neural import NeuralPlayer

BLENDS = (0.0, 0.25, 0.4, 0.5, 0.6, 0.75, 1.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--decisions", type=int, default=400)
    ap.add_argument("--seed", type=int, default=91)
    args = ap.parse_args()
    w, c = MONEY_WEIGHTS
    evaluator: CompositeEvaluator = NeuralPlayer(0).evaluator
    s = Searcher(evaluator)  # pure depths

    def eq(p: np.ndarray) -> float:
        return float(np.asarray(p) @ w + c)

    cases = []
    for pos, d1, d2 in played_game_cases(args.decisions, seed=args.seed):
        moves = pos.legal_moves((d1, d2))
        if len(moves) > 1:
            cases.append((pos, moves))
    random.Random(2).shuffle(cases)
    cases = cases[: args.decisions]
    lost: dict[float, list[float]] = {b: [] for b in BLENDS}
    err: dict[float, list[float]] = {b: [] for b in BLENDS}
    for pos, moves in cases:
        afters = [pos.play(m) for m in moves]
        v0 = np.array([-eq(s.evaluate(a, 0)) for a in afters])
        top = np.argsort(-v0)[:6]
        afters, v0 = [afters[i] for i in top], v0[top]
        g2 = np.array([-eq(gnubg_nn.probabilities(to_gnubg(a), 2)) for a in afters])
        v1 = np.array([-eq(s.evaluate(a, 1)) for a in afters])
        for b in BLENDS:
            v = (1 - b) * v0 + b * v1
            lost[b].append(float(g2.max() - g2[np.argmax(v)]))
            d = (v - v.mean()) - (g2 - g2.mean())
            err[b].append(float(np.sqrt((d**2).mean())))
    print(f"{len(cases)} decisions of gnubg's self-play (seed {args.seed}), judged by gnubg 2-ply")
    for b in BLENDS:
        v = np.array(lost[b])
        name = {0.0: "0-ply", 1.0: "1-ply"}.get(b, f"blend {b:.2f}")
        print(
            f"  {name:<11} gives up {1000 * v.mean():5.2f} mppg per decision, picks gnubg's "
            f"{np.mean(v < 1e-9):4.0%}, rms of differences {1000 * np.mean(err[b]):5.1f} mppg"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
