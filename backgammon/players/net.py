"""A small numpy neural network with gnubg's five outputs, and the contact/race pair.

Outputs are the five cumulative probabilities of :mod:`backgammon.players.probabilities`,
from the point of view of the side on roll.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from backgammon.players.encode import encode_with_race, n_inputs
from backgammon.players.probabilities import N_OUTPUTS

__all__ = ["DEFAULT_WEIGHTS", "Net", "NetPair", "default_nets"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

DEFAULT_WEIGHTS = Path(__file__).with_name("data") / "weights.npz"
"""The shipped weights."""


def _sigmoid(x: FloatArray) -> FloatArray:
    """The logistic function of ``x``, computed in place (``x`` is a fresh product)."""
    x *= 0.5
    np.tanh(x, out=x)
    x += 1.0
    x *= 0.5
    return x


@dataclass
class Net:
    """One hidden layer of sigmoids, five sigmoid outputs."""

    w1: FloatArray
    b1: FloatArray
    w2: FloatArray
    b2: FloatArray

    @classmethod
    def random(cls, n_inputs: int, hidden: int, rng: np.random.Generator) -> Net:
        """Small random weights (reproducible from ``rng``)."""
        return cls(
            rng.normal(0.0, 1.0 / np.sqrt(n_inputs), (n_inputs, hidden)),
            np.zeros(hidden),
            rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, N_OUTPUTS)),
            np.zeros(N_OUTPUTS),
        )

    @property
    def hidden(self) -> int:
        """Number of hidden units."""
        return int(self.b1.shape[0])

    def forward(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Hidden activations and outputs of a batch of inputs."""
        z = x @ self.w1
        z += self.b1
        h = _sigmoid(z)
        y = h @ self.w2
        y += self.b2
        return h, _sigmoid(y)

    def __call__(self, x: FloatArray) -> FloatArray:
        """The outputs of a batch of inputs.  Inputs that are zero in every row (most of
        them in the candidates of one roll) are left out of the first layer's product."""
        used = np.flatnonzero(x.any(axis=0))
        if 2 * len(used) > len(self.w1):
            return self.forward(x)[1]
        z = x[:, used] @ self.w1[used]
        z += self.b1
        h = _sigmoid(z)
        y = h @ self.w2
        y += self.b2
        return _sigmoid(y)

    def train_step(self, x: FloatArray, target: FloatArray, alpha: float) -> float:
        """One gradient step of squared error towards ``target`` (summed over the batch)."""
        h, y = self.forward(x)
        err = target - y
        d_out = err * y * (1.0 - y)
        d_hid = (d_out @ self.w2.T) * h * (1.0 - h)
        self.w2 += alpha * (h.T @ d_out)
        self.b2 += alpha * d_out.sum(axis=0)
        self.w1 += alpha * (x.T @ d_hid)
        self.b1 += alpha * d_hid.sum(axis=0)
        return float((err * err).sum())

    def arrays(self, prefix: str) -> dict[str, FloatArray]:
        """The weights as named arrays (for ``np.savez``)."""
        return {
            f"{prefix}w1": self.w1,
            f"{prefix}b1": self.b1,
            f"{prefix}w2": self.w2,
            f"{prefix}b2": self.b2,
        }

    @classmethod
    def from_arrays(cls, data: Any, prefix: str) -> Net:
        """Read the weights saved by :meth:`arrays`."""
        return cls(
            *(np.array(data[f"{prefix}{k}"], dtype=np.float64) for k in ("w1", "b1", "w2", "b2"))
        )


@dataclass
class NetPair:
    """A contact net and a race net, saved together in one weights file; each board goes to
    one of them by whether contact is left.  Raw outputs: see
    :class:`~backgammon.players.evaluator.CompositeEvaluator` for what play uses."""

    contact: Net
    race: Net
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        size = n_inputs(self.inputs)
        for name, net in (("contact", self.contact), ("race", self.race)):
            if net.w1.shape[0] != size:
                raise ValueError(
                    f"the {name} net takes {net.w1.shape[0]} inputs, but input layout "
                    f"{self.inputs} has {size}"
                )

    @classmethod
    def random(
        cls, rng: np.random.Generator, hidden: int = 128, race_hidden: int = 64, inputs: int = 1
    ) -> NetPair:
        """An untrained pair of nets reading input layout ``inputs``."""
        size = n_inputs(inputs)
        meta: dict[str, Any] = {"inputs": inputs} if inputs != 1 else {}
        return cls(Net.random(size, hidden, rng), Net.random(size, race_hidden, rng), meta)

    @property
    def inputs(self) -> int:
        """The input layout the nets read (:data:`~backgammon.players.encode.INPUT_VERSIONS`)."""
        return int(self.meta.get("inputs", 1))

    def with_inputs(self, version: int) -> NetPair:
        """The same function reading the longer layout ``version``: the added inputs start
        with no weight, so fitting can use them from where the nets are."""
        extra = n_inputs(version) - n_inputs(self.inputs)
        if extra < 0:
            raise ValueError(f"cannot go from input layout {self.inputs} to {version}")

        def grow(net: Net) -> Net:
            w1 = np.concatenate([net.w1, np.zeros((extra, net.hidden))])
            return Net(w1, net.b1.copy(), net.w2.copy(), net.b2.copy())

        return NetPair(grow(self.contact), grow(self.race), {**self.meta, "inputs": version})

    def encode(self, b: IntArray) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
        """The inputs of a batch of boards in the nets' layout, and which are races."""
        return encode_with_race(b, self.inputs)

    def evaluate(self, b: IntArray) -> FloatArray:
        """The nets' five outputs for the side on roll of each (unfinished) board."""
        return self.evaluate_encoded(*self.encode(b))

    def evaluate_with_race(self, b: IntArray) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
        """:meth:`evaluate` and which boards are races (no contact left)."""
        x, race = self.encode(b)
        return self.evaluate_encoded(x, race), race

    def evaluate_encoded(self, x: FloatArray, race: npt.NDArray[np.bool_]) -> FloatArray:
        """Like :meth:`evaluate` from inputs already encoded."""
        if not race.any():
            return self.contact(x)
        if race.all():
            return self.race(x)
        out = np.empty((len(x), N_OUTPUTS))
        out[race] = self.race(x[race])
        out[~race] = self.contact(x[~race])
        return out

    def save(self, path: str | Path) -> None:
        """Write both nets and the metadata to one ``.npz`` file."""
        arrays = {**self.contact.arrays("contact_"), **self.race.arrays("race_")}
        meta = np.array(json.dumps(self.meta, sort_keys=True))
        tmp = Path(str(path) + ".tmp.npz")
        np.savez_compressed(tmp, meta=meta, **arrays)  # type: ignore[arg-type]
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> NetPair:
        """Read a file written by :meth:`save`."""
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            return cls(Net.from_arrays(data, "contact_"), Net.from_arrays(data, "race_"), meta)


@lru_cache(maxsize=4)
def default_nets(path: str = str(DEFAULT_WEIGHTS)) -> NetPair:
    """The shipped (or given) weights, loaded once."""
    return NetPair.load(path)
