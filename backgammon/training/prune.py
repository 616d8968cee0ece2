"""Fitting the pruning net (:mod:`backgammon.evaluation.prune`) to the full evaluator.

``generate`` plays greedy 0-ply games (a tenth of the plays at random) and keeps, for every
position met, the boards after every play of all 21 rolls with the full evaluator's equity
for the side that played; ``fit`` fits the net to those equities centred per roll (what
pruning asks of it is the order of a roll's plays, not their level); ``check`` prints, on
other games, how often the plays it keeps miss the full evaluator's best and what that costs.

    python -m backgammon.training.prune generate --games 300 --seed 1 --out P/train.npz
    python -m backgammon.training.prune fit --data P/train.npz --out prune.npz
    python -m backgammon.training.prune check --weights prune.npz --data P/test.npz
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from backgammon.core.position import Position
from backgammon.evaluation.children import child_boards
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.probabilities import MONEY_WEIGHTS, flip_probs
from backgammon.evaluation.prune import COUNTS, PruneNet, prune_rows
from backgammon.evaluation.search import roll_boards_many
from backgammon.training.nets import adam_update

__all__ = ["check", "fit", "generate", "main"]

FloatArray = npt.NDArray[np.float32]
_EXPLORE = 0.1
_CHUNK = 4096


def _equities(ev: CompositeEvaluator, boards: npt.NDArray[np.int64]) -> FloatArray:
    """The money equity of each board for the side that has just played."""
    w, c = MONEY_WEIGHTS
    parts = [
        flip_probs(ev.evaluate(boards[s : s + _CHUNK])) @ w + c
        for s in range(0, len(boards), _CHUNK)
    ]
    return np.concatenate(parts).astype(np.float32) if parts else np.empty(0, np.float32)


def generate(
    ev: CompositeEvaluator, games: int, seed: int
) -> tuple[npt.NDArray[np.int8], FloatArray, npt.NDArray[np.int64]]:
    """Boards after every play of every roll of the positions of ``games`` greedy games,
    their equities for the side that played, and the plays of each (position, roll)."""
    rng = np.random.default_rng(seed)
    met: list[Position] = []
    for _ in range(games):
        pos, opening = Position.initial(), True
        while not pos.is_game_over():
            met.append(pos)
            dice = rng.integers(1, 7, size=2)
            while opening and dice[0] == dice[1]:
                dice = rng.integers(1, 7, size=2)
            opening = False
            kids, _ = child_boards([pos.board], [dice])
            if rng.random() < _EXPLORE:
                i = int(rng.integers(len(kids)))
            else:
                i = int(np.argmax(_equities(ev, kids)))
            pos = Position(kids[i].tolist())
    kids, counts = roll_boards_many(met)
    return kids.astype(np.int8), _equities(ev, kids), counts


def fit(
    boards: npt.NDArray[np.int8],
    equities: FloatArray,
    counts: npt.NDArray[np.int64],
    hidden: int = 16,
    epochs: int = 6,
    seed: int = 0,
    lr: float = 3e-3,
    rolls_a_batch: int = 256,
) -> PruneNet:
    """Fit a net by Adam to the equities centred per roll (the mean of each roll's plays
    taken from both the net's and the labels'), the learning rate cut by three for each of
    the last two epochs; the hidden units clipped to [-1, 1] (cheaper than a sigmoid)."""
    rng = np.random.default_rng(seed)
    n_in = 26 * COUNTS
    params = [
        (rng.standard_normal((n_in, hidden)) * 0.1).astype(np.float32),
        np.zeros(hidden, np.float32),
        (rng.standard_normal(hidden) * 0.1).astype(np.float32),
    ]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    offsets = (np.arange(26) * COUNTS + 15).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    step = 0
    for epoch in range(epochs):
        rate = lr / 3 ** max(0, epoch - epochs + 3)
        order = rng.permutation(len(counts))
        for s in range(0, len(order) - rolls_a_batch + 1, rolls_a_batch):
            rolls = order[s : s + rolls_a_batch]
            n = counts[rolls]
            rows = np.concatenate(
                [np.arange(starts[r], starts[r] + c) for r, c in zip(rolls, n, strict=True)]
            )
            seg = np.repeat(np.arange(len(rolls)), n)
            x = np.zeros((len(rows), n_in), np.float32)
            x[np.arange(len(rows))[:, None], boards[rows].astype(np.int64) + offsets] = 1.0
            embed, b1, w2 = params
            h = np.clip(x @ embed + b1, -1.0, 1.0)
            e = h @ w2 - equities[rows]
            e -= (np.bincount(seg, e, len(rolls)) / n)[seg]
            d = (2.0 * e / len(rows)).astype(np.float32)
            dh = np.outer(d, w2) * (np.abs(h) < 1.0)
            grads = [x.T @ dh, dh.sum(axis=0), h.T @ d]
            step += 1
            adam_update(params, grads, m, v, step, rate)
    # The level is free (centred fit): the bias puts the mean score at the labels' mean.
    net = PruneNet(params[0], params[1], params[2], 0.0)
    b2 = float(np.mean(equities) - np.mean(net.scores(boards[: _CHUNK * 8])))
    return PruneNet(params[0], params[1], params[2], b2)


def check(
    net: PruneNet,
    boards: npt.NDArray[np.int8],
    equities: FloatArray,
    counts: npt.NDArray[np.int64],
    keep: int,
) -> tuple[int, int, float]:
    """The rolls with more than ``keep`` plays, how many of them lose the best play by
    pruning, and the mean equity lost a pruned roll."""
    rows, kept = prune_rows(net.scores(boards), counts, keep)
    best_all = np.maximum.reduceat(equities, np.concatenate([[0], np.cumsum(counts)[:-1]]))
    best_kept = np.maximum.reduceat(equities[rows], np.concatenate([[0], np.cumsum(kept)[:-1]]))
    pruned = counts > keep
    lost = (best_all - best_kept)[pruned]
    return (
        int(pruned.sum()),
        int(np.count_nonzero(lost > 0)),
        float(lost.mean()) if len(lost) else 0.0,
    )


def main(argv: Sequence[str] | None = None) -> int:
    from backgammon.judging.rollout.engine import evaluator_for

    ap = argparse.ArgumentParser(prog="python -m backgammon.training.prune", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--games", type=int, default=300)
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("--data", nargs="+", required=True)
    f.add_argument("--hidden", type=int, default=16)
    f.add_argument("--epochs", type=int, default=6)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("--weights", required=True)
    c.add_argument("--data", required=True)
    c.add_argument("--keep", type=int, nargs="+", default=[4, 5, 6, 8])
    args = ap.parse_args(argv)
    if args.command == "generate":
        boards, eq, counts = generate(evaluator_for(None, True), args.games, args.seed)
        np.savez_compressed(args.out, boards=boards, equities=eq, counts=counts)
        print(f"{len(counts)} rolls, {len(boards)} boards -> {args.out}")
    elif args.command == "fit":
        data = [np.load(p) for p in args.data]
        boards = np.concatenate([d["boards"] for d in data])
        eq = np.concatenate([d["equities"] for d in data])
        counts = np.concatenate([d["counts"] for d in data])
        fit(boards, eq, counts, args.hidden, args.epochs, args.seed).save(args.out)
        print(f"fitted on {len(counts)} rolls -> {args.out}")
    else:
        with np.load(args.data) as d:
            boards, eq, counts = d["boards"], d["equities"], d["counts"]
        net = PruneNet.load(args.weights)
        for keep in args.keep:
            n, missed, loss = check(net, boards, eq, counts, keep)
            print(
                f"keep {keep}: {n} of {len(counts)} rolls pruned, best play lost in {missed} "
                f"({100 * missed / max(n, 1):.2f}%), {1000 * loss:.2f} mppg lost a pruned roll"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
