"""Vectorised network inputs: Tesauro's per-point encoding plus handcrafted features.

Every function takes a batch of boards as an ``(N, 26)`` integer array in the core's layout
(:attr:`backgammon.board.Position.board`, seen from the side on roll) and works on the whole
batch in a handful of numpy operations, so that all candidate plays of a roll are encoded at
once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

__all__ = [
    "N_INPUTS",
    "boards_array",
    "encode",
    "encode_with_race",
    "is_race",
    "shot_masks",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_SIDE_FEATURES = 9
N_INPUTS = 2 * 96 + 2 * (_SIDE_FEATURES + 2) + 1
"""Length of one input vector."""


def _roll_masks() -> npt.NDArray[np.uint64]:
    """For each distance 0..25, the set (36-bit mask) of rolls that could cover it.

    Blocking points are ignored: this is a cheap indicator of shots, not an exact count.
    """
    masks = np.zeros(26, dtype=np.uint64)
    for a in range(1, 7):
        for b in range(1, 7):
            bit = np.uint64(1) << np.uint64((a - 1) * 6 + (b - 1))
            reach = {a, b, a + b} if a != b else {a, 2 * a, 3 * a, 4 * a}
            for d in reach:
                if d <= 25:
                    masks[d] |= bit
    return masks


_ROLL_MASKS = _roll_masks()
_BITS25 = np.int64(1) << np.arange(25, dtype=np.int64)
_DIST = np.arange(1, 25, dtype=np.int64)


def boards_array(boards: Iterable[Sequence[int]]) -> IntArray:
    """Stack 26-number boards into an ``(N, 26)`` integer array."""
    return np.array(list(boards), dtype=np.int64).reshape(-1, 26)


def flip_boards(b: IntArray) -> IntArray:
    """The same positions seen from the other side."""
    return -b[:, ::-1]


def is_race(b: IntArray) -> npt.NDArray[np.bool_]:
    """True where no contact is left (every mover checker is past every opponent one)."""
    idx = np.arange(26)
    mine_max = np.where(b > 0, idx, 0).max(axis=1)
    theirs_min = np.where(b < 0, idx, 25).min(axis=1)
    return np.asarray(mine_max < theirs_min)


def shot_masks(b: IntArray) -> npt.NDArray[np.uint64]:
    """For each board, the 36-bit set of rolls with which the mover could hit a blot."""
    src = (b[:, 1:26] > 0).astype(np.int64) @ _BITS25  # bit i: a mover checker on point i+1
    blots = (b[:, 1:25] == -1).astype(np.int64) @ _BITS25[:24]
    hits = ((src[:, None] >> _DIST[None, :]) & blots[:, None]) != 0  # (N, 24): distance d+1
    masked = np.where(hits, _ROLL_MASKS[1:25][None, :], np.uint64(0))
    return np.asarray(np.bitwise_or.reduce(masked, axis=1))


def _longest_run(made: npt.NDArray[np.bool_]) -> IntArray:
    """Length of the longest run of True along axis 1 (at most 25 columns)."""
    x = made.astype(np.int64) @ _BITS25[: made.shape[1]]
    best = np.zeros(len(x), dtype=np.int64)
    while True:
        nz = x != 0
        if not nz.any():
            return best
        best += nz
        x &= x >> 1


_UNITS = np.array(
    [[n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2.0] for n in range(16)], dtype=np.float64
)
"""Tesauro's four units for a point holding n checkers: >=1, >=2, >=3 and (n-3)/2."""


def _linear_weights() -> IntArray:
    """Columns summing indicator blocks [mine (25), made (24), blots (24)] into counts."""
    w = np.zeros((73, 8), dtype=np.int64)
    w[:25, 0] = np.arange(1, 26)  # pips (the bar counts 25)
    w[49:73, 1] = 1  # blots
    w[25:31, 2] = 1  # home-board points made
    w[18:25, 3] = 1  # back checkers: opponent's home board and the bar
    w[43:49, 4] = 1  # anchors in the opponent's home board
    w[6:18, 5] = 1  # outfield checkers
    w[24, 6] = 1  # bar
    w[:25, 7] = 1  # checkers left
    return w


_LINEAR = _linear_weights()


def _side_features(b: IntArray, mine: IntArray) -> FloatArray:
    """Features of the side on roll of each board; ``mine`` is ``max(b[:, 1:26], 0)``."""
    n = len(b)
    made = mine[:, :24] >= 2
    blocks = np.concatenate([mine, made, mine[:, :24] == 1], axis=1, dtype=np.int64)
    lin = blocks @ _LINEAR
    prime = _longest_run(made)
    shots = np.bitwise_count(shot_masks(b))
    # Opponent points in the six points in front of our rearmost checker.
    rear = np.where(mine > 0, _PTS, 0).max(axis=1)  # 0 when all borne off
    csum = np.zeros((n, 26), dtype=np.int64)  # csum[:, p]: blocked points below p
    np.cumsum(b[:, 1:25] <= -2, axis=1, out=csum[:, 2:])
    rows = np.arange(n)
    blockers = csum[rows, rear] - csum[rows, np.maximum(rear - 6, 0)]
    out = np.empty((n, _SIDE_FEATURES + 2), dtype=np.float64)
    out[:, 0] = lin[:, 0]
    out[:, 1] = lin[:, 1]
    out[:, 2] = lin[:, 2]
    out[:, 3] = prime
    out[:, 4] = lin[:, 3]
    out[:, 5] = lin[:, 4]
    out[:, 6] = shots
    out[:, 7] = blockers
    out[:, 8] = lin[:, 5]
    out[:, 9] = lin[:, 6]
    out[:, 10] = 15 - lin[:, 7]
    out *= _SCALE
    return out


_PTS = np.arange(1, 26, dtype=np.int64)
_SCALE = np.array(
    [1 / 100, 1 / 5, 1 / 6, 1 / 6, 1 / 5, 1 / 3, 1 / 36, 1 / 6, 1 / 15, 1 / 2, 1 / 15]
)


def encode(b: IntArray) -> FloatArray:
    """The ``(N, N_INPUTS)`` network inputs of a batch of boards (side on roll first)."""
    return encode_with_race(b)[0]


def encode_with_race(b: IntArray) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """:func:`encode` and :func:`is_race` together (the race flag is one of the inputs)."""
    b = np.asarray(b, dtype=np.int64)
    n = len(b)
    both = np.concatenate([b, -b[:, ::-1]])  # the side on roll, then the other side
    mine = np.maximum(both[:, 1:26], 0)
    units = _UNITS[mine[:, :24]].reshape(2 * n, 96)
    side = _side_features(both, mine)
    race = is_race(b)
    out = np.empty((n, N_INPUTS), dtype=np.float64)
    out[:, :96] = units[:n]
    out[:, 96:192] = units[n:]
    k = _SIDE_FEATURES + 2
    out[:, 192 : 192 + k] = side[:n]
    out[:, 192 + k : 192 + 2 * k] = side[n:]
    out[:, -1] = race
    return out, race
