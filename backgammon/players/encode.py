"""Vectorised network inputs: Tesauro's per-point encoding plus handcrafted features.

Every function takes a batch of boards as an ``(N, 26)`` integer array in the core's layout
(:attr:`backgammon.core.position.Position.board`, seen from the side on roll) and works on the whole
batch in a handful of numpy operations, so that all candidate plays of a roll are encoded at
once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "CLASSES",
    "INPUT_VERSIONS",
    "N_INPUTS",
    "after_boards",
    "after_boards_many",
    "boards_array",
    "class_masks",
    "encode",
    "encode_with_race",
    "is_crashed",
    "is_race",
    "n_inputs",
    "shot_masks",
]

IntArray = npt.NDArray[np.int64]
Ints = npt.NDArray[np.signedinteger[Any]]  # int32 or int64
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


def boards_array(boards: Iterable[Sequence[int]]) -> IntArray:
    """Stack 26-number boards into an ``(N, 26)`` integer array."""
    return np.array(list(boards), dtype=np.int64).reshape(-1, 26)


def _step_changes() -> IntArray:
    """For each step ``(s, t, hit)``, at row ``(s * 32 + t) * 2 + hit``: its change to the
    board after the play as the opponent sees it (points reversed, signs swapped); the last
    row, :data:`_NO_STEP`, changes nothing."""
    table = np.zeros((26 * 32 * 2 + 1, 26), dtype=np.int64)
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
_NO_STEP = len(_STEP_CHANGES) - 1
_STEP_CHANGES_8 = _STEP_CHANGES.astype(np.int8)  # a play's four steps sum to at most 8
_STEP_CODES: dict[Sequence[int], int] = {
    (s, t, hit): (s * 32 + t) * 2 + hit for s in range(26) for t in range(26) for hit in (0, 1)
}
"""Each step ``(from, to, hit)``'s row of :data:`_STEP_CHANGES`."""
_MAX_STEPS = 4


def after_boards(board: Sequence[int], moves: Sequence[Sequence[Sequence[int]]]) -> IntArray:
    """The boards after each of ``moves`` (plays of ``board`` with their hit flags, as
    :meth:`~backgammon.core.position.Position.legal_moves` gives them), each seen from the
    opponent, who moves next: what :meth:`~backgammon.core.position.Position.play` gives, for all
    the candidates of a roll in a few array operations."""
    n = len(moves)
    if not n:
        return np.empty((0, 26), dtype=np.int64)
    size = len(moves[0])
    if not size or len(set(map(len, moves))) != 1:  # (the set: sooner than any() over a genexpr)
        return after_boards_many([board], [moves])[0]
    # The common case, and the fast one: the legal plays of a roll are equally long (R9).
    codes = [(s * 32 + t) * 2 + hit for m in moves for s, t, hit in m]
    change = _STEP_CHANGES.take(codes, axis=0)
    if size == 2:  # most rolls: one addition, sooner than a sum over an axis of two
        change = change[0::2] + change[1::2]
    elif size != 1:
        change = change.reshape(n, size, 26).sum(axis=1)
    change -= np.asarray(board[::-1], dtype=np.int64)
    return change


def after_boards_many(
    boards: Sequence[Sequence[int]], move_lists: Sequence[Sequence[Sequence[Sequence[int]]]]
) -> tuple[IntArray, IntArray]:
    """:func:`after_boards` of many boards at once, concatenated, and how many rows each
    board has: a board with no plays (the turn is lost) has one, itself seen from the
    opponent, as an empty play gives.  One set of array operations for all the rolls of a
    lookahead or all the games of a self-play step."""
    if not move_lists:
        return np.empty((0, 26), dtype=np.int64), np.empty(0, dtype=np.int64)
    codes: list[int] = []
    lengths: list[int] = []
    counts: list[int] = []
    code = _STEP_CODES.__getitem__
    for moves in move_lists:  # the loops run in C: a third faster than comprehensions
        if moves:
            try:
                codes += list(map(code, chain.from_iterable(moves)))
            except TypeError:  # steps as lists (not hashable)
                codes += [(s * 32 + t) * 2 + hit for m in moves for s, t, hit in m]
            lengths += map(len, moves)
            counts.append(len(moves))
        else:  # the turn is lost: one empty play
            lengths.append(0)
            counts.append(1)
    # Each play's steps in a row of four (padded with the step that changes nothing, as an
    # empty play is): one take and one sum, several times faster than a reduceat.
    steps = np.asarray(lengths, dtype=np.int64)
    n = len(steps)
    starts = np.zeros(n, dtype=np.int64)
    np.cumsum(steps[:-1], out=starts[1:])
    slot = np.arange(len(codes)) - np.repeat(starts, steps)
    padded = np.full((n, _MAX_STEPS), _NO_STEP, dtype=np.int64)
    padded[np.repeat(np.arange(n), steps), slot] = codes
    rows = _STEP_CHANGES_8.take(padded.ravel(), axis=0).reshape(n, _MAX_STEPS, 26)
    summed = rows[:, 0] + rows[:, 1]  # in int8, then widened: faster than a wide sum
    summed += rows[:, 2]
    summed += rows[:, 3]
    change = summed.astype(np.int64)
    per_board = np.asarray(counts, dtype=np.int64)
    change -= np.repeat(np.asarray(boards, dtype=np.int64)[:, ::-1], per_board, axis=0)
    return change, per_board


def flip_boards(b: IntArray) -> IntArray:
    """The same positions seen from the other side."""
    return -b[:, ::-1]


def is_race(b: IntArray) -> npt.NDArray[np.bool_]:
    """True where no contact is left (every mover checker is past every opponent one)."""
    idx = np.arange(26)
    mine_max = np.where(b > 0, idx, 0).max(axis=1)
    theirs_min = np.where(b < 0, idx, 25).min(axis=1)
    return np.asarray(mine_max < theirs_min)


CLASSES = ("contact", "race", "crashed")
"""The classes of positions (:func:`class_masks`), which the nets are named after."""


def class_masks(
    b: IntArray, race: npt.NDArray[np.bool_] | None = None
) -> dict[str, npt.NDArray[np.bool_]]:
    """Which boards are races, crashed contact (:func:`is_crashed`) and other contact: the
    classes the nets are named after, whether or not a weights file has a crashed net.
    ``race``, when the caller has it already (:func:`is_race` of ``b``), is not worked out
    again."""
    if race is None:
        race = is_race(b)
    crashed = is_crashed(b) & ~race
    return {"contact": ~race & ~crashed, "race": race, "crashed": crashed}


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


def _shot_mask(src: Ints, blots: Ints) -> npt.NDArray[np.uint64]:
    """The 36-bit set of rolls with which a checker of the bit set ``src`` hits a blot of the
    bit set ``blots`` (bit i: point i + 1); ``src`` leaves out point 1, which hits nothing
    (bit i: point i + 2, the bar 25)."""
    # (17, ...), the distances some roll covers on a leading axis, so that the reduction
    # runs over whole rows, not short ones.
    masked = np.where((src >> _SHIFTS) & blots, _DISTANCE_MASKS, _ZERO_MASK)
    return np.asarray(np.bitwise_or.reduce(masked, axis=0))


# The distances d some roll covers (1-12, 15, 16, 18, 20, 24): src >> (d - 1), and their rolls.
_COVERED = np.flatnonzero(_ROLL_MASKS[1:25])
_SHIFTS = _COVERED.astype(np.int32).reshape(-1, 1, 1)
_DISTANCE_MASKS = _ROLL_MASKS[1:25][_COVERED].reshape(-1, 1, 1)
_ZERO_MASK = np.uint64(0)


def shot_masks(b: IntArray) -> npt.NDArray[np.uint64]:
    """For each board, the 36-bit set of rolls with which the mover could hit a blot."""
    b = np.asarray(b, dtype=np.int64)
    held = np.concatenate([b[:, 2:26] > 0, np.zeros((len(b), 8), dtype=np.bool_)], axis=1)
    blots = np.concatenate([b[:, 1:25] == -1, np.zeros((len(b), 8), dtype=np.bool_)], axis=1)
    bits = np.packbits(np.stack([held, blots], axis=1), axis=2, bitorder="little")
    sets = bits.view("<u4")[..., 0].astype(np.int64)
    return _shot_mask(sets[:, :1], sets[:, 1:])[:, 0]


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
# One lookup of the two halves of a 24-bit set (the upper one offset by 4096): for the lower
# its longest run and the ones at its top, for the upper its longest run and those at its
# bottom.
_RUN_HALVES = np.concatenate(
    [np.stack([_LONGEST, _TOP_RUN], axis=1), np.stack([_LONGEST, _BOTTOM_RUN], axis=1)]
)


def _longest_run(halves: Ints) -> IntArray:
    """Length of the longest run of ones (the longest prime) of each 24-bit set, given as
    its lower 12 bits and its upper 12 bits plus 4096 (on the last axis)."""
    runs = _RUN_HALVES.take(halves, axis=0)  # (..., 2 halves, 2)
    lower, upper = runs[..., 0, :], runs[..., 1, :]
    return np.asarray(
        np.maximum(np.maximum(lower[..., 0], upper[..., 0]), lower[..., 1] + upper[..., 1])
    )


_UNITS = np.array(
    [[n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2.0] for n in range(16)], dtype=np.float64
)
"""Tesauro's four units for a point holding n checkers: >=1, >=2, >=3 and (n-3)/2."""

_SCALE = np.array(
    [1 / 100, 1 / 5, 1 / 6, 1 / 6, 1 / 5, 1 / 3, 1 / 36, 1 / 6, 1 / 15, 1 / 2, 1 / 15]
)
"""Each side feature's scale (the order is that of :func:`_side_features`)."""


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

# The points a batch's boards are read at, each giving four units: the side on roll's
# points 1-24 (board columns 1-24) and bar (25), then the opponent's points 1-24 in its own
# numbering (board columns 24-1, counts negated) and bar (0).
_COLUMNS = np.array([*range(1, 26), *range(24, -1, -1)], dtype=np.int64)
_ROWS = np.arange(50, dtype=np.int64) * 31 + 15  # each point's 31 rows, by count -15..15


def _point_table() -> FloatArray:
    """For each read point (:data:`_COLUMNS`) and board count -15..15, at row ``31 * point
    + count + 15``: on points Tesauro's four units of the side's own checkers (none for the
    other side's), on a bar its count, a constant 1, whether any is there, and 0."""
    table = np.zeros((50 * 31, 4))
    for k in range(50):
        for count in range(-15, 16):
            n = max(count, 0) if k < 25 else max(-count, 0)
            table[31 * k + count + 15] = _UNITS[n] if k % 25 < 24 else (n, 1, n > 0, 0)
    return table


def _feature_weights() -> FloatArray:
    """The product that turns a side's 100 units (:func:`_point_table`) into its linear
    side features (in :func:`_side_features`'s order, with zero columns for the three that
    are not linear) and six sets of points (bit p-1: point p) read as integers: its points
    held with the bar as bit 24 (of which only the highest bit is used: float32 keeps it),
    its points 2-24 and bar held from bit 0 (the shots' sources: a checker on point 1 hits
    nothing), its made points 1-12, its made points 13-24 from bit 0 plus 4096 (the halves
    of :func:`_longest_run`), and, seen from the other side (bit 24-p), its blots and made
    points.  Every other product and partial sum is an integer below 2**24, so exact in
    float32, whatever the order of the sums."""
    w = np.zeros((100, 17))
    for p in range(1, 25):
        for k, checkers in enumerate((1, 1, 1, 2)):  # the units sum to the count
            row = w[4 * (p - 1) + k]
            row[0] = p * checkers  # pips
            row[4] = checkers * (p >= 19)  # back checkers
            row[8] = checkers * (7 <= p <= 18)  # outfield checkers
            row[10] = -checkers  # borne off: 15 less those in play
        held, made = w[4 * (p - 1)], w[4 * (p - 1) + 1]
        held[1], made[1] = 1, -1  # blots
        made[2] = p <= 6  # home board points
        made[5] = p >= 19  # anchors
        held[11] = 2.0 ** (p - 1)
        held[12] = 2.0 ** (p - 2) if p >= 2 else 0
        made[13 + (p > 12)] = 2.0 ** ((p - 1) % 12)
        held[15], made[15] = 2.0 ** (24 - p), -(2.0 ** (24 - p))  # blots, seen from across
        made[16] = 2.0 ** (24 - p)
    w[96, [0, 4, 9, 10]] = 25, 1, 1, -1  # the bar's checkers
    w[97, [10, 14]] = 15, 4096
    w[98, [11, 12]] = 2.0**24, 2.0**23
    return w


class _Tables:
    """The tables of :func:`_side_features` in one float type."""

    def __init__(self, dtype: type[np.floating[Any]]) -> None:
        self.points = _point_table().astype(dtype)
        self.weights = _feature_weights().astype(dtype)
        self.scale = np.concatenate([_SCALE, np.ones(6)]).astype(dtype)


_TABLES = {t: _Tables(t) for t in (np.float32, np.float64)}


def _side_features(
    b: IntArray, dtype: type[np.floating[Any]] = np.float64
) -> tuple[FloatArray, FloatArray, Ints, Ints]:
    """Tesauro's units of both sides of each board ``(N, 200)``: each side's 96 of points,
    then its bar's 4; then, for each side of each board (``(N, 2, ...)``, side on roll
    first), its features (Tesauro's units and the features), its rearmost checker's point
    (0 when all are off) and its sets of points as integers (:func:`_feature_weights`).
    Each feature is a small integer, exact in ``dtype``, scaled last, so a board's features
    do not depend on its batch; the linear ones and the sets come from one product."""
    tables = _TABLES.get(dtype) or _TABLES[np.dtype(dtype).type]
    n = len(b)
    index = b.take(_COLUMNS, axis=1)
    index += _ROWS
    units = tables.points.take(index, axis=0).reshape(n, 200)
    product = (units.reshape(2 * n, 100) @ tables.weights).reshape(n, 2, 17)
    sets = product[:, :, 12:].astype(np.int32)  # (N, 2, 5): from the shots' sources on
    rear = np.frexp(product[:, :, 11])[1]  # the highest bit (0: none)
    theirs = sets[:, ::-1]  # the other side's, in this side's numbering
    product[:, :, 3] = _longest_run(sets[:, :, 1:3])
    product[:, :, 6] = np.bitwise_count(_shot_mask(sets[:, :, 0], theirs[:, :, 3]))
    # Opponent points on the six points in front of the rearmost checker (rear-6 .. rear-1).
    product[:, :, 7] = np.bitwise_count(theirs[:, :, 4] & _FRONT[rear])
    product *= tables.scale  # the features (the sets, read already, times 1: contiguous)
    return units, product[:, :, :11], rear, sets


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
    units, side, rear, sets = _side_features(b, dtype)
    race = rear[:, 0] + rear[:, 1] < 25  # the rearmost checkers have passed each other
    parts = [units[:, :96], units[:, 100:196], side[:, 0], side[:, 1], race[:, None]]
    if version == 2:
        n = len(b)
        both = np.stack([b, -b[:, ::-1]], axis=1).reshape(2 * n, 26)  # each side, in turn
        mine = np.maximum(both[:, 1:26], 0)
        front = 25 - rear[:, ::-1].reshape(2 * n)
        made_bits = (sets[:, :, 1] | (sets[:, :, 2] - 4096) << 12).reshape(2 * n).astype(np.int64)
        blocked = sets[:, ::-1, 4].reshape(2 * n).astype(np.int64)
        extra = _extra_features(
            mine, rear.reshape(2 * n).astype(np.int64), front, made_bits, blocked
        )
        parts.append(extra.reshape(n, 2 * _EXTRA_FEATURES))
    elif version != 1:
        n_inputs(version)  # raises
    out = np.concatenate(parts, axis=1, dtype=dtype)
    return out, race
