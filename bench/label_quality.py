"""How good are training labels?  Ours beside gnubg's 2-ply, on our own self-play positions.

    python bench/label_quality.py [--positions 60] [--seed 1] [--trials 36] [--truncate 7]
                                  [--plain] [--weights W] [--nets W2 W3 ...]

Self-play games of our net (dice from ``--seed``) give contact positions (every fifth one
met, side on roll).  Each gets the labels a training round could use: our 0-ply, our
2-ply (``distill generate --plies 2``) and a variance-reduced 0-ply rollout of ``--trials``
trials truncated at ``--truncate`` plies (``distill generate --rollout-trials``; with
``--plain`` without variance reduction, whose trials cost some twenty times less and scatter
about four times more).  Their cubeless money equities are compared with gnubg's 2-ply
(gnubg-nn, a benchmark-only dependency, a measuring stick and never a training target): the
root mean square and mean differences, and what each label costs per position (CPU time).  A
rollout's difference includes its own noise, which fitting averages away.  ``--nets`` adds
the 0-ply of other nets on the same positions: how far a round of fitting moved the net
towards gnubg's judgement, without playing a game.

``--decisions N`` asks what choosing a play depends on instead: at N decisions of the same
self-play (every fifth with a choice in contact; the ``--among`` best plays at our 0-ply),
each label of each candidate picks a play, judged by gnubg's 2-ply equity of the
candidates: how often it picks gnubg 2-ply's play, the equity its pick gives up
(millipoints per decision), and the rms error of its differences between the candidates
(each less its decision's mean).  The rollout rolls the candidates of a decision out on the
same dice, which its differences gain by.  ``--nets`` adds their 0-ply here too, with the
difference of the equity each gives up from our 0-ply's, paired on the same decisions.

``--shift N`` asks where our 0-ply is least like the 2-ply it was fitted to: on N contact
positions of our self-play (and of self-play with ``--explore`` of the turns played at
random, of self-play at ``--play-plies`` ply, and of our net's games against each of
``--opponents``, a player such as pubeval or an earlier net's weights) and on N of gnubg
0-ply's games against itself, the rms difference of our 0-ply from our 2-ply, beside
gnubg's 0-ply from its 2-ply on the same positions; how much of our difference the
twentieth of the positions furthest apart makes; and how far our 2-ply (the teacher) is from
gnubg's.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import gnubg_nn
import numpy as np
from gnubg_reference import played_game_cases
from threadpoolctl import threadpool_limits

from backgammon.core.position import Position
from backgammon.evaluation.bearoff import BearoffDatabase
from backgammon.evaluation.encode import boards_array, is_race
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.net import NetPair, default_nets
from backgammon.evaluation.search import Searcher
from backgammon.judging.rollout import RolloutSettings
from backgammon.training.distill import generate, one_ply, opponent_chooser, rolled_out, two_ply


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trials", type=int, default=36)
    ap.add_argument("--truncate", type=int, default=7)
    ap.add_argument(
        "--plain", action="store_true", help="rollouts without variance reduction (cheaper trials)"
    )
    ap.add_argument("--weights", default=None)
    ap.add_argument("--nets", nargs="*", default=[], help="more nets whose 0-ply to compare")
    ap.add_argument("--decisions", type=int, default=0, help="judge choices at this many rolls")
    ap.add_argument("--among", type=int, default=4, help="candidates per decision")
    ap.add_argument("--shift", type=int, default=0, help="0-ply against 2-ply at this many")
    ap.add_argument("--explore", type=float, default=0.0, help="with --shift: random turns")
    ap.add_argument(
        "--opponents", nargs="*", default=[], help="with --shift: players or weights files"
    )
    ap.add_argument(
        "--play-plies", type=int, nargs="*", default=[], help="with --shift: our play's depth"
    )
    args = ap.parse_args()
    threadpool_limits(limits=1)
    nets = default_nets() if args.weights is None else NetPair.load(args.weights)
    database = BearoffDatabase.load(progress=False)
    searcher = Searcher(CompositeEvaluator(nets, database))
    rng = random.Random(args.seed)
    if args.decisions:
        choices(searcher, database, rng, args)
        return
    if args.shift:
        shift(searcher, rng, args)
        return
    sample = own_positions(searcher, rng, args.positions)
    equity = searcher.equity

    def gnubg(plies: int) -> np.ndarray:
        return equity(gnubg_probs(sample, plies))

    t = time.process_time()
    ours0 = equity(np.array([searcher.evaluate(p, 0) for p in sample]))
    cost0 = (time.process_time() - t) / len(sample)
    t = time.process_time()
    ours2 = equity(two_ply(searcher, sample))
    cost2 = (time.process_time() - t) / len(sample)
    settings, rollout_label = rollout_row(args)
    t = time.process_time()
    rolled = rolled_out(sample, settings, args.weights)
    cost_r = (time.process_time() - t) / len(sample)
    ours_r = equity(rolled)
    reference = gnubg(2)
    print(
        f"{len(sample)} contact positions of our self-play (seed {args.seed}); "
        "cubeless money equity against gnubg 2-ply"
    )
    print(f"{'label':44} {'rms':>7} {'mean':>8} {'CPU s/position':>15}")
    rows = [
        ("gnubg 0-ply", gnubg(0), None),
        ("our 0-ply", ours0, cost0),
        ("our 2-ply", ours2, cost2),
        (rollout_label, ours_r, cost_r),
    ]
    sample_boards = boards_array(p.board for p in sample)
    for path in args.nets:  # through the evaluator the player uses, as "our 0-ply" is
        other = CompositeEvaluator(NetPair.load(path), database).evaluate(sample_boards)
        rows.append((f"0-ply of {path}", equity(other), None))
    for name, values, cost in rows:
        diff = values - reference
        rms = float(np.sqrt((diff**2).mean()))
        spent = "" if cost is None else f"{cost:.3f}"  # gnubg's own cost is not ours to show
        print(f"{name:44} {rms:7.4f} {float(diff.mean()):+8.4f} {spent:>15}")


def rollout_row(args: argparse.Namespace) -> tuple[RolloutSettings, str]:
    """The rollout labels the options ask for (in batches of at most 144 trials: 1,296 trials
    of 100 positions at once would hold millions of candidate boards) and their row's name."""
    settings = RolloutSettings(
        trials=args.trials,
        truncate=args.truncate,
        batch=min(args.trials, 144),
        seed=args.seed,
        variance_reduction=not args.plain,
    )
    horizon = f"{args.truncate} plies" if args.truncate else "to the end"
    kind = "plain " if args.plain else ""
    return settings, f"our {kind}rollout, {args.trials} trials, {horizon}"


def gnubg_probs(sample: list[Position], plies: int) -> np.ndarray:
    """gnubg-nn's probabilities of each position at ``plies`` (side on roll)."""
    return np.array([gnubg_nn.probabilities([list(a) for a in p.arrays()], plies) for p in sample])


def own_positions(
    searcher: Searcher,
    rng: random.Random,
    count: int,
    explore: float = 0.0,
    play_plies: int = 0,
    opponent: str | None = None,
) -> list[Position]:
    """Every fifth contact position played into in our self-play (side on roll), its plays
    chosen at ``play_plies`` (``explore``: the share of turns played at random), or in our
    games against ``opponent`` (``distill generate --opponent``)."""
    other = None if opponent is None else opponent_chooser(opponent)
    sample: list[Position] = []
    while len(sample) < count:
        # distill's own positions (its cheap 1-ply labels are not used)
        boards, _, _ = generate(
            searcher,
            1,
            rng,
            alternatives=0,
            progress=False,
            plies=1,
            explore=explore,
            play_plies=play_plies,
            opponent=other,
        )
        boards = boards.astype(np.int64)
        sample += [Position(tuple(row)) for row in boards[~is_race(boards)][::5].tolist()]
    return sample[:count]


def shift(searcher: Searcher, rng: random.Random, args: argparse.Namespace) -> None:
    """The ``--shift`` comparison (see the module doc)."""
    sets = {"our self-play": own_positions(searcher, rng, args.shift)}
    if args.explore:
        label = f"our self-play, {args.explore:g} of turns at random"
        sets[label] = own_positions(searcher, rng, args.shift, args.explore)
    for plies in args.play_plies:
        label = f"our self-play at {plies} ply"
        sets[label] = own_positions(searcher, rng, args.shift, play_plies=plies)
    for name in args.opponents:
        sets[f"ours against {name}"] = own_positions(searcher, rng, args.shift, opponent=name)
    theirs: list[Position] = []
    for k, (pos, _, _) in enumerate(played_game_cases(100_000, seed=args.seed, explore=0.0)):
        if len(theirs) >= args.shift:
            break
        if k % 5 == 0 and not pos.is_game_over() and not pos.is_race():
            theirs.append(pos)
    sets["gnubg 0-ply's self-play"] = theirs
    equity = searcher.equity
    print("rms of 0-ply less 2-ply, cubeless money equity, contact positions;")
    print("'worst 5%': the share of our squared differences in the twentieth furthest apart;")
    print("'2-ply': rms of our 2-ply less gnubg's 2-ply, the teacher against a stronger one")
    print(f"{'positions':46} {'ours':>7} {'gnubg':>7} {'worst 5%':>9} {'2-ply':>7}")
    for label, sample in sets.items():
        two = equity(two_ply(searcher, sample))
        ours = equity(np.array([searcher.evaluate(p, 0) for p in sample])) - two
        theirs2 = equity(gnubg_probs(sample, 2))
        gnubg = equity(gnubg_probs(sample, 0)) - theirs2
        squared = np.sort(ours**2)[::-1]
        worst = float(squared[: max(1, len(squared) // 20)].sum() / squared.sum())
        print(
            f"{label + f' ({len(sample)})':46} {float(np.sqrt((ours**2).mean())):7.4f} "
            f"{float(np.sqrt((gnubg**2).mean())):7.4f} {worst:9.2f} "
            f"{float(np.sqrt(((two - theirs2) ** 2).mean())):7.4f}"
        )


def choices(
    searcher: Searcher, database: BearoffDatabase, rng: random.Random, args: argparse.Namespace
) -> None:
    """The ``--decisions`` comparison (see the module doc)."""
    groups: list[list[Position]] = []
    while len(groups) < args.decisions:
        boards, _, decision = generate(
            searcher, 1, rng, alternatives=args.among - 1, among=args.among, progress=False
        )
        boards = boards.astype(np.int64)
        contact = ~is_race(boards)
        for g in np.unique(decision)[::5]:  # every fifth decision, as positions above
            members = np.flatnonzero((decision == g) & contact)
            if len(members) >= 2 and len(members) == int((decision == g).sum()):
                groups.append([Position(tuple(boards[i].tolist())) for i in members])
    groups = groups[: args.decisions]
    flat = [p for g in groups for p in g]
    cut = np.cumsum([0] + [len(g) for g in groups])
    equity = searcher.equity

    def timed(label: Callable[[], np.ndarray]) -> tuple[np.ndarray, float]:
        t = time.process_time()
        # Each candidate is seen with the opponent on roll: the mover's equity is minus it.
        values = -equity(label())
        return values, (time.process_time() - t) / len(groups)

    def gnubg(plies: int) -> Callable[[], np.ndarray]:
        return lambda: gnubg_probs(flat, plies)

    judge, _ = timed(gnubg(2))
    rows = [
        ("gnubg 0-ply", *timed(gnubg(0))),
        ("gnubg 1-ply", *timed(gnubg(1))),
        ("our 0-ply", *timed(lambda: np.array([searcher.evaluate(p, 0) for p in flat]))),
        ("our 1-ply", *timed(lambda: one_ply(searcher, flat))),
        ("our 2-ply", *timed(lambda: two_ply(searcher, flat))),
    ]
    if args.trials:  # --trials 0: no rollout row
        settings, rollout_label = rollout_row(args)
        rolled = timed(lambda: rolled_out(flat, settings, args.weights))
        rows.append((rollout_label, *rolled))
    flat_boards = boards_array(p.board for p in flat)
    for path in args.nets:  # through the evaluator the player uses, as "our 0-ply" is
        other = CompositeEvaluator(NetPair.load(path), database).evaluate
        rows.append((f"0-ply of {path}", *timed(functools.partial(other, flat_boards))))
    sizes = np.diff(cut)
    print(
        f"{len(groups)} decisions of our self-play (seed {args.seed}), {sizes.mean():.1f} "
        "candidates each; choices judged by gnubg 2-ply"
    )
    print(f"{'label':44} {'same pick':>9} {'mEMG lost':>9} {'rms diff':>8} {'CPU s/roll':>10}")
    losses: dict[str, np.ndarray] = {}
    for name, values, cost in rows:
        lost = np.zeros(len(groups))
        same = 0.0
        gaps: list[np.ndarray] = []
        for k, (lo, hi) in enumerate(itertools.pairwise(cut)):
            mine, theirs = values[lo:hi], judge[lo:hi]
            pick = int(np.argmax(mine))
            same += float(theirs[pick] == theirs.max())
            lost[k] = theirs.max() - theirs[pick]
            gaps.append((mine - mine.mean()) - (theirs - theirs.mean()))
        losses[name] = lost
        rms = float(np.sqrt((np.concatenate(gaps) ** 2).mean()))
        spent = "" if name.startswith("gnubg") else f"{cost:.3f}"
        print(
            f"{name:44} {100 * same / len(groups):8.1f}% {1000 * lost.mean():9.2f} "
            f"{rms:8.4f} {spent:>10}"
        )
    for path in args.nets:  # paired on the same decisions: the noise of the sample cancels
        diff = 1000 * (losses[f"0-ply of {path}"] - losses["our 0-ply"])
        se = diff.std(ddof=1) / np.sqrt(len(diff))
        print(f"{path}: {diff.mean():+.2f} ± {se:.2f} mEMG per decision against our 0-ply")


if __name__ == "__main__":
    main()
