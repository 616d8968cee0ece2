"""How far our 0-ply probabilities are from gnubg's, by gnubg's class of the position, and
which of the two a rollout with our own bot agrees with.

    python bench/calibration.py [--games 400] [--seed 7] [--weights W]
                                [--rollouts 0] [--trials 432] [--class crashed]

Positions come from games of gnubg 0-ply against itself (gnubg-nn, a benchmark-only
dependency), one in four kept, and those either side wins 98% or more dropped. For each
class (contact, crashed, race; back games apart from other contact) it prints the mean
signed and the mean absolute difference of our five probabilities (win, win gammon, win
backgammon, lose gammon, lose backgammon) from gnubg's. With ``--rollouts K``, the first K
positions of ``--class`` are also rolled out (``--trials`` games each, our 0-ply bot on both
sides, variance reduction) and both programs' mean absolute difference from the rollout is
printed (for back games also the holder's winning chance, signed): the cube decisions of
``bench/cube_agreement.py`` hang on these probabilities.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
from gnubg_reference import played_game_cases, to_gnubg

from backgammon.core.position import Position
from backgammon.evaluation.encode import NET_CLASSES, boards_array, net_routes
from backgammon.judging.rollout import RolloutSettings, rollout
from backgammon.players.neural import NeuralPlayer

CLASSES = ("contact", "crashed", "race", "back")


def position_class(pos: Position) -> str:
    """The net that judges a position still in play when a weights file holds all four
    (:func:`~backgammon.evaluation.encode.net_routes`): gnubg's classes (bear-offs count as
    races here), with back games apart from other contact."""
    race = np.array([pos.is_race()])
    return NET_CLASSES[net_routes(boards_array([pos.board]), race, True, True)[0]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--weights", default=None)
    ap.add_argument("--rollouts", type=int, default=0)
    ap.add_argument("--trials", type=int, default=432)
    ap.add_argument("--class", dest="kind", choices=CLASSES, default="crashed")
    args = ap.parse_args()

    ours = NeuralPlayer(weights=args.weights)
    rng = random.Random(args.seed)
    diffs: dict[str, list[np.ndarray]] = {k: [] for k in CLASSES}
    rolled: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    holder: list[float] = []  # +1 where the side on roll trails the race
    for pos, _, _ in played_game_cases(args.games, seed=args.seed):
        if pos.is_game_over() or rng.random() < 0.75:
            continue
        theirs = np.array(gnubg_nn.probabilities(to_gnubg(pos), 0))
        if not 0.02 <= theirs[0] <= 0.98:
            continue
        mine = np.array(ours.probabilities(pos, 0))
        kind = position_class(pos)
        diffs[kind].append(mine - theirs)
        if kind == args.kind and len(rolled) < args.rollouts:
            settings = RolloutSettings(trials=args.trials, seed=len(rolled))
            result = rollout(pos, settings=settings, weights=args.weights, workers=1)
            rolled.append((mine, theirs, np.array(result.candidates[0].probabilities)))
            mover, other = pos.pip_counts()
            holder.append(1.0 if mover > other else -1.0)

    print(f"our 0-ply minus gnubg 0-ply, {args.games} gnubg self-play games (seed {args.seed})")
    print("class      positions   mean signed: w wg wbg lg lbg        mean absolute")
    for kind in CLASSES:
        if diffs[kind]:
            d = np.array(diffs[kind])
            print(f"{kind:<10} {len(d):9d}  {five(d.mean(0))}  {five(np.abs(d).mean(0))}")
    if rolled:
        r = np.array(rolled)
        print(f"{len(r)} {args.kind} positions rolled out ({args.trials} trials, our 0-ply):")
        print(f"  ours  - rollout, mean absolute: {five(np.abs(r[:, 0] - r[:, 2]).mean(0))}")
        print(f"  gnubg - rollout, mean absolute: {five(np.abs(r[:, 1] - r[:, 2]).mean(0))}")
        if args.kind == "back":
            h = np.array(holder)
            ours, gnubg = ((r[:, k, 0] - r[:, 2, 0]) * h for k in (0, 1))
            print(
                f"  the holder's win, minus the rollout's: ours {ours.mean():+.4f}, "
                f"gnubg {gnubg.mean():+.4f}"
            )


def five(p: np.ndarray) -> str:
    """Five probabilities, signed, to a ten-thousandth."""
    return " ".join(f"{x:+.4f}" for x in p)


if __name__ == "__main__":
    main()
