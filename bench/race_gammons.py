"""Gammon chances in races: ours beside gnubg's 2-ply, on races where a gammon can happen.

    python bench/race_gammons.py [--positions 400] [--seed 5] [--plies 0] [--weights W]
    python bench/race_gammons.py --positions 300 --trailer-sims 200   # the structured estimate

Races (no contact, not both sides borne in) from games of gnubg 0-ply against itself where a
side still has all 15 checkers: the chances of the side on roll to win and to lose a gammon,
by our evaluator at ``--plies`` and by gnubg at 2-ply (gnubg-nn, a benchmark-only
dependency).  Printed: the root mean square and the largest difference in percentage points,
over all positions and over those where gnubg gives a gammon more than 5%, with the
position where ours is furthest off.  The aim (issue "A judge players can trust"): rms at most
1.5 points, none over 5.

Where one side (the leader) has every checker home and the other (the trailer) has all 15
with some still outside, our evaluator's gammons are the leader's exact distribution of rolls
to bear off (the one-sided database) times the chance that the trailer has not borne a
checker off by then, from the trailer net (:mod:`backgammon.evaluation.trailer`); at 0-ply the
race net's own gammons are printed too.  ``--trailer-sims N`` prints the same formula with
the trailer's chances from ``N`` games of it alone (``--greedy``: played by the rule, not the
net), the net's labels.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
import numpy as np
from gnubg_reference import played_game_cases, to_gnubg

from backgammon.core.position import Position
from backgammon.evaluation.bearoff import MAX_ROLLS, BearoffDatabase, is_bearoff
from backgammon.evaluation.encode import boards_array, is_race
from backgammon.evaluation.trailer import TrailerNet, race_gammons, trailers
from backgammon.players.neural import NeuralPlayer
from backgammon.training.trailer import TrailerGames


def race_positions(n: int, seed: int) -> list:  # type: ignore[type-arg]
    """``n`` distinct gammon-possible races from gnubg's self-play (side on roll's view)."""
    seen, out = set(), []
    for pos, _d1, _d2 in played_game_cases(100_000, seed=seed):
        b = boards_array([pos.board])
        if not is_race(b)[0] or is_bearoff(b)[0] or pos.board in seen:
            continue
        board = np.array(pos.board)
        if np.maximum(board, 0).sum() < 15 and np.maximum(-board, 0).sum() < 15:
            continue
        seen.add(pos.board)
        out.append(pos)
        if len(out) == n:
            break
    return out


class SimulatedTrailer:
    """The trailer net's stand-in: survival curves from games of each trailer alone."""

    def __init__(self, games: TrailerGames, n: int) -> None:
        self.games, self.n = games, n

    def survival(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s, e = np.zeros((len(counts), MAX_ROLLS)), np.zeros((len(counts), MAX_ROLLS))
        for i, c in enumerate(counts):
            first, escaped = self.games.times(Position((0, *map(int, c), 0)), self.n)
            s[i] = [(first > j).mean() for j in range(MAX_ROLLS)]
            e[i] = [(escaped > j).mean() for j in range(MAX_ROLLS)]
        return s, e


def report(name: str, ours: np.ndarray, theirs: np.ndarray, positions: list) -> None:  # type: ignore[type-arg]
    """The gammon chances' differences from gnubg's, in percentage points."""
    for k, what in ((1, "win gammon"), (3, "lose gammon")):
        d = 100 * (ours[:, k] - theirs[:, k])
        rich = theirs[:, k] > 0.05
        worst = int(np.argmax(np.abs(d)))
        print(
            f"  {name}{what:<12} rms {np.sqrt((d**2).mean()):5.2f} pts, mean {d.mean():+5.2f}, "
            f"max {np.abs(d).max():5.2f} (where gnubg > 5%: rms "
            f"{np.sqrt((d[rich] ** 2).mean()) if rich.any() else 0:5.2f}, n={int(rich.sum())}); "
            f"worst {positions[worst].position_id()} ours {100 * ours[worst, k]:.1f}% "
            f"gnubg {100 * theirs[worst, k]:.1f}%"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--plies", type=int, default=0, choices=(0, 1, 2))
    ap.add_argument("--weights", default=None, help="our nets (default: the shipped ones)")
    ap.add_argument(
        "--trailer-sims", type=int, default=0, help="also the trailer played out, N games"
    )
    ap.add_argument("--greedy", action="store_true", help="played out by the rule, not the net")
    args = ap.parse_args()
    positions = race_positions(args.positions, args.seed)
    bot = NeuralPlayer(args.plies, weights=args.weights)
    t0 = time.process_time()
    ours = np.array([bot.probabilities(p, args.plies).array() for p in positions])
    t_ours = time.process_time() - t0
    t0 = time.process_time()
    theirs = np.array([gnubg_nn.probabilities(to_gnubg(p), 2) for p in positions])
    t_gnubg = time.process_time() - t0
    print(
        f"{len(positions)} races with a gammon possible (seed {args.seed}); ours at "
        f"{args.plies}-ply ({t_ours:.1f} s), gnubg 2-ply ({t_gnubg:.1f} s)"
    )
    report("", ours, theirs, positions)
    boards = boards_array([p.board for p in positions])
    leads, trails = trailers(boards)
    print(f"{int((leads | trails).sum())} of them with a side all home and the other none off")
    if args.plies == 0:
        evaluator = bot.evaluator
        trailer, evaluator.trailer = evaluator.trailer, None
        report("race net alone: ", evaluator.evaluate(boards), theirs, positions)
        evaluator.trailer = trailer
    if args.trailer_sims:
        db = BearoffDatabase.load()
        net = None if args.greedy else TrailerNet.load()
        games = SimulatedTrailer(TrailerGames(db, args.seed, net), args.trailer_sims)
        t0 = time.process_time()
        structured = ours.copy()
        race_gammons(boards, structured, db, games)  # type: ignore[arg-type]
        print(
            f"the trailer played out instead of its net ({args.trailer_sims} games each, "
            f"{time.process_time() - t0:.1f} s):"
        )
        report("", structured, theirs, positions)
    d = 100 * (ours[:, 0] - theirs[:, 0])
    print(f"  {'win':<12} rms {np.sqrt((d**2).mean()):5.2f} pts, mean {d.mean():+5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
