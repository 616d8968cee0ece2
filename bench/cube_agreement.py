"""Match cube decisions: ours against gnubg's ``evaluate_cube_decision`` (gnubg-nn).

    python bench/cube_agreement.py [--positions 400] [--seed 1]

Positions come from games of gnubg 0-ply against itself, kept when the side on roll has
55-92% cubeless winning chances (where cube decisions are not trivial); each gets a random
match score (pre-Crawford, or post-Crawford with the side on roll trailing) and a centred
cube.  Two comparisons:

* logic: the same probabilities (gnubg's 0-ply) through gnubg's cube logic and through ours
  (Janowski-style live cube over the Kazaross-XG2 table; gnubg-nn uses its own table);
* logic, gnubg's table: the same, with our cube logic reading gnubg-nn's own pre-Crawford
  table (``gnubg_nn.equities``; post-Crawford values stay Kazaross-XG2's), which separates
  differences of table from differences of method;
* full: our decision from our own net's probabilities against gnubg's from its own.

Prints the percentage of agreeing double and take decisions.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
from gnubg_reference import CubeCase, cube_cases

from backgammon.players import get
from backgammon.players.cube import (
    CubeAction,
    CubeDecision,
    CubeState,
    cube_decision,
    cube_efficiency,
)
from backgammon.players.met import KAZAROSS_XG2, MatchEquityTable


def gnubg_table(size: int = 25) -> MatchEquityTable:
    """gnubg-nn's pre-Crawford match equities (it reports them as -1..1) as a table."""
    pre = tuple(
        tuple((1.0 + gnubg_nn.equities.value(i, j)) / 2.0 for j in range(1, size + 1))
        for i in range(1, size + 1)
    )
    return MatchEquityTable("gnubg-nn", pre, KAZAROSS_XG2.post[:size])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    net = get("neural", plies=0)
    cases = cube_cases(args.positions, args.seed)
    logic = {"double": 0, "take": 0}
    same_table = {"double": 0, "take": 0}
    full = {"double": 0, "take": 0}
    their_met = gnubg_table()

    def tally(counts: dict[str, int], ours: CubeDecision, case: CubeCase) -> None:
        counts["double"] += (ours.action is CubeAction.DOUBLE) == case.gnubg_doubles
        counts["take"] += (ours.response is not CubeAction.PASS) == case.gnubg_takes

    for case in cases:
        pos, length = case.position, case.length
        state = CubeState(length, (length - case.away[0], length - case.away[1]))
        x = cube_efficiency(pos.is_race(), pos.pip_counts()[0])
        tally(logic, cube_decision(case.probs, state, x), case)
        tally(same_table, cube_decision(case.probs, state, x, their_met), case)
        mine = [float(v) for v in net.probabilities(pos)]  # type: ignore[attr-defined]
        tally(full, cube_decision(mine, state, x), case)
    gnubg_doubles = sum(c.gnubg_doubles for c in cases)
    gnubg_passes = sum(not c.gnubg_takes for c in cases)
    n = len(cases)
    print(f"{n} match positions (gnubg: {gnubg_doubles} doubles, {gnubg_passes} passes)")
    rows = (
        ("same probabilities (cube logic)", logic),
        ("same probabilities and gnubg-nn's table", same_table),
        ("own nets (end to end)", full),
    )
    for label, counts in rows:
        print(
            f"{label}: double/no-double agree {100 * counts['double'] / n:.1f}%, "
            f"take/pass agree {100 * counts['take'] / n:.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
