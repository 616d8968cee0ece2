"""Labels for a trailer net: for each race in the gammon-race label files where a side has
all 15 checkers with some outside its home board, that side (the trailer) played alone by
bench/race_gammons.py's greedy player, ``GAMES`` games: how many rolls it took to bear the
first checker off, and to bring the last one out of the other side's home board (counts per
number of rolls, 0..31, the last bin meaning "not yet").

    python labels/trailer/make.py labels/race-gammons/race-36001.npz ...   # one file each

Each output, ``labels/trailer/trailer-SEED.npz``, uses its source file's seed for the dice.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from race_gammons import Trailer  # noqa: E402

from backgammon.core.position import Position  # noqa: E402
from backgammon.players.bearoff import MAX_ROLLS, BearoffDatabase  # noqa: E402

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


def main() -> int:
    db = BearoffDatabase.load()
    for name in sys.argv[1:]:
        seed = int(Path(name).stem.split("-")[-1])
        out = ROOT / "labels" / "trailer" / f"trailer-{seed}.npz"
        if out.exists():
            continue
        positions = trailers(np.load(name)["boards"])
        trailer = Trailer(db, seed)
        first = np.zeros((len(positions), MAX_ROLLS + 1), dtype=np.uint16)
        escaped = np.zeros_like(first)
        for i, pos in enumerate(positions):
            f, e = trailer.times(pos, GAMES)
            first[i] = np.bincount(f, minlength=MAX_ROLLS + 1)
            escaped[i] = np.bincount(e, minlength=MAX_ROLLS + 1)
        boards = np.array([p.board for p in positions], dtype=np.int8)
        np.savez_compressed(str(out) + ".tmp.npz", boards=boards, first=first, escaped=escaped)
        Path(str(out) + ".tmp.npz").rename(out)
        print(f"{out.name}: {len(positions)} trailers", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
