"""Fitting nets to labels (the second training stage's last step): cross-entropy with Adam,
optionally weighing the equity differences between the plays of one decision; averaging nets
of one shape; calibrating outputs that are off by a steady bias.

    backgammon distill fit --weights W --data D1.npz D2.npz --out NEW.npz [--rank 64]
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from backgammon.evaluation.net import Net, NetPair, sigmoid
from backgammon.evaluation.probabilities import MONEY_WEIGHTS, N_OUTPUTS
from backgammon.training.nets import Adam, Delta

__all__ = ["FitDataError", "average", "calibrate", "fit", "rank_error"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class FitDataError(ValueError):
    """Training data that cannot be fitted as asked: the boards, labels and decision groups
    disagree in length, or a rank loss is asked of data that do not record their groups."""


def _mse(net: Net, x: FloatArray, target: FloatArray) -> float:
    return float(((net(x) - target) ** 2).sum(axis=1).mean()) if len(x) else 0.0


def _within_groups(values: FloatArray, groups: IntArray) -> tuple[FloatArray, IntArray]:
    """Each value less the mean of its group's, and the size of each row's group."""
    _, local = np.unique(groups, return_inverse=True)
    size = np.bincount(local)
    return values - (np.bincount(local, values) / size)[local], size[local]


def _rank_delta(groups: IntArray, rank: float) -> Delta:
    """The rank loss's part of the derivative: ``rank`` times each row's equity error less
    its decision group's mean error, spread over the outputs by their equity weights."""
    w = MONEY_WEIGHTS[0]

    def delta(y: FloatArray, err: FloatArray) -> FloatArray:
        gap, _ = _within_groups(err @ w, groups)
        return err + rank * gap[:, None] * w * y * (1.0 - y)

    return delta


def rank_error(net: Net, x: FloatArray, target: FloatArray, groups: IntArray) -> float:
    """Mean squared error of the net's equity differences within decision groups: each
    row's equity error less its group's mean error, over rows of groups of two or more."""
    gap, size = _within_groups((net(x) - target) @ MONEY_WEIGHTS[0], groups)
    shared = size > 1
    return float((gap[shared] ** 2).mean()) if shared.any() else 0.0


def fit(
    ev: NetPair,
    boards: IntArray,
    targets: FloatArray,
    epochs: int,
    lr: float,
    batch: int,
    seed: int,
    progress: bool = True,
    only: Sequence[str] = (),
    groups: IntArray | None = None,
    rank: float = 0.0,
) -> None:
    """Fit the nets of ``ev`` (in place) to the targets, each on its own boards (``only``:
    just the nets of these names).  With ``rank`` > 0 the loss also weighs, by ``rank``,
    the equity differences between the plays of one decision (``groups``, as
    :func:`generate` numbers them); then mini-batches and the held-out share are made of
    whole decisions."""
    if len(targets) != len(boards) or (groups is not None and len(groups) != len(boards)):
        raise FitDataError(
            f"{len(boards)} boards, {len(targets)} labels"
            + ("" if groups is None else f" and {len(groups)} decision groups")
            + " do not match"
        )
    if not (np.isfinite(rank) and rank >= 0):
        raise FitDataError(f"the rank loss's weight must be a number >= 0, not {rank}")
    if rank and groups is None:
        raise FitDataError("a rank loss needs the data's decision groups")
    rng = np.random.default_rng(seed)
    b = boards.astype(np.int64)
    x_all, race = ev.encode(b)
    y_all = targets.astype(np.float64)
    g_all = np.zeros(len(b), dtype=np.int64) if groups is None else np.asarray(groups, np.int64)
    for name, net, mask in ev.masks(b, race):
        if only and name not in only:
            continue
        x, y, g = x_all[mask], y_all[mask], g_all[mask]
        if not len(x):
            continue
        if rank:
            _, g = np.unique(g, return_inverse=True)
            held = (rng.random(int(g.max()) + 1) < 0.05)[g]
        else:
            held = rng.random(len(x)) < 0.05
        xv, yv, gv, xt, yt, gt = x[held], y[held], g[held], x[~held], y[~held], g[~held]

        def report(
            when: str, net: Net = net, xv: FloatArray = xv, yv: FloatArray = yv, gv: IntArray = gv
        ) -> str:
            ranked = f", in decisions {rank_error(net, xv, yv, gv):.6f}" if rank else ""
            return f"held out {when}{_mse(net, xv, yv):.5f}{ranked}"

        if progress:
            print(
                f"{name}: {len(xt)} to fit, {len(xv)} held out; {report('before ')}",
                file=sys.stderr,
            )
        opt = Adam(net, lr)
        for epoch in range(epochs):
            opt.lr = lr * (0.5 ** (epoch * 3 / max(1, epochs)))
            if rank:
                # whole decisions in a random order (one may straddle two mini-batches)
                order = np.argsort(rng.permutation(int(gt.max()) + 1)[gt], kind="stable")
            else:
                order = rng.permutation(len(xt))
            se = 0.0
            for i in range(0, len(order), batch):
                j = order[i : i + batch]
                se += opt.step(xt[j], yt[j], _rank_delta(gt[j], rank) if rank else None)
            if progress:
                print(
                    f"  epoch {epoch + 1}/{epochs}: fit {se / len(xt):.5f}  {report('')}",
                    file=sys.stderr,
                    flush=True,
                )


def average(nets: Sequence[NetPair]) -> NetPair:
    """The mean of the weights of nets of one shape (a "model soup"): nets trained or fitted
    from one start stay near each other, where the mean of their weights tends to judge
    better than each of them; the first net's metadata is kept."""
    if not nets:
        raise FitDataError("nothing to average")
    first = nets[0]

    def shape(ev: NetPair) -> list[tuple[str, tuple[int, ...]]]:
        return [(name, net.w1.shape) for name, net in ev.nets()] + [("inputs", (ev.inputs,))]

    if any(shape(ev) != shape(first) for ev in nets):
        raise FitDataError("only nets of one shape and input layout can be averaged")

    def mean(name: str) -> Net:
        parts = [dict(ev.nets())[name].arrays("") for ev in nets]
        return Net(*(np.mean([p[k] for p in parts], axis=0) for k in ("w1", "b1", "w2", "b2")))

    return NetPair(meta=copy.deepcopy(first.meta), **{name: mean(name) for name, _ in first.nets()})


def calibrate(net: Net, x: FloatArray, target: FloatArray, outputs: Sequence[int]) -> Net:
    """A copy of ``net`` whose ``outputs`` are refitted as sigmoid(a * z + c) of their
    pre-sigmoid sums z, the scale a and shift c per output minimising the cross-entropy
    against ``target`` (by Newton's method: the loss is convex in them), folded into the
    output weights.  Few labels fix these two numbers well, where refitting the net would
    need many: this corrects an output that is off by a steady bias, such as gammon rates
    that lookahead labels inherit from the net and only rollouts to the end correct."""
    if x.shape[0] != target.shape[0] or target.shape[1:] != (N_OUTPUTS,):
        raise FitDataError(f"{target.shape} labels do not match {x.shape[0]} inputs")
    if not len(x):
        raise FitDataError("no positions to calibrate on")
    h, _ = net.forward(x)
    out = net.copy()
    t = np.clip(target, 0.0, 1.0)
    keep = np.array([1.0, 0.0])
    # A faint pull towards the output as it was keeps the fit finite when the labels are all
    # 0 (no backgammons at all, say), where the best shift would be minus infinity.
    ridge = 1e-9 * len(x)
    for k in outputs:
        z = h @ net.w2[:, k] + net.b2[k]
        feats = np.stack([z, np.ones_like(z)], axis=1)
        theta = keep.copy()
        for _ in range(100):
            p = sigmoid(feats @ theta)
            grad = feats.T @ (p - t[:, k]) + ridge * (theta - keep)
            hess = (feats * (p * (1.0 - p))[:, None]).T @ feats + ridge * np.eye(2)
            step = np.linalg.solve(hess, grad)
            theta -= step
            if np.abs(step).max() < 1e-10:
                break
        a, c = theta
        out.w2[:, k] = a * net.w2[:, k]
        out.b2[k] = a * net.b2[k] + c
    out.changed()
    return out
