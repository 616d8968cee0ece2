"""Vectorised network inputs: Tesauro's per-point encoding plus handcrafted features.

Every function takes a batch of boards as an ``(N, 26)`` integer array in the core's layout
(:attr:`backgammon.board.Position.board`, seen from the side on roll) and works on the whole
batch in a handful of numpy operations, so that all candidate plays of a roll are encoded at
once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "INPUT_VERSIONS",
    "N_INPUTS",
    "after_boards",
    "boards_array",
    "encode",
    "encode_with_race",
    "is_crashed",
    "is_race",
    "n_inputs",
    "shot_masks",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_SIDE_FEATURES = 9
N_INPUTS = 2 * 96 + 2 * (_SIDE_FEATURES + 2) + 1
"""Length of one input vector of the first layout (version 1)."""

_EXTRA_FEATURES = 7
INPUT_VERSIONS = (1, 2)
"""Input layouts: 1 is Tesauro's units and the side features; 2 appends, for each side,
features of blockades and timing that one hidden layer finds hard to compute (escapes,
containment, mobility, pips to break contact, entering, spread, back anchor)."""


def n_inputs(version: int = 1) -> int:
    """Length of one input vector of layout ``version``."""
    if version not in INPUT_VERSIONS:
        raise ValueError(f"unknown input layout {version!r}; known: {INPUT_VERSIONS}")
    return N_INPUTS + (2 * _EXTRA_FEATURES if version == 2 else 0)


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


def _step_changes() -> IntArray:
    """For each step ``(s, t, hit)``, at row ``(s * 32 + t) * 2 + hit``: its change to the
    board after the play as the opponent sees it (points reversed, signs swapped)."""
    table = np.zeros((26 * 32 * 2, 26), dtype=np.int64)
    for s in range(26):
        for t in range(26):
            for hit in (0, 1):
                row = table[(s * 32 + t) * 2 + hit]
                row[25 - s] += 1  # the checker leaves s
                if t:  # lands on t (not when borne off), turning a hit blot into ours
                    row[25 - t] -= 1 + hit
                row[25] += hit  # the hit blot goes to the opponent's bar
    return table


_STEP_CHANGES = _step_changes()


def after_boards(board: Sequence[int], moves: Sequence[Sequence[Sequence[int]]]) -> IntArray:
    """The boards after each of ``moves`` (plays of ``board`` with their hit flags, as
    :meth:`~backgammon.board.Position.legal_moves` gives them), each seen from the
    opponent, who moves next: what :meth:`~backgammon.board.Position.play` gives, for all
    the candidates of a roll in a few array operations."""
    n = len(moves)
    codes = [(s * 32 + t) * 2 + hit for m in moves for s, t, hit in m]
    change = _STEP_CHANGES.take(codes, axis=0)
    size = len(codes) // n if n else 0
    if size * n == len(codes) and max(map(len, moves), default=0) == size:
        if size != 1:  # the legal plays of a roll all have the same number of steps (R9)
            change = change.reshape(n, size, 26).sum(axis=1)
    else:
        rows = np.repeat(np.arange(n), [len(m) for m in moves])
        summed = np.zeros((n, 26), dtype=np.int64)
        np.add.at(summed, rows, change)
        change = summed
    change -= np.asarray(board[::-1], dtype=np.int64)
    return change


def flip_boards(b: IntArray) -> IntArray:
    """The same positions seen from the other side."""
    return -b[:, ::-1]


def is_race(b: IntArray) -> npt.NDArray[np.bool_]:
    """True where no contact is left (every mover checker is past every opponent one)."""
    idx = np.arange(26)
    mine_max = np.where(b > 0, idx, 0).max(axis=1)
    theirs_min = np.where(b < 0, idx, 25).min(axis=1)
    return np.asarray(mine_max < theirs_min)


def is_crashed(b: IntArray) -> npt.NDArray[np.bool_]:
    """True where a side has crashed its board, as gnubg's classes have it: six checkers or
    fewer left in play, not counting those piled on its ace point (two or more), or all but
    one of those on its deuce point (when the ace holds one or none), or, with both piled,
    all but one of the two points' checkers.  Contact or not is for the caller to ask
    (:func:`is_race`)."""
    b = np.asarray(b, dtype=np.int64)
    both = np.concatenate([b, -b[:, ::-1]])  # each side's checkers from its own side
    mine = np.maximum(both, 0)
    total = mine[:, 1:26].sum(axis=1)
    ace, deuce = mine[:, 1], mine[:, 2]
    piled = ace > 1
    crashed = (
        (total <= 6)
        | (piled & (total <= 6 + ace))
        | (piled & (deuce > 1) & (total - ace - deuce + 1 <= 6))
        | (~piled & (total <= 5 + deuce))
    )
    n = len(b)
    return np.asarray(crashed[:n] | crashed[n:])


def shot_masks(b: IntArray) -> npt.NDArray[np.uint64]:
    """For each board, the 36-bit set of rolls with which the mover could hit a blot."""
    src = (b[:, 1:26] > 0).astype(np.int64) @ _BITS25  # bit i: a mover checker on point i+1
    blots = (b[:, 1:25] == -1).astype(np.int64) @ _BITS25[:24]
    hits = ((src[:, None] >> _DIST[None, :]) & blots[:, None]) != 0  # (N, 24): distance d+1
    masked = np.where(hits, _ROLL_MASKS[1:25][None, :], np.uint64(0))
    return np.asarray(np.bitwise_or.reduce(masked, axis=1))


def _run_tables() -> tuple[IntArray, IntArray, IntArray]:
    """For every 12-bit set: its longest run of ones, the ones at its top (from bit 11
    down) and at its bottom (from bit 0 up); two lookups give the longest run of 24 bits."""
    longest = np.zeros(4096, dtype=np.int64)
    top = np.zeros(4096, dtype=np.int64)
    bottom = np.zeros(4096, dtype=np.int64)
    for x in range(4096):
        bits = [x >> i & 1 for i in range(12)]
        run = best = 0
        for bit in bits:
            run = run + 1 if bit else 0
            best = max(best, run)
        longest[x] = best
        bottom[x] = next((i for i, bit in enumerate(bits) if not bit), 12)
        top[x] = next((i for i, bit in enumerate(reversed(bits)) if not bit), 12)
    return longest, top, bottom


_LONGEST, _TOP_RUN, _BOTTOM_RUN = _run_tables()


def _longest_run(made: IntArray) -> IntArray:
    """Length of the longest run of ones in each 24-bit set (the longest prime)."""
    lo, hi = made & 0xFFF, made >> 12
    return np.asarray(
        np.maximum(np.maximum(_LONGEST[lo], _LONGEST[hi]), _TOP_RUN[lo] + _BOTTOM_RUN[hi])
    )


_UNITS = np.array(
    [[n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2.0] for n in range(16)], dtype=np.float64
)
"""Tesauro's four units for a point holding n checkers: >=1, >=2, >=3 and (n-3)/2."""

_SCALE = np.array(
    [1 / 100, 1 / 5, 1 / 6, 1 / 6, 1 / 5, 1 / 3, 1 / 36, 1 / 6, 1 / 15, 1 / 2, 1 / 15]
)
"""Each side feature's scale (the order is that of :func:`_side_features`)."""


def _linear_weights() -> tuple[FloatArray, FloatArray]:
    """The side features, before scaling, as one affine map of the indicator blocks
    [mine (25), made (24), blots (24), longest prime, shots, blockers].  Its integer
    weights keep the product exact, so a board's features do not depend on the batch it
    is in (BLAS sums rows of different batch sizes in different orders)."""
    w = np.zeros((76, _SIDE_FEATURES + 2), dtype=np.float64)
    w[:25, 0] = np.arange(1, 26)  # pips (the bar counts 25)
    w[49:73, 1] = 1  # blots
    w[25:31, 2] = 1  # home-board points made
    w[73, 3] = 1  # longest prime
    w[18:25, 4] = 1  # back checkers: opponent's home board and the bar
    w[43:49, 5] = 1  # anchors in the opponent's home board
    w[74, 6] = 1  # rolls that hit a blot
    w[75, 7] = 1  # opponent points in front of the rearmost checker
    w[6:18, 8] = 1  # outfield checkers
    w[24, 9] = 1  # bar
    w[:25, 10] = -1  # borne off: 15 less the checkers left
    const = np.zeros(_SIDE_FEATURES + 2)
    const[10] = 15
    return w, const


_LINEAR, _CONST = _linear_weights()
_AFFINE = {
    np.dtype(t): (_LINEAR.astype(t), _CONST.astype(t), _SCALE.astype(t))
    for t in (np.float32, np.float64)
}
_UNITS_BY_TYPE = {np.dtype(t): _UNITS.astype(t) for t in (np.float32, np.float64)}

# Bit sets of a batch in one product: [mine > 0 (25), made (24), their blots (24),
# their made points (24)] times this block-diagonal matrix.
_SETS = np.zeros((97, 4), dtype=np.float64)
_SETS[:25, 0] = _BITS25
_SETS[25:49, 1] = _BITS25[:24]
_SETS[49:73, 2] = _BITS25[:24]
_SETS[73:97, 3] = _BITS25[:24]
_MASK24 = (1 << 24) - 1


def _front_windows() -> IntArray:
    """For a rearmost checker on each point 0-25, the bits (of a set of points 1-24, bit i
    for point i + 1) of the six points in front of it, rear-6 .. rear-1."""
    windows = np.zeros(26, dtype=np.int64)
    for rear in range(26):
        low = max(rear - 7, 0)
        windows[rear] = (_MASK24 >> (25 - max(rear, 1))) & ~((1 << low) - 1)
    return windows


_FRONT = _front_windows()


def _side_features(
    b: IntArray, mine: IntArray, dtype: type[np.floating[Any]] = np.float64
) -> tuple[FloatArray, IntArray, IntArray, IntArray]:
    """Features of the side on roll of each board (``mine`` is ``max(b[:, 1:26], 0)``),
    its rearmost checker's point (0 when all are off), and the bit sets (bit p-1: point p)
    of its made points and of the opponent's; the features in ``dtype``."""
    made = mine[:, :24] >= 2
    theirs = b[:, 1:25]
    sets = (
        np.concatenate([mine > 0, made, theirs == -1, theirs <= -2], axis=1, dtype=np.float64)
        @ _SETS
    )  # exact: at most 25 bits
    rear = np.frexp(sets[:, 0])[1].astype(np.int64)  # the highest set bit's point (0: none)
    src, made_bits, blots, blocked = sets.astype(np.int64).T
    hits = ((src[:, None] >> _DIST[None, :]) & blots[:, None]) != 0  # (N, 24): distance d+1
    shots = np.bitwise_count(
        np.bitwise_or.reduce(np.where(hits, _ROLL_MASKS[1:25][None, :], np.uint64(0)), axis=1)
    )
    # Opponent points on the six points in front of the rearmost checker (rear-6 .. rear-1).
    blockers = np.bitwise_count(blocked & _FRONT[rear])
    extra = [_longest_run(made_bits)[:, None], shots[:, None], blockers[:, None]]
    blocks = np.concatenate([mine, made, mine[:, :24] == 1, *extra], axis=1, dtype=dtype)
    linear, const, scale = _AFFINE[np.dtype(dtype)]
    features = blocks @ linear  # exact: small integers
    features += const
    features *= scale
    return features, rear, made_bits, blocked


def _escape_table() -> IntArray:
    """For each 12-bit set of the opponent's points on the 12 points ahead of a checker (bit i:
    distance 12 - i), the rolls (of 36) with which it can move the whole roll (a double:
    two steps) to an open point through an open point: how freely a checker there gets out."""
    table = np.zeros(4096, dtype=np.int64)
    for m in range(4096):

        def open_(d: int, m: int = m) -> bool:
            return d > 12 or not m >> (12 - d) & 1

        table[m] = sum(
            open_(a + b) and (open_(a) or open_(b)) for a in range(1, 7) for b in range(1, 7)
        )
    return table


_ESCAPES = _escape_table()
_POINTS = np.arange(1, 26, dtype=np.int64)  # 25: the bar
_MOBILITY = (_POINTS[6:] - 6).astype(np.float64)
# Sums over the checkers on points >= t (t = 0..25) of 1, p and p*p, all in one product.
_EXTRA_SCALE = np.array([1 / 36, 1 / 36, 1 / 3600, 1 / 152, 1 / 36, 1 / 100, 1 / 24])
_SUFFIX = np.concatenate(
    [(_POINTS[:, None] >= np.arange(26)[None, :]) * _POINTS[:, None] ** k for k in range(3)],
    axis=1,
).astype(np.float64)


def _extra_features(
    mine: IntArray, rear: IntArray, front: IntArray, made_bits: IntArray, blocked: IntArray
) -> FloatArray:
    """Layout 2's features of the side on roll (escapes of the rearmost checker, the tightest
    of the opponent's blockade from our 13-point back, mobility out of the home board, pips
    to break contact, entering, spread ahead of the mean, rearmost anchor), scaled to about
    [0, 1].  ``front`` is the opponent's frontmost checker's point seen from us (0: the bar,
    25: none); the bit sets are :func:`_side_features`'s."""
    n = len(mine)
    rows = np.arange(n)
    # esc[:, p-1]: rolls with which a checker on point p (25: the bar) gets out.
    esc = _ESCAPES[((blocked << 12)[:, None] >> (_POINTS - 1)[None, :]) & 0xFFF]
    out = np.empty((n, _EXTRA_FEATURES))
    out[:, 0] = np.where(rear > 0, esc[rows, rear - 1], 36)
    out[:, 1] = esc[:, 12:].min(axis=1)
    out[:, 2] = (mine[:, 6:] * esc[:, 6:]) @ _MOBILITY
    sums = (mine.astype(np.float64) @ _SUFFIX).ravel()  # exact: small integers
    base = rows * 78
    count = np.maximum(sums[base], 1)
    mean = sums[base + 26] / count
    t = np.minimum(mean.astype(np.int64) + 1, 25)
    f0, f1, a0, a1, a2 = sums[
        np.stack([base + front, base + 26 + front, base + t, base + 26 + t, base + 52 + t])
    ]
    # Every checker of ours on or behind ``front`` must pass it: p - front + 1 pips each.
    out[:, 3] = f1 - (front - 1) * f0
    out[:, 4] = np.bitwise_count(blocked >> 18) ** 2
    out[:, 5] = (a2 - 2 * mean * a1 + mean * mean * a0) / count
    out[:, 6] = np.frexp(made_bits)[1]
    out *= _EXTRA_SCALE
    return out


def encode(b: IntArray, version: int = 1) -> FloatArray:
    """The ``(N, n_inputs(version))`` network inputs of a batch of boards (side on roll
    first)."""
    return encode_with_race(b, version)[0]


def encode_with_race(
    b: IntArray, version: int = 1, dtype: type[np.floating[Any]] = np.float64
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """:func:`encode` and :func:`is_race` together (the race flag is one of the inputs);
    play asks for float32 inputs, training for float64."""
    b = np.asarray(b, dtype=np.int64)
    n = len(b)
    both = np.concatenate([b, -b[:, ::-1]])  # the side on roll, then the other side
    mine = np.maximum(both[:, 1:26], 0)
    units = _UNITS_BY_TYPE[np.dtype(dtype)].take(mine[:, :24], axis=0).reshape(2 * n, 96)
    side, rear, made_bits, blocked = _side_features(both, mine, dtype)
    race = rear[:n] + rear[n:] < 25  # the rearmost checkers have passed each other
    parts = [units[:n], units[n:], side[:n], side[n:], race[:, None]]
    if version == 2:
        front = 25 - np.concatenate([rear[n:], rear[:n]])
        extra = _extra_features(mine, rear, front, made_bits, blocked)
        parts += [extra[:n], extra[n:]]
    elif version != 1:
        n_inputs(version)  # raises
    out = np.concatenate(parts, axis=1, dtype=dtype)
    return out, race
