"""Labels for the trailer net: trailers (a side with all 15 checkers, some outside its home
board), each played alone ``GAMES`` times by ``TrailerGames``: after how many rolls it bore
its first checker off, and after how many its last checker left the other side's home board
(counts per number of rolls, 0..31, the last bin meaning "not yet").

    python labels/trailer/make.py --policy labels/trailer/policy-1.npz \\
        --out labels/trailer/round2 labels/race-gammons/race-36001.npz ...   # their trailers
    python labels/trailer/make.py --policy ... --out ... --games 100 --random 37001 37002 ...

Each output, ``OUT/trailer-SEED.npz``, uses its source file's seed for the dice; a file that
exists is skipped, so a stopped run resumes.  ``--random SEED`` draws 1,000 trailers instead
(``random_trailers``: checkers far back, in the middle and home in proportions the self-play
files rarely hold), so that a net fitted to both knows the whole class.  ``--policy NET``
plays the trailer by that trailer net; without it, by the rule (round 1's labels were made by
the rule, before it ran checkers out of the other side's home first).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from backgammon.core.position import Position
from backgammon.evaluation.bearoff import MAX_ROLLS, BearoffDatabase
from backgammon.evaluation.trailer import TrailerNet
from backgammon.training.trailer import TrailerGames

GAMES = 400


def trailers(boards: np.ndarray) -> list[Position]:
    """The distinct trailer positions of ``boards`` (the trailer on roll)."""
    seen: dict[tuple[int, ...], Position] = {}
    for b in boards.astype(int):
        pos = Position(tuple(int(x) for x in b))
        for side in (pos, pos.flip()):
            mine = np.maximum(np.array(side.board), 0)
            if mine.sum() == 15 and mine[7:].sum() > 0:
                seen.setdefault(side.board, side)
    return list(seen.values())


RANDOM_COUNT = 1000


def random_trailers(seed: int, count: int = RANDOM_COUNT) -> list[Position]:
    """``count`` trailers (the side on roll, all 15 checkers, some outside home) with up to
    five checkers in the other side's home or just before it, up to ten in the outfield,
    the rest home; the other side all home on its 1-to-6 points, not in the way."""
    rng = np.random.default_rng(seed)
    seen: dict[tuple[int, ...], Position] = {}
    while len(seen) < count:
        board = np.zeros(26, dtype=int)
        back = int(rng.integers(0, 6))
        mid = int(rng.integers(0 if back else 1, 11))
        low = 13 + int(rng.integers(0, 6)) if back else 13
        for point in rng.integers(low, 24, size=back):
            board[point] += 1
        for point in rng.integers(7, 13, size=mid):
            board[point] += 1
        for point in rng.integers(1, 7, size=15 - back - mid):
            board[point] += 1
        top = int(np.nonzero(board)[0].max())
        theirs = max(1, 24 - top)  # their lowest point (our numbering 25 - p) above our top
        for point in rng.integers(25 - min(theirs, 6), 25, size=15):
            board[point] -= 1
        seen.setdefault(tuple(int(x) for x in board), Position(tuple(int(x) for x in board)))
    return list(seen.values())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("sources", nargs="+", help="gammon-race label files, or seeds")
    ap.add_argument("--random", action="store_true", help="the sources are seeds")
    ap.add_argument("--policy", help="a trailer net to play by (default: the rule)")
    ap.add_argument("--out", required=True, help="the folder for the label files")
    ap.add_argument("--games", type=int, default=GAMES, help="games per trailer")
    args = ap.parse_args()
    db = BearoffDatabase.load()
    net = TrailerNet.load(Path(args.policy)) if args.policy else None
    for name in args.sources:
        seed = int(name) if args.random else int(Path(name).stem.split("-")[-1])
        out = Path(args.out) / f"trailer-{seed}.npz"
        if out.exists():
            continue
        positions = random_trailers(seed) if args.random else trailers(np.load(name)["boards"])
        trailer = TrailerGames(db, seed, net)
        first = np.zeros((len(positions), MAX_ROLLS + 1), dtype=np.uint16)
        escaped = np.zeros_like(first)
        for i, pos in enumerate(positions):
            f, e = trailer.times(pos, args.games)
            first[i] = np.bincount(f, minlength=MAX_ROLLS + 1)
            escaped[i] = np.bincount(e, minlength=MAX_ROLLS + 1)
        boards = np.array([p.board for p in positions], dtype=np.int8)
        np.savez_compressed(str(out) + ".tmp.npz", boards=boards, first=first, escaped=escaped)
        Path(str(out) + ".tmp.npz").rename(out)
        print(f"{out.name}: {len(positions)} trailers", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
