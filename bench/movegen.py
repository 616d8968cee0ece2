"""Move generation: ours against gnubg's C generator on the same (position, roll) cases.

    python bench/movegen.py [--cases N] [--repeat R]

Cases come from games of gnubg 0-ply against itself (tests/gnubg_reference.py).  Both
generators produce every distinct resulting position of each case; gnubg's through the
PyPI package gnubg-nn.  Prints microseconds per case for both and the ratio, best of R runs
per chunk of 500 cases, the two timed back to back in CPU time of this thread (the machine is
shared and noisy: the wall clock also counts other programs' turns on the core).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
from gnubg_reference import played_game_cases, to_gnubg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    cases = []
    for case in played_game_cases(10**9, seed=7):
        cases.append(case)
        if len(cases) == args.cases:
            break
    ours = [(pos, (d1, d2)) for pos, d1, d2 in cases]
    theirs = [(to_gnubg(pos), d1, d2) for pos, d1, d2 in cases]
    doubles = sum(d1 == d2 for _, d1, d2 in cases)

    moves = gnubg_nn.moves
    chunk = 500

    def timed_pair(lo: int) -> tuple[float, float]:
        # The two generators run back to back on the same chunk, so both see the same load.
        start = time.thread_time()
        for pos, dice in ours[lo : lo + chunk]:
            pos.legal_moves(dice)
        middle = time.thread_time()
        for board, d1, d2 in theirs[lo : lo + chunk]:
            moves(board, d1, d2)
        return middle - start, time.thread_time() - middle

    # Per chunk, the best of the repeats; summed over the chunks.
    best_ours = best_gnubg = 0.0
    for lo in range(0, len(cases), chunk):
        pairs = [timed_pair(lo) for _ in range(args.repeat)]
        best_ours += min(p[0] for p in pairs)
        best_gnubg += min(p[1] for p in pairs)
    n = len(cases)
    us_ours, us_gnubg = best_ours / n * 1e6, best_gnubg / n * 1e6
    print(f"cases: {n} from played games ({doubles} doubles), best of {args.repeat} per chunk")
    print(f"backgammon (pure Python): {us_ours:8.2f} µs per case")
    print(f"gnubg (C, via gnubg-nn):  {us_gnubg:8.2f} µs per case")
    print(f"ratio ours/gnubg:         {us_ours / us_gnubg:8.2f}x")


if __name__ == "__main__":
    main()
