"""Cube-window positions from gnubg's self-play, to be rolled out as labels.

    python bench/gnubg_positions.py --games 60 --seed 30000 --out positions.npz
    backgammon distill relabel --weights backgammon/evaluation/data/weights.npz \\
        --data positions.npz --share 1 --rollout-trials 72 --truncate 0 --out labels.npz

Our own games (``distill generate --cube-window``) meet the positions our bot plays into;
the matches players bring to the judge, and ``bench/cube_agreement.py``, meet those of other
players.  This keeps, from games of gnubg 0-ply against itself with a random play now and
then (``tests/gnubg_reference.played_game_cases``), each position whose side on roll our
0-ply net or gnubg's gives ``--window`` to win (ours alone would pass over the positions it
misjudges most), bear-offs left out (the database is exact there); ``--only crashed`` keeps
the crashed ones alone, where our net is furthest from gnubg's 2-ply (some 8% of the window:
run ten times the games for a file of the same size).  ``--plays`` keeps instead, at each
contact roll where our 0-ply's best play and gnubg 0-ply's differ, the positions after both
(the opponent on roll): where the two nets part on a play, which the judge of gnubg's
matches meets at every such decision, and a rollout says which is right; the two of a roll
share a decision group, which ``distill fit --rank`` and ``bench/disputed_plays.py`` use.
The file has the layout of ``distill generate``'s, the labels our net's own 0-ply ones
until ``relabel --share 1`` rolls every position out.  Seeds from 30000 up: the benches'
own seeds are below 3000.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
from gnubg_reference import played_game_cases, to_gnubg

from backgammon.evaluation.bearoff import is_bearoff
from backgammon.evaluation.encode import boards_array, class_masks, is_race
from backgammon.players.neural import NeuralPlayer


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=30000)
    ap.add_argument("--window", type=float, nargs=2, default=(0.55, 0.92), metavar=("LO", "HI"))
    ap.add_argument("--only", choices=("contact", "crashed", "race", "primed"), default=None)
    ap.add_argument("--plays", action="store_true", help="positions after disputed plays")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if args.plays:
        return disputed_plays(args.games, args.seed, args.out)
    lo, hi = args.window
    seen: set[tuple[int, ...]] = set()
    boards, theirs = [], []
    for pos, _, _ in played_game_cases(args.games, seed=args.seed):
        if not pos.is_game_over() and pos.board not in seen:
            seen.add(pos.board)
            boards.append(pos.board)
            theirs.append(gnubg_nn.probabilities(to_gnubg(pos), 0)[0])
    b = boards_array(boards)
    probs = NeuralPlayer().evaluator.evaluate(b)
    gnubg_win = np.array(theirs)
    window = ((probs[:, 0] >= lo) & (probs[:, 0] <= hi)) | ((gnubg_win >= lo) & (gnubg_win <= hi))
    keep = ~is_bearoff(b) & window
    if args.only == "primed":
        keep &= class_masks(b)["contact"] & primed(b)
    elif args.only is not None:
        keep &= class_masks(b)[args.only]
    np.savez_compressed(
        args.out,
        boards=b[keep].astype(np.int8),
        probs=probs[keep].astype(np.float32),
        groups=np.arange(int(keep.sum()), dtype=np.int64),
    )
    print(f"{int(keep.sum())} of {len(b)} positions from {args.games} games kept: {args.out}")
    return 0


def _primed_side(b: np.ndarray) -> np.ndarray:
    """Whether the side whose checkers are positive in ``b`` has its rearmost checker (on the
    bar included) held behind five or more consecutive points the other side holds, starting
    at most two points in front of it: it must wait, and its timing decides the game."""
    made = b[:, 1:25] <= -2  # made[:, j - 1]: the other side holds point j
    ours = b[:, 1:26] > 0
    rear = np.where(ours.any(axis=1), 25 - np.argmax(ours[:, ::-1], axis=1), 0)
    run = np.zeros(len(b), dtype=np.int64)
    best = np.zeros(len(b), dtype=np.int64)
    for j in range(24, 0, -1):  # a run of made points that starts within 3 points of the rear
        grows = made[:, j - 1] & (j < rear) & ((run > 0) | (j >= rear - 3))
        run = np.where(grows, run + 1, 0)
        best = np.maximum(best, run)
    return best >= 5


def primed(b: np.ndarray) -> np.ndarray:
    """Positions (``--only primed``) where either side is held behind a prime or a closed
    board: timing, crunching and prime positions, which the broad files meet too rarely
    (at ``bNsmAGC23Q4AEA`` our net gave the primed side 63% to win; rollouts give it 11%)."""
    flipped = -b[:, ::-1]
    return _primed_side(b) | _primed_side(flipped)


def disputed_plays(games: int, seed: int, out: Path) -> int:
    """Save the positions after our 0-ply's and gnubg 0-ply's best plays wherever the two
    differ in a contact position of gnubg's games (``--plays``); the two of one roll share a
    decision group, so that ``distill fit --rank`` weighs the difference between them."""
    bot = NeuralPlayer(plies=0)
    seen: set[tuple[int, ...]] = set()
    boards: list[tuple[int, ...]] = []
    rolls_of: list[int] = []
    rolls = 0
    for pos, d1, d2 in played_game_cases(games, seed=seed):
        if pos.is_game_over() or is_race(boards_array([pos.board]))[0]:
            continue
        ranked = bot.ranked_moves(pos, (d1, d2))
        if len(ranked) < 2:
            continue
        rolls += 1
        steps = gnubg_nn.best_move(to_gnubg(pos), d1, d2)
        theirs = pos.play([(s, t, False) for s, t in steps]).board
        ours = pos.play(ranked[0].move).board
        for b in (ours, theirs) if ours != theirs else ():
            if b not in seen:
                seen.add(b)
                boards.append(b)
                rolls_of.append(rolls)
    b = boards_array(boards)
    keep = ~is_race(b)
    probs = bot.evaluator.evaluate(b)
    np.savez_compressed(
        out,
        boards=b[keep].astype(np.int8),
        probs=probs[keep].astype(np.float32),
        groups=np.array(rolls_of, dtype=np.int64)[keep],
    )
    print(f"{int(keep.sum())} positions after plays disputed at {rolls} rolls: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
