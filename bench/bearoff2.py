"""The two-sided bear-off database: how long it takes to build, how big its file is, and how
well it agrees with gnubg's.

Prints the build time (wall and CPU, one core), the compressed file's size, then the largest
and mean differences from gnubg's own table (every one of the 853,776 positions, each of the
four equities), from gnubg's 0-ply evaluation (gnubg-nn, ``--positions`` random positions of
the range) and from Debian gnubg's 0-ply cube analysis in money play (the same positions).

    python bench/bearoff2.py [--positions 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
import numpy as np
from gnubg_reference import ask_gnubg_money_hints, board_of, gnubg_two_sided_table, to_gnubg

from backgammon import Position
from backgammon.evaluation import bearoff2
from backgammon.evaluation.bearoff2 import CENTRED, CUBELESS, OPPONENT_OWNS, OWNED

COLUMNS = {"cubeless": CUBELESS, "owned": OWNED, "centred": CENTRED, "opponent's": OPPONENT_OWNS}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    wall, cpu = time.perf_counter(), time.process_time()
    table = bearoff2.build()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bearoff2.npz"
        bearoff2.write_table(table, path)
        size = path.stat().st_size
        db = bearoff2.TwoSidedDatabase.load(path)
    print(f"build: {wall:.1f} s wall, {cpu:.1f} s CPU; file {size / 1e6:.2f} MB (16-bit, npz)")

    gnubg = gnubg_two_sided_table()
    for name, column in COLUMNS.items():
        diff = np.abs(db.table[1:, 1:, column] - gnubg[1:, 1:, column])
        print(f"gnubg's table, {name:>10}: max {diff.max():.2e}, mean {diff.mean():.2e}")

    rng = random.Random(args.seed)
    homes = bearoff2._homes()[1:]
    positions = [
        Position(board_of(rng.choice(homes), rng.choice(homes))) for _ in range(args.positions)
    ]
    boards = np.array([p.board for p in positions])
    ours = db.equities(boards)
    theirs = np.array([gnubg_nn.probabilities(to_gnubg(p), 0)[0] for p in positions])
    diff = np.abs((ours[:, CUBELESS] + 1.0) / 2.0 - theirs)
    n = len(positions)
    print(f"gnubg-nn 0-ply win chance ({n}): max {diff.max():.2e}, mean {diff.mean():.2e}")

    start = time.perf_counter()
    hints = ask_gnubg_money_hints(positions)
    seconds = time.perf_counter() - start
    cubeless = np.abs(ours[:, CUBELESS] - np.array([h[0] for h in hints]))
    nd = np.abs(ours[:, CENTRED] - np.array([h[1]["No double"] for h in hints]))
    dt = np.abs(2.0 * ours[:, OPPONENT_OWNS] - np.array([h[1]["Double take"] for h in hints]))
    same = 0
    for e, (_, _, action) in zip(ours, hints, strict=True):
        double = min(2.0 * e[OPPONENT_OWNS], 1.0) >= e[CENTRED]
        same += int(double == action.startswith(("Double", "Redouble")))
    print(
        f"Debian gnubg cube analysis ({len(positions)}, {seconds:.1f} s): cubeless max "
        f"{cubeless.max():.2e}, no double max {nd.max():.2e}, double/take max {dt.max():.2e}; "
        f"same double/no double {same}/{len(positions)}"
    )


if __name__ == "__main__":
    main()
