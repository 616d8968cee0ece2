"""The bots' choices as one digest: a change that should not change play proves it.

    python bench/bot_choices.py [--positions 5000] [--one-ply 500] [--seed 7]

Positions come from seeded self-play (the 0-ply net, with a fifth of the plays at random for
variety); at each, with its dice, the digest takes the play chosen by the neural bot at
0-ply, by pubeval, and on the first ``--one-ply`` positions by the neural bot at 1-ply, and
the 0-ply net's five probabilities of every position as float bytes.  Run it in two trees
(``cd OLD && python NEW/bench/bot_choices.py``: it imports the package from the working
folder) and compare the digests.  It uses only the public API both trees share.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time

sys.path.insert(0, os.getcwd())  # the package of the tree it is run in

import numpy as np

from backgammon import Move, Position
from backgammon.evaluation.net import default_nets
from backgammon.players import get


def positions(n: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """``n`` positions with dice from self-play games of the 0-ply net."""
    rng = random.Random(seed)
    bot = get("neural", plies=0)
    out: list[tuple[Position, tuple[int, int]]] = []
    pos = Position.initial()
    while len(out) < n:
        if pos.is_game_over():
            pos = Position.initial()
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        moves = pos.legal_moves(dice)
        if len(moves) <= 1:  # nothing to choose (no legal play: an empty one)
            pos = pos.play(moves[0] if moves else Move())
            continue
        out.append((pos, dice))
        move = rng.choice(moves) if rng.random() < 0.2 else bot.choose_move(pos, dice)
        pos = pos.play(move)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--positions", type=int, default=5000)
    ap.add_argument("--one-ply", type=int, default=500, help="positions also judged at 1-ply")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    t0 = time.monotonic()
    cases = positions(args.positions, args.seed)
    digests: dict[str, hashlib._Hash] = {
        k: hashlib.sha256() for k in ("0-ply", "pubeval", "1-ply", "probabilities")
    }
    zero, pubeval, one = get("neural", plies=0), get("pubeval"), get("neural", plies=1)
    for k, (pos, dice) in enumerate(cases):
        digests["0-ply"].update(str(zero.choose_move(pos, dice)).encode())
        digests["pubeval"].update(str(pubeval.choose_move(pos, dice)).encode())
        if k < args.one_ply:
            digests["1-ply"].update(str(one.choose_move(pos, dice)).encode())
    boards = np.array([pos.board for pos, _ in cases], dtype=np.int64)
    digests["probabilities"].update(default_nets().evaluate(boards).astype(np.float64).tobytes())
    print(f"{len(cases)} positions (seed {args.seed}), {time.monotonic() - t0:.0f} s")
    for name, d in digests.items():
        print(f"{name:>13}  {d.hexdigest()[:32]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
