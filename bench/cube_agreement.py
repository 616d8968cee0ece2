"""Cube decisions: ours against GNU Backgammon's own (Debian ``gnubg``, 0-ply ``hint``).

    python bench/cube_agreement.py [--positions 300] [--seed 1] [--money 0.2] [--against 0]

Positions come from games of gnubg 0-ply against itself (gnubg-nn), kept when the side on
roll has 55-92% cubeless winning chances (where cube decisions are not trivial).  Each gets
a random cube state: a money game (a share ``--money``, with or without Jacoby), or a match
score (pre-Crawford, or post-Crawford with the side on roll trailing) with a centred cube or
one the side on roll owns.  Debian's gnubg prints for each its 0-ply cubeless probabilities
and its proper cube action.  Two comparisons:

* logic: gnubg's probabilities through our cube logic (:mod:`backgammon.evaluation.cube`)
  against gnubg's action (double/no double, take/pass);
* end to end: our own net's cube decision (cubeful, at ``--plies``) against gnubg's action
  (gnubg at 0-ply).

``--gnubg-plies N`` adds a yardstick for the second: gnubg's own decisions at N plies
against its 0-ply ones (a stronger judge of the same positions, not a copy of its net).
``--against N`` takes gnubg's decisions at N plies as the reference (``--against 2
--plies 2``: the judges' depth, as in match analysis); the logic line then puts gnubg's
N-ply cubeless probabilities through our 0-ply cube logic, so it is no longer exact.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
from gnubg_reference import GnubgCube, ask_gnubg_cube, played_game_cases, to_gnubg

from backgammon.evaluation.cube import CubeAction, CubeState, cube_decision, cube_efficiency
from backgammon.players.neural import NeuralPlayer


def make_cases(count: int, seed: int, money: float) -> list[GnubgCube]:
    """Positions from gnubg's self-play with random cube states (see the module doc)."""
    rng = random.Random(seed)
    out: list[GnubgCube] = []
    for pos, _, _ in played_game_cases(6000, seed=seed):
        if len(out) >= count:
            break
        if pos.is_game_over() or rng.random() < 0.5:
            continue
        if not 0.55 <= gnubg_nn.probabilities(to_gnubg(pos), 0)[0] <= 0.92:
            continue
        if rng.random() < money:
            owner = rng.choice([0, 1])
            jacoby = owner == 0 and rng.random() < 0.5
            out.append(
                GnubgCube(pos, CubeState(0, (0, 0), 1 if owner == 0 else 2, owner, jacoby=jacoby))
            )
            continue
        length = rng.choice([3, 5, 7, 9, 11])
        a = rng.randint(2, length)
        b = 1 if rng.random() < 0.2 else rng.randint(2, length)
        cube, owner = 1, 0
        if b > 1 and rng.random() < 0.3 and a > 2 and b > 2:
            cube, owner = 2, 1
        out.append(GnubgCube(pos, CubeState(length, (length - a, length - b), cube, owner)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--money", type=float, default=0.2, help="share of money-game cases")
    ap.add_argument("--show", action="store_true", help="print each disagreement")
    ap.add_argument("--plies", type=int, default=0, help="our depth end to end (0, 1, 2)")
    ap.add_argument("--weights", type=Path, default=None, help="a .npz other than the shipped one")
    ap.add_argument(
        "--gnubg-plies", type=int, default=None, help="also gnubg at this depth against its 0-ply"
    )
    ap.add_argument(
        "--against", type=int, default=0, help="gnubg's depth for the reference decisions"
    )
    args = ap.parse_args()
    cases = make_cases(args.positions, args.seed, args.money)
    ask_gnubg_cube(cases, args.against)
    deeper: list[GnubgCube] = []
    if args.gnubg_plies is not None:
        deeper = [GnubgCube(c.position, c.state) for c in cases]
        ask_gnubg_cube(deeper, args.gnubg_plies)
    net = NeuralPlayer(args.plies, weights=args.weights)
    n = len(cases)
    end = f"end to end, ours at {args.plies}-ply"
    tallies = {"logic": [0, 0], end: [0, 0]}
    for c in cases:
        x = cube_efficiency(c.position.is_race(), c.position.pip_counts()[0])
        for label in tallies:
            if label == "logic":
                d = cube_decision(list(c.probs), c.state, x)
            else:
                d = net.cube_decision(c.position, c.state)
            same_double = (d.action is CubeAction.DOUBLE) == c.doubles
            same_take = (d.response is not CubeAction.PASS) == c.takes
            tallies[label][0] += same_double
            tallies[label][1] += same_take
            if args.show and label == "logic" and not (same_double and same_take):
                print(c.state, c.probs, "gnubg", c.doubles, c.takes, "ours", d)
    if deeper:
        label = f"gnubg at {args.gnubg_plies}-ply"
        tallies[label] = [
            sum(c.doubles == g.doubles for c, g in zip(cases, deeper, strict=True)),
            sum(c.takes == g.takes for c, g in zip(cases, deeper, strict=True)),
        ]
    doubles = sum(c.doubles for c in cases)
    passes = sum(not c.takes for c in cases)
    money = sum(c.state.is_money for c in cases)
    print(
        f"{n} positions ({money} money, {n - money} match; "
        f"gnubg at {args.against}-ply: {doubles} doubles, {passes} passes)"
    )
    for label, (dd, t) in tallies.items():
        print(
            f"{label}: double/no-double agree {100 * dd / n:.1f}%, "
            f"take/pass agree {100 * t / n:.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
