"""TD(lambda) self-play training of the contact and race nets with our own move generator.

Run ``python -m backgammon.training.td --help`` (or ``backgammon train``).  Each game is
played greedily by the current nets (0-ply); at its end the lambda-returns of every position
are computed backwards from the exact result and each net takes one gradient step on its
positions.  Checkpoints hold the weights *and* the random state, so a run resumed from a
checkpoint continues exactly as if it had not been stopped, and a run is reproducible from
its seed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from backgammon.evaluation.encode import INPUT_VERSIONS, boards_array
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.net import Net, NetPair
from backgammon.evaluation.probabilities import N_OUTPUTS, flip_probs
from backgammon.training.nets import random_pair, sgd_step
from backgammon.training.selfplay import greedy_games

__all__ = ["average", "main", "play_training_game", "play_training_games"]


def play_training_game(
    ev: NetPair, rng: random.Random, alpha: float, lam: float
) -> tuple[int, float]:
    """Play one self-play game, then update the nets; returns (plies, squared error)."""
    return play_training_games(ev, rng, alpha, lam, 1)


def play_training_games(
    ev: NetPair, rng: random.Random, alpha: float, lam: float, count: int
) -> tuple[int, float]:
    """Play ``count`` self-play games side by side (their plays judged in one batch), then
    update the nets on each game in turn; returns (plies, squared error) summed.  One game
    at a time is plain TD(lambda); more let the policy lag the updates by up to ``count``
    games, for the speed of judging many plays at once."""
    raw = CompositeEvaluator(ev, consistent=False)  # the nets' own outputs, exact ends
    plies = 0
    err = 0.0
    for states, outcome in greedy_games(rng, lambda b: flip_probs(raw.evaluate(b)), count):
        b = boards_array(states)
        x, race = ev.encode(b)
        v = ev.evaluate_encoded(x, ev.routes(b, race))
        n = len(states)
        targets = np.empty((n, N_OUTPUTS))
        g = outcome
        targets[n - 1] = g
        vf = flip_probs(v)
        for t in range(n - 2, -1, -1):
            g = (1.0 - lam) * vf[t + 1] + lam * flip_probs(g)
            targets[t] = g
        for _name, net, mask in ev.masks(b, race):
            if mask.any():
                err += sgd_step(net, x[mask], targets[mask], alpha)
        plies += n
    return plies, err


def average(paths: Sequence[Path]) -> NetPair:
    """The mean of the weights of several checkpoints of one run (smooths out the noise of
    the last updates); the metadata of the last one, plus where the mean came from."""
    evs = [NetPair.load(p) for p in paths]

    def mean(nets: list[Net]) -> Net:
        return Net(
            *(np.mean([getattr(n, k) for n in nets], axis=0) for k in ("w1", "b1", "w2", "b2"))
        )

    meta = dict(evs[-1].meta)
    meta.pop("rng_state", None)
    meta["averaged_from"] = [
        {"file": Path(p).name, "games": e.meta.get("games")}
        for p, e in zip(paths, evs, strict=True)
    ]
    names = [name for name, _ in evs[0].nets()]
    if any([name for name, _ in e.nets()] != names for e in evs):
        raise ValueError("the weights to average do not all have the same nets")
    nets = {name: mean([dict(e.nets())[name] for e in evs]) for name in names}
    return NetPair(meta=meta, **nets)


def _save(ev: NetPair, path: Path, rng: random.Random, games: int) -> None:
    ev.meta["games"] = games
    ev.meta["rng_state"] = json.dumps(rng.getstate())
    ev.save(path)


def _load_rng(ev: NetPair) -> random.Random:
    rng = random.Random()
    version, state, gauss = json.loads(ev.meta["rng_state"])
    rng.setstate((version, tuple(state), gauss))
    return rng


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m backgammon.training.td``: train or resume, with progress and checkpoints."""
    ap = argparse.ArgumentParser(prog="backgammon train", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000, help="total games to reach")
    ap.add_argument("--dir", type=Path, default=Path("train-run"), help="checkpoint directory")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=128, help="hidden units of the contact net")
    ap.add_argument("--race-hidden", type=int, default=64, help="hidden units of the race net")
    ap.add_argument(
        "--inputs", type=int, choices=INPUT_VERSIONS, default=1, help="input layout of new nets"
    )
    ap.add_argument("--alpha", type=float, default=0.1, help="learning rate")
    ap.add_argument("--lam", type=float, default=0.7, help="TD lambda")
    ap.add_argument("--every", type=int, default=2000, help="games between checkpoints")
    ap.add_argument("--keep-every", type=int, default=10_000, help="games between kept snapshots")
    ap.add_argument(
        "--batch",
        type=int,
        default=1,
        help="games played side by side between updates (faster; 1 is plain TD)",
    )
    ap.add_argument("--resume", action="store_true", help="continue from DIR/latest.npz")
    ap.add_argument(
        "--start",
        type=Path,
        metavar="WEIGHTS",
        help="begin from these weights (a fitted stage) instead of random nets",
    )
    ap.add_argument(
        "--average",
        nargs="+",
        type=Path,
        metavar="CHECKPOINT",
        help="instead of training: write DIR/average.npz, the mean of these checkpoints' weights",
    )
    args = ap.parse_args(argv)
    if args.average:
        out = average(args.average)
        args.dir.mkdir(parents=True, exist_ok=True)
        out.save(args.dir / "average.npz")
        print(f"saved {args.dir / 'average.npz'}: mean of {len(args.average)} checkpoints")
        return 0

    args.dir.mkdir(parents=True, exist_ok=True)
    latest = args.dir / "latest.npz"
    if args.resume and latest.exists():
        ev = NetPair.load(latest)
        rng = _load_rng(ev)
        games = int(ev.meta["games"])
        print(f"resumed from {latest} at game {games}", flush=True)
    elif args.start:
        ev = NetPair.load(args.start)
        rng = random.Random(args.seed)
        games = 0
        ev.meta.pop("rng_state", None)
        ev.meta["started_from"] = str(args.start)
    else:
        ev = random_pair(
            np.random.default_rng(args.seed), args.hidden, args.race_hidden, args.inputs
        )
        rng = random.Random(args.seed)
        games = 0
        ev.meta.update(seed=args.seed, hidden=args.hidden, race_hidden=args.race_hidden)
    history = ev.meta.setdefault("history", [])
    history.append({"from": games, "alpha": args.alpha, "lam": args.lam, "argv": sys.argv[1:]})

    with threadpool_limits(limits=1):
        t0 = time.monotonic()
        start = games
        plies = 0
        err = 0.0
        while games < args.games:
            count = min(args.batch, args.games - games)
            n, e = play_training_games(ev, rng, args.alpha, args.lam, count)
            before, games = games, games + count
            plies += n
            err += e
            if games // 100 > before // 100:
                done = games - start
                rate = done / (time.monotonic() - t0)
                left = (args.games - games) / rate if rate else 0.0
                print(
                    f"\rgame {games}/{args.games}  {rate:.1f} games/s  "
                    f"{plies / done:.1f} plies/game  err {err / plies:.4f}  "
                    f"eta {left / 60:.0f} min",
                    end="",
                    flush=True,
                )
            if games // args.every > before // args.every or games == args.games:
                _save(ev, latest, rng, games)
            if games // args.keep_every > before // args.keep_every:
                _save(ev, args.dir / f"games-{games:07d}.npz", rng, games)
        print(flush=True)
    _save(ev, latest, rng, games)
    print(f"saved {latest} after {games} games", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
