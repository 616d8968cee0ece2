"""Making and changing nets for training: random starts, growing a net (wider, or reading a
longer input layout) without changing its function, the one backward pass, and the two
optimisers built on it (TD's plain gradient step and distillation's Adam).

The players' :mod:`backgammon.evaluation.net` only evaluates; whatever changes weights is here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from backgammon.evaluation.encode import n_inputs
from backgammon.evaluation.net import Net, NetPair
from backgammon.evaluation.probabilities import N_OUTPUTS

__all__ = [
    "Adam",
    "adam_update",
    "backward",
    "random_net",
    "random_pair",
    "sgd_step",
    "widen",
    "with_inputs",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def random_net(inputs: int, hidden: int, rng: np.random.Generator) -> Net:
    """Small random weights (reproducible from ``rng``)."""
    return Net(
        rng.normal(0.0, 1.0 / np.sqrt(inputs), (inputs, hidden)),
        np.zeros(hidden),
        rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, N_OUTPUTS)),
        np.zeros(N_OUTPUTS),
    )


def random_pair(
    rng: np.random.Generator, hidden: int = 128, race_hidden: int = 64, inputs: int = 1
) -> NetPair:
    """An untrained pair of nets reading input layout ``inputs``."""
    size = n_inputs(inputs)
    meta = {"inputs": inputs} if inputs != 1 else {}
    return NetPair(random_net(size, hidden, rng), random_net(size, race_hidden, rng), meta)


def with_inputs(pair: NetPair, version: int) -> NetPair:
    """The same function reading the longer layout ``version``: the added inputs start with
    no weight, so fitting can use them from where the nets are."""
    extra = n_inputs(version) - n_inputs(pair.inputs)
    if extra < 0:
        raise ValueError(f"cannot go from input layout {pair.inputs} to {version}")

    def grow(net: Net) -> Net:
        w1 = np.concatenate([net.w1, np.zeros((extra, net.hidden))])
        return Net(w1, net.b1.copy(), net.w2.copy(), net.b2.copy())

    grown = {name: grow(net) for name, net in pair.nets()}
    return NetPair(meta={**pair.meta, "inputs": version}, **grown)


def widen(net: Net, hidden: int, rng: np.random.Generator) -> Net:
    """The same function with ``hidden`` hidden units: the new units start with small random
    inputs and no weight on the outputs, so fitting can use them from where the net is."""
    extra = hidden - net.hidden
    if extra < 0:
        raise ValueError(f"cannot shrink a net of {net.hidden} hidden units to {hidden}")
    n_in = net.w1.shape[0]
    return Net(
        np.concatenate([net.w1, rng.normal(0.0, 1.0 / np.sqrt(n_in), (n_in, extra))], axis=1),
        np.concatenate([net.b1, np.zeros(extra)]),
        np.concatenate([net.w2, np.zeros((extra, net.w2.shape[1]))]),
        net.b2.copy(),
    )


def backward(net: Net, x: FloatArray, h: FloatArray, delta: FloatArray) -> list[FloatArray]:
    """The gradients of a loss, summed over the batch, with respect to ``w1, b1, w2, b2``,
    given the hidden activations ``h`` of inputs ``x`` and ``delta``, the loss's derivative
    with respect to each row's output sums (before the sigmoid)."""
    d_hid = (delta @ net.w2.T) * h * (1.0 - h)
    return [x.T @ d_hid, d_hid.sum(axis=0), h.T @ delta, delta.sum(axis=0)]


def _weights(net: Net) -> list[FloatArray]:
    return [net.w1, net.b1, net.w2, net.b2]


def sgd_step(net: Net, x: FloatArray, target: FloatArray, alpha: float) -> float:
    """One gradient step of squared error towards ``target`` (summed over the batch, step
    size ``alpha``), as TD(lambda) takes it; returns the squared error before the step."""
    h, y = net.forward(x)
    err = target - y
    for a, g in zip(_weights(net), backward(net, x, h, -(err * y * (1.0 - y))), strict=True):
        a -= alpha * g
    net.changed()
    return float((err * err).sum())


Delta = Callable[[FloatArray, FloatArray], FloatArray]
"""Given a batch's outputs and the error ``outputs - target``, the loss's derivative with
respect to the output sums (cross-entropy's is the error itself)."""


class Adam:
    """Adam on one net's four arrays, minimising the mean of a loss over each mini-batch."""

    def __init__(self, net: Net, lr: float) -> None:
        self.net, self.lr, self.t = net, lr, 0
        self.m = [np.zeros_like(a) for a in _weights(net)]
        self.v = [np.zeros_like(a) for a in _weights(net)]

    def step(self, x: FloatArray, target: FloatArray, delta: Delta | None = None) -> float:
        """One step of cross-entropy on a mini-batch (``delta`` adds to the loss: it maps
        the outputs and their error to the derivative to use); returns the batch's squared
        error."""
        net = self.net
        h, y = net.forward(x)
        err = y - target
        loss = float((err * err).sum())
        if delta is not None:
            err = delta(y, err)
        n = len(x)
        grads = [g / n for g in backward(net, x, h, err)]
        self.t += 1
        adam_update(_weights(net), grads, self.m, self.v, self.t, self.lr)
        net.changed()
        return loss


def adam_update(
    arrays: list[Any], grads: list[Any], m: list[Any], v: list[Any], t: int, lr: float
) -> None:
    """Adam's step ``t`` (from 1) on ``arrays`` in place, with their moments ``m`` and
    ``v`` (updated in place too): the one update every fit here takes."""
    b1, b2 = 0.9, 0.999
    corr = np.sqrt(1 - b2**t) / (1 - b1**t)
    for a, g, m_a, v_a in zip(arrays, grads, m, v, strict=True):
        m_a *= b1
        m_a += (1 - b1) * g
        v_a *= b2
        v_a += (1 - b2) * g * g
        a -= lr * corr * m_a / (np.sqrt(v_a) + 1e-8)
