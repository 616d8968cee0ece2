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
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backgammon.evaluation.bearoff import MAX_ROLLS, BearoffDatabase, indices
from backgammon.evaluation.net import Net

__all__ = [
    "TRAILER_WEIGHTS",
    "TrailerNet",
    "race_gammons",
    "trailer_inputs",
    "trailer_keys",
    "trailers",
]

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
PIPS_TO_HOME = np.maximum(_POINTS - 6, 0)
"""The pips a checker on each of the trailer's points 1-24 needs to come home."""
_SUMS = np.stack(
    [
        _POINTS / 100.0,  # pips
        PIPS_TO_HOME / 40.0,  # pips still to come home
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
        trailers' counts (each with 15 checkers, some outside home).  A trailer met more
        than once is computed once: a lookahead's thousands of leaves hold a few distinct
        trailers, as their leaders' plays leave the trailer as it was."""
        if len(counts) > _DEDUPE_FROM:
            _, first, inverse = np.unique(
                trailer_keys(counts), return_index=True, return_inverse=True
            )
            if 2 * len(first) < len(counts):
                s, e = self._survival(counts[first])
                return s[inverse], e[inverse]
        return self._survival(counts)

    def _survival(self, counts: IntArray) -> tuple[FloatArray, FloatArray]:
        y = self.net(trailer_inputs(counts))
        s = np.minimum.accumulate(y[:, :MAX_ROLLS], axis=1)
        e = np.minimum.accumulate(y[:, MAX_ROLLS:], axis=1)
        s[:, 0] = 1.0  # no checker is off before the first roll
        e[counts[:, 18:].sum(axis=1) == 0] = 0.0  # none there to begin with
        return s, e


_DEDUPE_FROM = 64
"""Batches of more trailers than this are computed once per distinct trailer."""

# The rank of a trailer among all placements of up to 15 checkers on 24 points (the
# combinatorial number system on its prefix sums, which grow by at least one a point
# once each point's index is added): one exact int64 key a trailer.
_RANK = np.array(
    [[comb(total + point, point + 1) for total in range(16)] for point in range(24)],
    dtype=np.int64,
)
_POINT_ROWS = np.arange(24)


def trailer_keys(counts: IntArray) -> IntArray:
    """One int64 per row of ``(N, 24)`` counts (at most 15 checkers a row), equal only
    for equal rows."""
    keys: IntArray = _RANK[_POINT_ROWS, np.cumsum(counts, axis=1)].sum(axis=1)
    return keys


@lru_cache(maxsize=2)
def _load(path: str) -> TrailerNet:
    with np.load(path) as data:
        return TrailerNet(Net.from_arrays(data, ""))


def trailers(boards: IntArray) -> tuple[Bool, Bool]:
    """For ``(N, 26)`` race boards (side on roll positive, its bar at 25): where the side on
    roll leads (all home, the other side all 15 with some outside its home) and where it
    trails (the mirror)."""
    mine_out = boards[:, 7:].max(axis=1) > 0  # a checker of the side on roll outside home
    theirs_out = boards[:, :19].min(axis=1) < 0
    leads = theirs_out > mine_out
    trails = mine_out > theirs_out
    if np.count_nonzero(leads) or np.count_nonzero(trails):
        theirs = np.minimum(boards, 0).sum(axis=1)  # minus their checkers
        mine = boards.sum(axis=1) - theirs
        leads &= (theirs == -15) & (mine > 0)
        trails &= (mine == 15) & (theirs < 0)
    return leads, trails


def race_gammons(
    boards: IntArray,
    p: FloatArray,
    db: BearoffDatabase,
    trailer: TrailerNet,
    rows: IntArray | None = None,
) -> None:
    """Set the gammon and backgammon chances in ``p`` (``(N, 5)``, in place) of the race
    boards where one side leads as :func:`trailers` says; leaves the rest alone.  With
    ``rows``, only those rows of ``boards`` and ``p`` are race boards to look at."""
    races = boards if rows is None else boards[rows]
    leads, trails = trailers(races)
    for mask, on_roll_leads in ((leads, True), (trails, False)):
        at = np.flatnonzero(mask)
        if not len(at):
            continue
        b = races[at]
        if rows is not None:
            at = rows[at]
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
        gammon = np.einsum("ij,ij->i", leader[:, 1:], s[:, 1 - shift : MAX_ROLLS - shift])
        backgammon = np.einsum("ij,ij->i", leader[:, 1:], e[:, 1 - shift : MAX_ROLLS - shift])
        win = p[at, 0]
        if on_roll_leads:
            gammon = np.minimum(gammon, win)
            p[at, 1] = gammon
        else:
            gammon = np.minimum(gammon, 1.0 - win)
            p[at, 3] = gammon
        p[at, 2 if on_roll_leads else 4] = np.minimum(backgammon, gammon)
