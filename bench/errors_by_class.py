"""Where our 0-ply play loses to gnubg's 0-ply, by gnubg's class of the position.

    python bench/errors_by_class.py [--games 200] [--seed 1] [--weights W] [--plies 0]
        [--judge-plies 1] [--contact-kinds]

Self-play games of our net at 0-ply (dice from ``--seed``); at each decision with a choice,
our play at ``--plies`` and gnubg 0-ply's play of the same roll, both judged by gnubg
(gnubg-nn, a benchmark-only dependency) at ``--judge-plies``: the cubeless equity our play
gives up, summed by gnubg's class of the position (contact, crashed, race...) and per
decision, in millipoints.  The same games at ``--plies 2`` show how well the lookahead our
0-ply net is fitted to plays, and so how much of the 0-ply's loss the fit leaves.
``--contact-kinds`` splits gnubg's contact class: primed (a side held behind a prime,
``bench/gnubg_positions.py --only primed``), then by the pip count: ahead or behind by more
than 30 pips, or close.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path

import gnubg_nn
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gnubg_positions import primed

from backgammon.core.position import Position
from backgammon.players import get

LEAD = 30
"""Pips ahead or behind beyond which a contact position is not a close one (``--contact-kinds``)."""


def gnubg_board(pos: Position) -> list[list[int]]:
    """gnubg's board: [not on roll, on roll], each 25 slots from its own side."""
    not_on_roll, on_roll = pos.arrays()
    return [list(not_on_roll), list(on_roll)]


def contact_kind(pos: Position) -> str:
    """A contact position's kind for ``--contact-kinds``: primed, ahead, behind or close."""
    if primed(np.array([pos.board], dtype=np.int64))[0]:
        return "primed"
    ours, theirs = pos.pip_counts()
    lead = theirs - ours
    return "ahead" if lead > LEAD else "behind" if lead < -LEAD else "close"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weights", default=None)
    ap.add_argument("--plies", type=int, default=0, choices=(0, 1, 2), help="our depth")
    ap.add_argument("--judge-plies", type=int, default=1, choices=(0, 1, 2))
    ap.add_argument("--contact-kinds", action="store_true", help="split the contact class")
    args = ap.parse_args()

    def mover_equity(after: Position) -> float:
        """gnubg's cubeless equity of a play for the side that made it."""
        w, wg, wbg, lg, lbg = gnubg_nn.probabilities(gnubg_board(after), args.judge_plies)
        return -float(2 * w - 1 + wg - lg + wbg - lbg)

    ours = get("neural", plies=0, weights=args.weights)
    judged = get("neural", plies=args.plies, weights=args.weights) if args.plies else ours
    rng = random.Random(args.seed)
    loss: collections.defaultdict[str, float] = collections.defaultdict(float)
    count: collections.Counter[str] = collections.Counter()
    names = {
        gnubg_nn.c_contact: "contact",
        gnubg_nn.c_crashed: "crashed",
        gnubg_nn.c_race: "race",
        gnubg_nn.c_bearoff: "bearoff",
    }
    for _ in range(args.games):
        pos = Position.initial()
        while pos.outcome() is None:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            moves = pos.legal_moves(dice)
            if not moves:
                pos = pos.flip()
                continue
            mine = ours.choose_move(pos, dice)
            assert mine is not None
            if len(moves) > 1:
                chosen = judged.choose_move(pos, dice) if args.plies else mine
                assert chosen is not None
                kind = names.get(gnubg_nn.classify(gnubg_board(pos)), "other")
                if kind == "contact" and args.contact_kinds:
                    kind = f"contact, {contact_kind(pos)}"
                steps = gnubg_nn.best_move(gnubg_board(pos), dice[0], dice[1])
                theirs = pos.play([(s, t, False) for s, t in steps])
                count[kind] += 1
                if theirs != pos.play(chosen):
                    loss[kind] += mover_equity(theirs) - mover_equity(pos.play(chosen))
            pos = pos.play(mine)
    print(f"{args.games} games, ours at {args.plies}-ply, judged by gnubg {args.judge_plies}-ply")
    for kind in sorted(count, key=lambda k: -count[k]):
        print(
            f"{kind:17} {count[kind]:6} decisions  given up {loss[kind]:8.3f} points,"
            f" {1000 * loss[kind] / count[kind]:6.2f} millipoints per decision"
        )


if __name__ == "__main__":
    main()
