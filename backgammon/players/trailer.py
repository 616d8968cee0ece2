"""Gammons in the races the nets misjudge: the leader's exact bear-off times the trailer's
chance of having borne nothing off by then.

In a race where one side (the leader) has every checker home and the other (the trailer)
still has all 15 with some outside, the leader wins a gammon when it bears its last checker
off before the trailer bears its first, and a backgammon when the trailer then still has a
checker in the leader's home board.  In a race each side's rolls are its own affair, so both
come from one-sided distributions: the leader's exactly from the bear-off database, the
trailer's from a small net (:class:`TrailerNet`) fitted to games of the trailer alone
(``labels/trailer``, :mod:`backgammon.training.trailer`).  The race net's gammon outputs
are several points off here (the judge's issue measured 2.5 rms, up to 20); this is within
about one.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backgammon.players.bearoff import MAX_ROLLS, BearoffDatabase, indices
from backgammon.players.net import Net

__all__ = ["TRAILER_WEIGHTS", "TrailerNet", "race_gammons", "trailer_inputs", "trailers"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

TRAILER_WEIGHTS = Path(__file__).with_name("data") / "trailer.npz"
"""The shipped trailer net."""

N_TRAILER_INPUTS = 24 * 4 + 5
_COUNT = np.arange(16, dtype=np.float64)[:, None]
_UNITS = np.concatenate(
    [np.clip(_COUNT - k, 0.0, 1.0) for k in (0.0, 1.0, 2.0)] + [np.maximum(_COUNT - 3.0, 0.0) / 2],
    axis=1,
)  # a point's four units by its number of checkers (0-15)
_POINTS = np.arange(1, 25, dtype=np.float64)
_SUMS = np.stack(
    [
        _POINTS / 100.0,  # pips
        np.maximum(_POINTS - 6, 0) / 40.0,  # pips still to come home
        (_POINTS > 6) / 15.0,  # checkers still to come home
        np.maximum(_POINTS - 18, 0) / 20.0,  # pips to leave the leader's home
        (_POINTS > 18) / 5.0,  # checkers in the leader's home
    ],
    axis=1,
)


def trailer_inputs(counts: IntArray) -> FloatArray:
    """The net's inputs for ``(N, 24)`` checker counts on the trailer's points 1-24: four
    units a point (at least one, two, three checkers, and half the rest) and five sums
    (pips, pips and checkers still to come home, pips and checkers in the leader's home)."""
    x = np.empty((len(counts), N_TRAILER_INPUTS))
    x[:, :96] = _UNITS[counts].reshape(len(counts), 96)
    np.matmul(counts, _SUMS, out=x[:, 96:], casting="unsafe")
    return x


class TrailerNet:
    """The trailer's survival curves from its checkers: S(j), the chance of no checker off
    after j of its rolls, and E(j), of a checker still in the leader's home board."""

    def __init__(self, net: Net) -> None:
        """``net`` has :data:`N_TRAILER_INPUTS` inputs and ``2 * MAX_ROLLS`` outputs."""
        self.net = net

    @classmethod
    def load(cls, path: Path = TRAILER_WEIGHTS) -> TrailerNet:
        """The net saved by :meth:`save` (the shipped one by default)."""
        return _load(str(path))

    def save(self, path: Path) -> None:
        """Write the weights as a compressed ``.npz``."""
        n = self.net
        np.savez_compressed(path, w1=n.w1, b1=n.b1, w2=n.w2, b2=n.b2)

    def survival(self, counts: IntArray) -> tuple[FloatArray, FloatArray]:
        """``S`` and ``E``, each ``(N, MAX_ROLLS)`` and not increasing, for ``(N, 24)``
        trailers' counts (each with 15 checkers, some outside home)."""
        y = self.net(trailer_inputs(counts))
        s = np.minimum.accumulate(y[:, :MAX_ROLLS], axis=1)
        e = np.minimum.accumulate(y[:, MAX_ROLLS:], axis=1)
        s[:, 0] = 1.0  # no checker is off before the first roll
        e[counts[:, 18:].sum(axis=1) == 0] = 0.0  # none there to begin with
        return s, e


@lru_cache(maxsize=2)
def _load(path: str) -> TrailerNet:
    with np.load(path) as data:
        return TrailerNet(Net.from_arrays(data, ""))


def trailers(boards: IntArray) -> tuple[Bool, Bool]:
    """For ``(N, 26)`` race boards (side on roll positive, its bar at 25): where the side on
    roll leads (all home, the other side all 15 with some outside its home) and where it
    trails (the mirror)."""
    mine = np.maximum(boards, 0)
    theirs = np.maximum(-boards, 0)
    mine_home = mine[:, 7:].sum(axis=1) == 0
    theirs_home = theirs[:, :19].sum(axis=1) == 0
    leads = mine_home & (theirs.sum(axis=1) == 15) & ~theirs_home & (mine.sum(axis=1) > 0)
    trails = theirs_home & (mine.sum(axis=1) == 15) & ~mine_home & (theirs.sum(axis=1) > 0)
    return leads, trails


def race_gammons(boards: IntArray, p: FloatArray, db: BearoffDatabase, trailer: TrailerNet) -> None:
    """Set the gammon and backgammon chances in ``p`` (``(N, 5)``, in place) of the race
    boards where one side leads as :func:`trailers` says; leaves the rest alone."""
    leads, trails = trailers(boards)
    for mask, on_roll_leads in ((leads, True), (trails, False)):
        if not mask.any():
            continue
        b = boards[mask]
        if on_roll_leads:
            home = np.maximum(b[:, 1:7], 0)
            counts = np.maximum(-b[:, 24:0:-1], 0)  # their points 1-24
        else:
            home = np.maximum(-b[:, 24:18:-1], 0)
            counts = np.maximum(b[:, 1:25], 0)
        leader = db.table[indices(home)]  # P(all off on exactly the k-th roll)
        s, e = trailer.survival(counts)
        # The leader's k-th roll comes after k - 1 of the trailer's when the leader is on
        # roll, after k when the trailer is.
        shift = 1 if on_roll_leads else 0
        gammon = (leader[:, 1:] * s[:, 1 - shift : MAX_ROLLS - shift]).sum(axis=1)
        backgammon = (leader[:, 1:] * e[:, 1 - shift : MAX_ROLLS - shift]).sum(axis=1)
        q = p[mask]
        if on_roll_leads:
            q[:, 1] = np.minimum(gammon, q[:, 0])
            q[:, 2] = np.minimum(backgammon, q[:, 1])
        else:
            q[:, 3] = np.minimum(gammon, 1.0 - q[:, 0])
            q[:, 4] = np.minimum(backgammon, q[:, 3])
        p[mask] = q
