"""Our legal plays against gnubg's on many cases (outside CI): every distinct result must agree.

    python bench/differential.py --cases 1000000

Cases: positions from games of gnubg 0-ply against itself, each with all 21 rolls, plus
random bear-offs and positions full of closed points (see tests/gnubg_reference.py).
Prints the number of cases, how many of each kind, and every mismatch (there should be none).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from gnubg_reference import (
    Comparison,
    all_rolls,
    bearoff_cases,
    blocked_cases,
    played_game_cases,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    comparison = Comparison()
    start = time.perf_counter()
    target = args.cases
    # A tenth each from bear-offs and blocked positions, the rest from played games.
    for case in bearoff_cases(target // 10, seed=args.seed):
        comparison.check(*case)
    for pos in blocked_cases(target // 210, seed=args.seed):
        for case in all_rolls(pos):
            comparison.check(*case)
    for pos, _, _ in played_game_cases(10**9, seed=args.seed):
        for case in all_rolls(pos):
            comparison.check(*case)
        if comparison.cases >= target:
            break
        if comparison.cases % 50_000 < 21:
            print(
                f"... {comparison.cases} cases, {len(comparison.mismatches)} mismatches", flush=True
            )
    elapsed = time.perf_counter() - start
    print(f"cases: {comparison.cases} in {elapsed:.0f} s")
    for kind, n in sorted(comparison.kinds.items()):
        print(f"  {kind:28s} {n}")
    print(f"mismatches: {len(comparison.mismatches)}")
    for line in comparison.mismatches[:50]:
        print("  ", line)
    return 1 if comparison.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
