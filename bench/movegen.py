"""Move generation: ours against gnubg's C generator on the same (position, roll) cases.

    python bench/movegen.py [--cases N] [--repeat R]

Cases come from games of gnubg 0-ply against itself (tests/gnubg_reference.py).  Both
generators produce every distinct resulting position of each case; gnubg's through the
PyPI package gnubg-nn.  Prints microseconds per case for both and the ratio, best of R runs
per chunk of 500 cases, the two timed back to back in CPU time of this thread (the machine is
shared and noisy: the wall clock also counts other programs' turns on the core).  Also the
compiled batch generator that lookahead and rollouts use
(:func:`backgammon.evaluation.children.child_boards`, each chunk in one call, the boards after
every play made too).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
from gnubg_reference import played_game_cases, to_gnubg

from backgammon.evaluation.children import child_boards


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

    child_boards([ours[0][0].board], [ours[0][1]])  # compiled (or loaded) before timing

    def timed(lo: int) -> tuple[float, float, float]:
        # The generators run back to back on the same chunk, so all see the same load.
        start = time.thread_time()
        for pos, dice in ours[lo : lo + chunk]:
            pos.legal_moves(dice)
        middle = time.thread_time()
        for board, d1, d2 in theirs[lo : lo + chunk]:
            moves(board, d1, d2)
        batch = time.thread_time()
        part = ours[lo : lo + chunk]
        child_boards([pos.board for pos, _ in part], [dice for _, dice in part])
        return middle - start, batch - middle, time.thread_time() - batch

    # Per chunk, the best of the repeats; summed over the chunks.
    best = [0.0, 0.0, 0.0]
    for lo in range(0, len(cases), chunk):
        runs = [timed(lo) for _ in range(args.repeat)]
        for k in range(3):
            best[k] += min(r[k] for r in runs)
    n = len(cases)
    us_ours, us_gnubg, us_batch = (t / n * 1e6 for t in best)
    print(f"cases: {n} from played games ({doubles} doubles), best of {args.repeat} per chunk")
    print(f"backgammon (pure Python): {us_ours:8.2f} µs per case")
    print(f"gnubg (C, via gnubg-nn):  {us_gnubg:8.2f} µs per case")
    print(f"ratio ours/gnubg:         {us_ours / us_gnubg:8.2f}x")
    print(f"backgammon, compiled, {chunk} cases a call, boards made: {us_batch:8.2f} µs per case")
    print(f"ratio compiled/gnubg:     {us_batch / us_gnubg:8.2f}x")


if __name__ == "__main__":
    main()
