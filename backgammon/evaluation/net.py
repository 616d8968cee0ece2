"""A small numpy neural network with gnubg's five outputs, and the contact/race pair (with
optionally nets of their own for crashed positions, as gnubg has, and for back games).

Outputs are the five cumulative probabilities of :mod:`backgammon.evaluation.probabilities`,
from the point of view of the side on roll.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from backgammon.evaluation.encode import NET_CLASSES, encode_with_race, n_inputs, net_routes
from backgammon.evaluation.probabilities import N_OUTPUTS

__all__ = ["DEFAULT_WEIGHTS", "NETS", "Net", "NetPair", "default_nets", "sigmoid"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

DEFAULT_WEIGHTS = Path(__file__).with_name("data") / "weights.npz"
"""The shipped weights."""

NETS = NET_CLASSES
"""The nets a weights file can hold, by the positions each judges (:meth:`NetPair.routes`)."""


BLOCK = 1024
"""Boards encoded and evaluated at a time: a lookahead's tens of thousands at once would
outgrow the caches and run a third slower."""

_A = TypeVar("_A", npt.NDArray[np.float64], npt.NDArray[np.float32])


def sigmoid(x: _A) -> _A:
    """The logistic function of ``x``, computed in place (``x`` is a fresh product)."""
    x *= 0.5
    np.tanh(x, out=x)
    x += 1.0
    x *= 0.5
    return x


@dataclass
class Net:
    """One hidden layer of sigmoids, five sigmoid outputs.

    Training (:mod:`backgammon.training.nets`) works on the float64 weights; play
    (:meth:`__call__`) on float32 copies, twice as fast and exact to about 1e-6.  Whatever
    changes the weights in place must call :meth:`changed` (assigning an array does it)."""

    w1: FloatArray
    b1: FloatArray
    w2: FloatArray
    b2: FloatArray
    _single: tuple[npt.NDArray[np.float32], ...] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name != "_single":
            object.__setattr__(self, "_single", None)

    def changed(self) -> None:
        """Forget the float32 copies after the weights were changed in place."""
        self._single = None

    def _weights32(self) -> tuple[npt.NDArray[np.float32], ...]:
        """The float32 weights scaled by powers of two (exact) for :meth:`__call__`: w1, b1
        and b2 halved, w2 quartered."""
        if self._single is None:
            scaled = (0.5 * self.w1, 0.5 * self.b1, 0.25 * self.w2, 0.5 * self.b2)
            self._single = tuple(a.astype(np.float32) for a in scaled)
        return self._single

    @property
    def hidden(self) -> int:
        """Number of hidden units."""
        return int(self.b1.shape[0])

    def forward(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Hidden activations and outputs of a batch of inputs."""
        z = x @ self.w1
        z += self.b1
        h = sigmoid(z)
        y = h @ self.w2
        y += self.b2
        return h, sigmoid(y)

    def __call__(self, x: npt.NDArray[np.floating[Any]]) -> FloatArray:
        """The outputs of a batch of inputs, computed in float32.  Inputs that are zero in
        every row (most of them in the candidates of one roll) are left out of the first
        layer's product."""
        w1, b1, w2, b2 = self._weights32()  # scaled
        x = x.astype(np.float32, copy=False)
        used = np.logical_or.reduce(x, axis=0).nonzero()[0]  # as flatnonzero(any), fewer calls
        # take: the same arrays as x[:, used] and w1[used], sooner.
        z = x @ w1 if 2 * len(used) > len(w1) else x.take(used, axis=1) @ w1.take(used, axis=0)
        z += b1
        # sigmoid(2z) = (tanh(z) + 1) / 2: with the weights' scales, what sigmoid() gives
        # to the bit, two passes over the hidden layer fewer.
        np.tanh(z, out=z)
        z += 1.0
        y = z @ w2
        y += b2
        np.tanh(y, out=y)
        y += 1.0
        return np.multiply(y, 0.5, dtype=np.float64)  # exact: the float32 halves, widened

    def arrays(self, prefix: str) -> dict[str, FloatArray]:
        """The weights as named arrays (for ``np.savez``)."""
        return {
            f"{prefix}w1": self.w1,
            f"{prefix}b1": self.b1,
            f"{prefix}w2": self.w2,
            f"{prefix}b2": self.b2,
        }

    def copy(self) -> Net:
        """An independent copy of the weights."""
        return Net(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2.copy())

    @classmethod
    def from_arrays(cls, data: Any, prefix: str) -> Net:
        """Read the weights saved by :meth:`arrays`."""
        return cls(
            *(np.array(data[f"{prefix}{k}"], dtype=np.float64) for k in ("w1", "b1", "w2", "b2"))
        )


@dataclass
class NetPair:
    """A contact net and a race net, saved together in one weights file; each board goes to
    one of them by whether contact is left.  With a ``crashed`` net, contact positions where
    a side has crashed its board (:func:`~backgammon.evaluation.encode.is_crashed`) go to it;
    with a ``back`` net, the other back games
    (:func:`~backgammon.evaluation.encode.is_back_game`) go to that one
    (:func:`~backgammon.evaluation.encode.net_routes`).  Raw outputs: see
    :class:`~backgammon.evaluation.evaluator.CompositeEvaluator` for what play uses."""

    contact: Net
    race: Net
    meta: dict[str, Any] = field(default_factory=dict)
    crashed: Net | None = None
    back: Net | None = None

    def __post_init__(self) -> None:
        size = n_inputs(self.inputs)
        for name, net in self.nets():
            if net.w1.shape[0] != size:
                raise ValueError(
                    f"the {name} net takes {net.w1.shape[0]} inputs, but input layout "
                    f"{self.inputs} has {size}"
                )

    @property
    def inputs(self) -> int:
        """The input layout the nets read (:data:`~backgammon.evaluation.encode.INPUT_VERSIONS`)."""
        return int(self.meta.get("inputs", 1))

    def nets(self) -> list[tuple[str, Net]]:
        """The nets by name, in :data:`NETS` order (those the file has)."""
        named = [(name, getattr(self, name)) for name in NETS]
        return [(name, net) for name, net in named if net is not None]

    def encode(
        self, b: IntArray, dtype: type[np.floating[Any]] = np.float64
    ) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
        """The inputs of a batch of boards in the nets' layout, and which are races."""
        return encode_with_race(b, self.inputs, dtype)

    def routes(self, b: IntArray, race: Bool) -> npt.NDArray[np.int8]:
        """Which net judges each board of the batch, as an index into :data:`NETS`
        (:func:`~backgammon.evaluation.encode.net_routes`); ``race`` is :meth:`encode`'s."""
        if self.crashed is None and self.back is None:
            return race.view(np.int8)
        return net_routes(b, race, self.crashed is not None, self.back is not None)

    def masks(self, b: IntArray, race: Bool) -> list[tuple[str, Net, Bool]]:
        """Each net with the boards of the batch it judges (for training)."""
        routes = self.routes(b, race)
        return [(name, net, routes == NETS.index(name)) for name, net in self.nets()]

    def evaluate(self, b: IntArray) -> FloatArray:
        """The nets' five outputs for the side on roll of each (unfinished) board."""
        return self.evaluate_with_race(b)[0]

    def evaluate_with_race(self, b: IntArray) -> tuple[FloatArray, Bool]:
        """:meth:`evaluate` and which boards are races (no contact left)."""
        if len(b) > BLOCK:
            parts = [self.evaluate_with_race(b[lo : lo + BLOCK]) for lo in range(0, len(b), BLOCK)]
            return np.concatenate([p for p, _ in parts]), np.concatenate([r for _, r in parts])
        x, race = self.encode(b, np.float32)
        return self.evaluate_encoded(x, self.routes(b, race)), race

    def evaluate_encoded(self, x: FloatArray, routes: npt.NDArray[np.int8]) -> FloatArray:
        """Like :meth:`evaluate` from inputs already encoded, each row by the net
        :meth:`routes` names: one product per net the batch needs."""
        counts = np.bincount(routes, minlength=len(NETS))
        used = counts.nonzero()[0]
        if len(used) == 1:
            return self._routed(int(used[0]))(x)
        out = np.empty((len(x), N_OUTPUTS))
        for k in used.tolist():
            rows = (routes == k).nonzero()[0]
            out[rows] = self._routed(k)(x.take(rows, axis=0))
        return out

    def _routed(self, route: int) -> Net:
        """The net a route of :meth:`routes` names (one the file has)."""
        net: Net = getattr(self, NETS[route])
        return net

    def save(self, path: str | Path) -> None:
        """Write the nets and the metadata to one ``.npz`` file."""
        arrays = {
            name: a
            for net_name, net in self.nets()
            for name, a in net.arrays(f"{net_name}_").items()
        }
        meta = np.array(json.dumps(self.meta, sort_keys=True))
        tmp = Path(str(path) + ".tmp.npz")
        np.savez_compressed(tmp, meta=meta, **arrays)  # type: ignore[arg-type]
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> NetPair:
        """Read a file written by :meth:`save`."""
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            nets = {n: Net.from_arrays(data, f"{n}_") for n in NETS if f"{n}_w1" in data}
            return cls(meta=meta, **nets)


@lru_cache(maxsize=4)
def default_nets(path: str = str(DEFAULT_WEIGHTS)) -> NetPair:
    """The shipped (or given) weights, loaded once."""
    return NetPair.load(path)
