"""Network inputs: Tesauro's per-point encoding plus handcrafted features, for batches.

Every function takes a batch of boards as an ``(N, 26)`` integer array in the core's layout
(:attr:`backgammon.core.position.Position.board`, seen from the side on roll) and works on the
whole batch at once, so that all candidate plays of a roll are encoded together: the inputs
in one compiled loop (numba), the boards after plays in a handful of numpy operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

__all__ = [
    "BACK_GAME_PIPS",
    "CLASSES",
    "INPUT_VERSIONS",
    "NET_CLASSES",
    "N_INPUTS",
    "after_boards",
    "after_boards_many",
    "boards_array",
    "class_masks",
    "crashed_and_back",
    "encode",
    "encode_with_race",
    "is_back_game",
    "is_crashed",
    "is_race",
    "n_inputs",
    "net_routes",
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


BACK_GAME_PIPS = 40
"""How far a side holding two points of its opponent's home board trails the race for its
game to count as a back game (:func:`is_back_game`)."""


def is_back_game(b: IntArray) -> npt.NDArray[np.bool_]:
    """True where a side holds two or more points of its opponent's home board (two
    checkers or more each) and trails the race by ``BACK_GAME_PIPS`` or more, contact left:
    the positions a net fitted to the rest judges worst."""
    b = np.ascontiguousarray(b, dtype=np.int64)
    return np.asarray(crashed_and_back(b)[:, 1] & ~is_race(b))


def is_crashed(b: IntArray) -> npt.NDArray[np.bool_]:
    """True where a side has crashed its board, as gnubg's classes have it: six checkers or
    fewer left in play, not counting those piled on its ace point (two or more), or all but
    one of those on its deuce point (when the ace holds one or none), or, with both piled,
    all but one of the two points' checkers.  Contact or not is for the caller to ask
    (:func:`is_race`)."""
    return np.asarray(crashed_and_back(np.ascontiguousarray(b, dtype=np.int64))[:, 0])


def crashed_and_back(b: IntArray) -> npt.NDArray[np.bool_]:
    """For each board, whether a side has crashed its board (:func:`is_crashed`) and
    whether it is a back game leaving contact aside (:func:`is_back_game`), in one pass of
    compiled code."""
    out = np.empty((len(b), 2), dtype=np.bool_)
    _crashed_and_back(b, out, BACK_GAME_PIPS)
    return out


NET_CLASSES = (*CLASSES, "back")
"""The nets a weights file can hold, by the positions each judges (:func:`net_routes`):
back games are contact positions to gnubg's classes."""


def net_routes(
    b: IntArray, race: npt.NDArray[np.bool_], crashed: bool, back: bool
) -> npt.NDArray[np.int8]:
    """Which net judges each board, as an index into :data:`NET_CLASSES`: races the race
    net; with a ``crashed`` net, crashed contact positions that one (back games or not);
    with a ``back`` net, the other back games that one; the rest the contact net.  Play
    asks this of every batch, so it is one pass of compiled code that skips races."""
    out = np.empty(len(b), dtype=np.int8)
    b = np.ascontiguousarray(b, dtype=np.int64)
    _net_routes(b, race, crashed, back, BACK_GAME_PIPS, _ROUTE_CODES, out)
    return out


_ROUTE_CODES = np.array([NET_CLASSES.index(n) for n in ("contact", "race", "crashed", "back")])
"""The kernel's codes for contact, race, crashed and back game, from :data:`NET_CLASSES`."""


@njit(cache=True, nogil=True)
def _side_crashed(total: int, ace: int, deuce: int) -> bool:
    """:func:`is_crashed` of one side: its checkers left, on its ace and on its deuce."""
    if ace > 1:
        return total <= 6 + ace or (deuce > 1 and total - ace - deuce + 1 <= 6)
    return total <= 6 or total <= 5 + deuce


@njit(cache=True, nogil=True)
def _row_crashed_and_back(b: Any, k: int, behind: int) -> tuple[bool, bool]:
    """:func:`crashed_and_back` of row ``k``: each side's checkers, pips and points held in
    its opponent's home board, counted from its own side (point 25: its bar)."""
    total0 = total1 = pips0 = pips1 = held0 = held1 = 0
    for i in range(1, 26):
        c = b[k, i]
        if c > 0:
            total0 += c
            pips0 += c * i
            if i >= 19 and i <= 24 and c >= 2:
                held0 += 1
        c = -b[k, 25 - i]
        if c > 0:
            total1 += c
            pips1 += c * i
            if i >= 19 and i <= 24 and c >= 2:
                held1 += 1
    crashed = _side_crashed(total0, max(b[k, 1], 0), max(b[k, 2], 0)) or _side_crashed(
        total1, max(-b[k, 24], 0), max(-b[k, 23], 0)
    )
    back = (held0 >= 2 and pips0 - pips1 >= behind) or (held1 >= 2 and pips1 - pips0 >= behind)
    return crashed, back


@njit(cache=True, nogil=True)
def _crashed_and_back(b: Any, out: Any, behind: int) -> None:
    """The kernel of :func:`crashed_and_back`."""
    for k in range(b.shape[0]):
        out[k, 0], out[k, 1] = _row_crashed_and_back(b, k, behind)


@njit(cache=True, nogil=True)
def _net_routes(
    b: Any, race: Any, crashed: bool, back: bool, behind: int, codes: Any, out: Any
) -> None:
    """The kernel of :func:`net_routes`; ``codes``: :data:`_ROUTE_CODES`."""
    for k in range(b.shape[0]):
        if race[k]:
            out[k] = codes[1]
            continue
        out[k] = codes[0]
        if crashed or back:
            is_crashed, is_back = _row_crashed_and_back(b, k, behind)
            if is_crashed and crashed:
                out[k] = codes[2]
            elif is_back and back:
                out[k] = codes[3]


_SCALE = np.array(
    [1 / 100, 1 / 5, 1 / 6, 1 / 6, 1 / 5, 1 / 3, 1 / 36, 1 / 6, 1 / 15, 1 / 2, 1 / 15]
)
"""Each side feature's scale: pips, blots, home board points, longest prime, back
checkers, anchors, shots, opponent points in front of the rearmost checker, outfield
checkers, checkers on the bar, checkers off (:func:`_encode_side`'s order)."""
_SCALES = {t: _SCALE.astype(t) for t in (np.float32, np.float64)}


@njit(cache=True, nogil=True)
def _shots(sources: int, blots: int, masks: Any) -> int:
    """The 36-bit set of rolls with which a checker on the points of ``sources`` (bit p:
    point p, 25 the bar) hits a blot on those of ``blots`` (same numbering), blocking
    ignored (:data:`_ROLL_MASKS`)."""
    found = 0
    for d in range(1, 25):
        if sources >> d & blots:  # a checker d points behind a blot
            found |= masks[d]
    return found


@njit(cache=True, nogil=True)
def _encode_side(b: Any, k: int, side: int, out: Any, scale: Any, rear: Any, sets: Any) -> None:
    """Tesauro's units of one side of board ``k`` (its own numbering: side 0 on roll) into
    its 96 columns of ``out``, its rearmost checker's point (25: the bar, 0: none) into
    ``rear`` and its sets of points into ``sets``: the shots' sources (points 2-24 and the
    bar, bit p - 2), its points made (1-12 from bit 0, then 13-24 from bit 0 plus 4096), and,
    seen from the other side (bit 24 - p), its blots and points made."""
    units = 96 * side
    pips = blots = home = back = anchors = outfield = left = 0
    held = made = across_blots = across_made = 0
    last = 0
    for p in range(1, 25):
        c = b[k, p] if side == 0 else -b[k, 25 - p]
        c = max(c, 0)
        col = units + 4 * (p - 1)
        out[k, col] = 1.0 if c >= 1 else 0.0
        out[k, col + 1] = 1.0 if c >= 2 else 0.0
        out[k, col + 2] = 1.0 if c >= 3 else 0.0
        out[k, col + 3] = max(c - 3, 0) / 2.0
        pips += p * c
        left += c
        if p >= 19:
            back += c
        if 7 <= p <= 18:
            outfield += c
        if c >= 1:
            held |= 1 << p
            last = p
        if c == 1:
            blots += 1
            across_blots |= 1 << (24 - p)
        if c >= 2:
            made |= 1 << p
            across_made |= 1 << (24 - p)
            if p <= 6:
                home += 1
            if p >= 19:
                anchors += 1
    bar = max(b[k, 25] if side == 0 else -b[k, 0], 0)
    if bar:
        held |= 1 << 25
        last = 25
    rear[k, side] = last
    sets[k, side, 0] = held >> 2
    sets[k, side, 1] = made >> 1 & 0xFFF
    sets[k, side, 2] = (made >> 13) + 4096
    sets[k, side, 3] = across_blots
    sets[k, side, 4] = across_made
    longest = run = 0
    for p in range(1, 25):
        run = run + 1 if made >> p & 1 else 0
        longest = max(longest, run)
    f = 192 + 11 * side
    for j, v in enumerate(
        (
            pips + 25 * bar,
            blots,
            home,
            longest,
            back + bar,
            anchors,
            0,
            0,
            outfield,
            bar,
            15 - left - bar,
        )
    ):
        out[k, f + j] = v * scale[j]


@njit(cache=True, nogil=True)
def _encode_v1(b: Any, out: Any, scale: Any, rear: Any, sets: Any, masks: Any) -> None:
    """The kernel of :func:`encode_with_race`: layout 1 of each board, the race flag last."""
    for k in range(b.shape[0]):
        for side in range(2):
            _encode_side(b, k, side, out, scale, rear, sets)
        for side in range(2):
            f = 192 + 11 * side
            # The other side's blots and points, bit t - 1 at this side's point t.
            blots, made = sets[k, 1 - side, 3], sets[k, 1 - side, 4]
            shots = _shots(sets[k, side, 0] << 2, blots << 1, masks)
            count = 0
            while shots:
                shots &= shots - 1
                count += 1
            out[k, f + 6] = count * scale[6]
            # Their points on the six points in front of the rearmost checker.
            r = rear[k, side]
            front = 0
            for t in range(max(r - 6, 1), r):
                front += made >> (t - 1) & 1
            out[k, f + 7] = front * scale[7]
        out[k, 214] = 1.0 if rear[k, 0] + rear[k, 1] < 25 else 0.0


@njit(cache=True, nogil=True)
def _shot_sets(b: Any, masks: Any) -> Any:
    """The kernel of :func:`shot_masks`."""
    out = np.empty(b.shape[0], np.uint64)
    for k in range(b.shape[0]):
        sources = blots = 0
        for p in range(1, 26):
            if b[k, p] > 0:
                sources |= 1 << p
            if p < 25 and b[k, p] == -1:
                blots |= 1 << p
        out[k] = _shots(sources, blots, masks)
    return out


def shot_masks(b: IntArray) -> npt.NDArray[np.uint64]:
    """For each board, the 36-bit set of rolls with which the mover could hit a blot."""
    return np.asarray(_shot_sets(np.ascontiguousarray(b, dtype=np.int64), _ROLL_MASKS))


def _escape_table() -> IntArray:
    """For each 12-bit set of the opponent's points on the 12 points ahead of a checker (bit i:
    distance 12 - i), the rolls (of 36) with which it can move the whole roll (a double:
    two steps) to an open point through an open point: how freely a checker there gets out."""
    m = np.arange(4096, dtype=np.int64)

    def open_(d: int) -> npt.NDArray[np.bool_]:
        closed: npt.NDArray[np.bool_] = (m >> max(12 - d, 0)) & 1 == 1
        return np.full(m.shape, d > 12) | ~closed

    table = np.zeros(4096, dtype=np.int64)
    for a in range(1, 7):
        for b in range(1, 7):
            table += open_(a + b) & (open_(a) | open_(b))
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
    25: none); the bit sets are :func:`_encode_side`'s."""
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
    play asks for float32 inputs, training for float64.  Layout 1 is made in compiled code
    (:func:`_encode_v1`): each feature a small integer, scaled last, so a board's inputs
    do not depend on its batch."""
    size = n_inputs(version)  # raises for an unknown layout
    b = np.ascontiguousarray(b, dtype=np.int64)
    n = len(b)
    dt = np.dtype(dtype).type
    out = np.empty((n, size), dtype=dt)
    rear = np.empty((n, 2), dtype=np.int64)
    sets = np.empty((n, 2, 5), dtype=np.int32)
    _encode_v1(b, out, _SCALES[dt], rear, sets, _ROLL_MASKS)
    race = rear[:, 0] + rear[:, 1] < 25  # the rearmost checkers have passed each other
    if version == 2:
        both = np.stack([b, -b[:, ::-1]], axis=1).reshape(2 * n, 26)  # each side, in turn
        mine = np.maximum(both[:, 1:26], 0)
        front = 25 - rear[:, ::-1].reshape(2 * n)
        made_bits = (sets[:, :, 1] | (sets[:, :, 2] - 4096) << 12).reshape(2 * n).astype(np.int64)
        blocked = sets[:, ::-1, 4].reshape(2 * n).astype(np.int64)
        extra = _extra_features(mine, rear.reshape(2 * n), front, made_bits, blocked)
        out[:, N_INPUTS:] = extra.reshape(n, 2 * _EXTRA_FEATURES)
    return out, race
