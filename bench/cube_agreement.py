"""Match cube decisions: ours against gnubg's ``evaluate_cube_decision`` (gnubg-nn).

    python bench/cube_agreement.py [--positions 400] [--seed 1]

Positions come from games of gnubg 0-ply against itself, kept when the side on roll has
55-92% cubeless winning chances (where cube decisions are not trivial); each gets a random
match score (pre-Crawford, or post-Crawford with the side on roll trailing) and a centred
cube.  Two comparisons:

* logic: the same probabilities (gnubg's 0-ply) through gnubg's cube logic and through ours
  (Janowski-style live cube over the Kazaross-XG2 table; gnubg-nn uses its own table);
* full: our decision from our own net's probabilities against gnubg's from its own.

Prints the percentage of agreeing double and take decisions.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
from gnubg_reference import played_game_cases, to_gnubg

from backgammon.players import get
from backgammon.players.cube import (
    CubeAction,
    CubeState,
    cube_decision,
    cube_efficiency,
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    net = get("neural", plies=0)
    cases = []
    for pos, _, _ in played_game_cases(4000, seed=args.seed):
        if pos.is_game_over() or rng.random() < 0.5:
            continue
        probs = gnubg_nn.probabilities(to_gnubg(pos), 0)
        if 0.55 <= probs[0] <= 0.92:
            cases.append((pos, probs))
        if len(cases) >= args.positions:
            break
    logic = {"double": 0, "take": 0}
    full = {"double": 0, "take": 0}
    gnubg_doubles = gnubg_passes = 0
    for pos, probs in cases:
        length = rng.choice([3, 5, 7, 9, 11])
        if rng.random() < 0.2:
            x_away, o_away = rng.randint(2, length), 1  # post-Crawford, we trail
        else:
            x_away, o_away = rng.randint(2, length), rng.randint(2, length)
        gnubg_nn.set.score(o_away, x_away, 0)  # gnubg-nn: (opponent away, side-to-decide away)
        key = gnubg_nn.key_of_board(to_gnubg(pos))
        g_double, g_take, g_too_good, *_ = gnubg_nn.evaluate_cube_decision(
            key, 0, -1, b"X", 1, tuple(probs)
        )
        g_double = bool(g_double) and not g_too_good
        gnubg_doubles += g_double
        gnubg_passes += not g_take
        state = CubeState(length, (length - x_away, length - o_away))
        x = cube_efficiency(pos.is_race(), pos.pip_counts()[0])
        ours = cube_decision(list(probs), state, x)
        logic["double"] += (ours.action is CubeAction.DOUBLE) == g_double
        logic["take"] += (ours.response is not CubeAction.PASS) == bool(g_take)
        mine = cube_decision([float(v) for v in net.probabilities(pos)], state, x)  # type: ignore[attr-defined]
        full["double"] += (mine.action is CubeAction.DOUBLE) == g_double
        full["take"] += (mine.response is not CubeAction.PASS) == bool(g_take)
    n = len(cases)
    print(f"{n} match positions (gnubg: {gnubg_doubles} doubles, {gnubg_passes} passes)")
    rows = (("same probabilities (cube logic)", logic), ("own nets (end to end)", full))
    for label, counts in rows:
        print(
            f"{label}: double/no-double agree {100 * counts['double'] / n:.1f}%, "
            f"take/pass agree {100 * counts['take'] / n:.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
