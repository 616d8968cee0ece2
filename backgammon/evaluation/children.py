"""The boards after every legal play of many rolls at once, in compiled code (numba).

Lookahead and rollouts judge every play of every roll of thousands of positions; what they
need of a play is the board it leaves, not its spelling.  :func:`child_boards` gives those
boards for a whole batch of ``(board, dice)`` pairs in one call, about four times sooner
than :meth:`~backgammon.core.position.Position.legal_moves` and
:func:`~backgammon.evaluation.encode.after_boards_many` together (``bench/movegen.py``).  The
rules core stays the reference: the tests check that both give the same boards, in the same
order, on every roll of thousands of positions from real games.

A search over the steps, as gnubg's: a double takes up to four steps from non-increasing
points (the bar first); a non-double its larger die first, then its smaller, the second step
from the points held before the play (highest first) and from where the first one landed.
Each play ends where no die can be moved; the plays using the most dice (the larger die when
only one can be used, R9) are kept, the first of each resulting board.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from backgammon.core.values import DiceError

__all__ = ["apply_step", "child_boards", "child_plays", "kept_plays", "scratch"]

IntArray = npt.NDArray[np.int64]

_BAR = 25
_MAX_LEAVES = 1 << 14
"""Plays a search may record before the keeping (a double has a few thousand at most)."""


def _highest_bit(typingctx: Any, mask: Any) -> Any:
    """The typing and code of :func:`_highest`: 63 less LLVM's count of leading zeros."""
    if not isinstance(mask, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        word = context.cast(builder, args[0], signature.args[0], types.int64)
        i64 = ir.IntType(64)
        kind = ir.FunctionType(i64, [i64, ir.IntType(1)])
        ctlz = builder.module.declare_intrinsic("llvm.ctlz", [i64], kind)
        zeros = builder.call(ctlz, [word, ir.Constant(ir.IntType(1), 1)])
        return builder.sub(ir.Constant(i64, 63), zeros)

    return types.int64(mask), codegen


_highest: Any = intrinsic(_highest_bit)
"""The number of the highest bit set in a non-zero mask, in one instruction: the double's
search jumps to its next source point instead of testing each point below."""


@njit(cache=True, nogil=True)
def apply_step(src: Any, dst: Any, s: int, d: int) -> None:
    """``dst`` = ``src`` after the step from ``s`` by ``d`` (known legal), a blot hit."""
    for i in range(26):
        dst[i] = src[i]
    dst[s] -= 1
    t = s - d
    if t >= 1:
        if dst[t] == -1:
            dst[t] = 1
            dst[0] -= 1
        else:
            dst[t] += 1


# The search below is written out in two functions, without helpers taking the board:
# a call that passes an array costs numba a reference count up and down, more than the
# step itself.  A step from ``s`` by ``d`` to ``t = s - d`` is made on the board in place
# and taken back after; it keeps the board's hash (the sum of ``(b[i] + 16) * keys[i]``)
# and the count of the mover's checkers outside the home board (bearing off needs none).


@njit(cache=True, nogil=True)
def _doubles(
    b: Any,
    die: int,
    h: Any,
    outside: int,
    keys: Any,
    leaves: Any,
    used: Any,
    first: Any,
    srcs: Any,
    hashes: Any,
    nxt: Any,
    path: Any,
    hits: Any,
) -> int:
    """Record every play of a double: up to four steps from non-increasing points (bar
    first), a play ending where no step can follow; gives the row count."""
    cap = leaves.shape[0]
    own = 0  # bit p: a checker of the mover's on point p (1-25)
    for p in range(1, 26):
        if b[p] > 0:
            own |= 1 << p
    nxt[0] = _BAR
    moved = 0  # bit k: depth k has stepped
    depth = 0
    n = 0
    while depth >= 0:
        s = nxt[depth]
        while s >= 1:  # the next source that may step, at or below s
            below = own & ((2 << s) - 1)
            if below == 0 or (b[_BAR] > 0 and s != _BAR):
                s = 0
                break
            s = _highest(below)
            t = s - die
            if t >= 1:
                if b[t] >= -1:
                    break
            elif outside == 0:
                if t == 0:
                    break
                higher = False  # R15: a larger die from the highest point only
                for p in range(s + 1, 7):
                    if b[p] > 0:
                        higher = True
                        break
                if not higher:
                    break
            s -= 1
        rec = -1  # the steps of a play to record now
        undo = False  # take back the step from s to t (hit: a blot there was hit)
        if s >= 1:
            nxt[depth] = s - 1
            moved |= 1 << depth
            path[depth] = s
            t = s - die
            b[s] -= 1
            if b[s] == 0:
                own ^= 1 << s
            h -= keys[s]
            if s >= 7 and t <= 6:
                outside -= 1
            hit = False
            if t >= 1:
                own |= 1 << t
                if b[t] == -1:
                    b[t] = 1
                    b[0] -= 1
                    h += keys[t] + keys[t] - keys[0]
                    hit = True
                else:
                    b[t] += 1
                    h += keys[t]
            if depth < 3:
                hits[depth] = hit
                depth += 1
                nxt[depth] = s
                moved &= ~(1 << depth)
                continue
            rec = 4
            undo = True
        else:
            if not moved & (1 << depth):  # no step followed: a play ends here
                for i in range(depth, 4):
                    path[i] = 0
                rec = depth
            depth -= 1
            if depth >= 0:
                s = path[depth]
                t = s - die
                hit = hits[depth]
                undo = True
        if rec >= 0:
            if n < cap:
                for i in range(26):
                    leaves[n, i] = b[i]
                used[n] = rec
                first[n] = die
                hashes[n] = h
                for i in range(4):
                    srcs[n, i] = path[i]
            n += 1
        if undo:
            b[s] += 1
            own |= 1 << s
            h += keys[s]
            if s >= 7 and t <= 6:
                outside += 1
            if t >= 1:
                if hit:
                    b[t] = -1
                    b[0] += 1
                    h -= keys[t] + keys[t] - keys[0]
                else:
                    b[t] -= 1
                    h -= keys[t]
                if b[t] <= 0:
                    own &= ~(1 << t)
    return n


@njit(cache=True, nogil=True)
def _non_doubles(
    b: Any,
    hi: int,
    lo: int,
    h: Any,
    outside: int,
    keys: Any,
    leaves: Any,
    used: Any,
    first: Any,
    srcs: Any,
    hashes: Any,
    occupied: Any,
    seconds: Any,
) -> int:
    """Record every play of a non-double, the larger die first, then the smaller: the
    second step from the points held before the play (highest first), then from where the
    first step landed if no checker of ours was there (before them when it entered from
    the bar), as the rules core orders them; gives the row count."""
    cap = leaves.shape[0]
    n_occ = 0
    for s in range(24, 0, -1):
        if b[s] > 0:
            occupied[n_occ] = s
            n_occ += 1
    on_bar = b[_BAR] > 0
    n = 0
    two = False  # a play of both dice recorded
    for order in range(2):
        da = hi if order == 0 else lo
        db = lo if order == 0 else hi
        for f in range(1 if on_bar else n_occ):
            s1 = _BAR if on_bar else occupied[f]
            t1 = s1 - da
            if t1 >= 1:
                if b[t1] < -1:
                    continue
            elif outside:
                continue
            elif t1 < 0:
                higher = False  # R15: a larger die from the highest point only
                for p in range(s1 + 1, 7):
                    if b[p] > 0:
                        higher = True
                        break
                if higher:
                    continue
            new_point = t1 >= 1 and b[t1] <= 0
            b[s1] -= 1
            h -= keys[s1]
            if s1 >= 7 and t1 <= 6:
                outside -= 1
            hit1 = False
            if t1 >= 1:
                if b[t1] == -1:
                    b[t1] = 1
                    b[0] -= 1
                    h += keys[t1] + keys[t1] - keys[0]
                    hit1 = True
                else:
                    b[t1] += 1
                    h += keys[t1]
            k = 0
            short = order == 1 and two and t1 >= 1 and outside > 0 and not on_bar
            if short:
                # Only the larger die on from a new point can make a board order 0 did
                # not (see below); a play of one die would not be kept.
                if new_point:
                    seconds[0] = t1
                    k = 1
            elif b[_BAR] > 0:
                seconds[0] = _BAR
                k = 1
            else:
                if s1 == _BAR and new_point:
                    seconds[k] = t1
                    k += 1
                for j in range(n_occ):
                    seconds[k] = occupied[j]
                    k += 1
                if s1 != _BAR and new_point:
                    seconds[k] = t1
                    k += 1
            went_on = False
            for j in range(k):
                s2 = seconds[j]
                if b[s2] <= 0 or (b[_BAR] > 0 and s2 != _BAR):
                    continue
                t2 = s2 - db
                if t2 >= 1:
                    if b[t2] < -1:
                        continue
                elif outside:
                    continue
                elif t2 < 0:
                    higher = False
                    for p in range(s2 + 1, 7):
                        if b[p] > 0:
                            higher = True
                            break
                    if higher:
                        continue
                went_on = two = True
                if order and not on_bar and t1 >= 1 and t2 >= 1 and not (s2 == t1 and new_point):
                    # The smaller die from s1, then the larger from a point held before the
                    # play, neither bearing off: the larger from s2 first was legal too and
                    # left the same board, recorded in order 0 (only its first is kept).
                    continue
                if n < cap:  # the board after both steps, written without making the second
                    for i in range(26):
                        leaves[n, i] = b[i]
                    leaves[n, s2] -= 1
                    h2 = h - keys[s2]
                    if t2 >= 1:
                        if b[t2] == -1:
                            leaves[n, t2] = 1
                            leaves[n, 0] -= 1
                            h2 += keys[t2] + keys[t2] - keys[0]
                        else:
                            leaves[n, t2] += 1
                            h2 += keys[t2]
                    used[n] = 2
                    first[n] = da
                    hashes[n] = h2
                    srcs[n, order] = s1
                    srcs[n, 1 - order] = s2
                    srcs[n, 2] = 0
                    srcs[n, 3] = 0
                n += 1
            if not (went_on or short):  # one die: a bear-off either die can make is the larger's
                if n < cap:
                    for i in range(26):
                        leaves[n, i] = b[i]
                    side = 0 if t1 <= 0 else order
                    used[n] = 1
                    first[n] = da
                    hashes[n] = h
                    srcs[n, side] = s1
                    srcs[n, 1 - side] = 0
                    srcs[n, 2] = 0
                    srcs[n, 3] = 0
                n += 1
            b[s1] += 1
            h += keys[s1]
            if s1 >= 7 and t1 <= 6:
                outside += 1
            if t1 >= 1:
                if hit1:
                    b[t1] = -1
                    b[0] += 1
                    h -= keys[t1] + keys[t1] - keys[0]
                else:
                    b[t1] -= 1
                    h -= keys[t1]
    return n


@njit(cache=True, nogil=True)
def scratch() -> tuple[Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any]:
    """The working arrays of :func:`kept_plays`, made once and reused for every board."""
    return (
        np.empty((_MAX_LEAVES, 26), np.int8),  # 0 leaves: the boards the search reached
        np.empty(_MAX_LEAVES, np.int64),  # 1 used: the dice each one used
        np.empty(_MAX_LEAVES, np.int64),  # 2 first: its first die
        np.empty((_MAX_LEAVES, 4), np.int64),  # 3 srcs: the source points that name it
        np.empty(26, np.int8),  # 4 the board the search steps on
        np.empty(_MAX_LEAVES, np.uint64),  # 5 hashes
        np.empty(_MAX_LEAVES, np.bool_),  # 6 keep: a legal play, the first of its board
        np.empty(2 * _MAX_LEAVES, np.int64),  # 7 slots of the hash table
        np.empty(5, np.int64),  # 8 a double's next source point at each depth
        np.empty(4, np.int64),  # 9 the sources of the double's play being searched
        np.empty(5, np.bool_),  # 10 whether each of its steps hit
        np.empty(26, np.int64),  # 11 the points holding the mover's checkers
        np.empty(27, np.int64),  # 12 the second steps' sources
    )


@njit(cache=True, nogil=True)
def kept_plays(board: Any, hi: int, lo: int, work: Any, keys: Any) -> int:
    """Search the plays of ``hi``-``lo`` from ``board`` (the mover's ``int8`` view) into
    ``work`` (:func:`scratch`); gives the row count, the legal plays being the rows whose
    ``keep`` flag is set, in the rules core's order.  ``keys``: 26 random multipliers that
    hash a board (equal hashes are compared in full); each step updates the hash."""
    leaves, used, first, srcs, b, hashes, keep, slots = (
        work[0],
        work[1],
        work[2],
        work[3],
        work[4],
        work[5],
        work[6],
        work[7],
    )
    h = np.uint64(0)
    outside = 0
    for i in range(26):
        b[i] = board[i]
        h += np.uint64(board[i] + 16) * keys[i]
        if i >= 7 and board[i] > 0:
            outside += board[i]
    if hi == lo:
        n = _doubles(
            b, hi, h, outside, keys, leaves, used, first, srcs, hashes, work[8], work[9], work[10]
        )
    else:
        n = _non_doubles(
            b, hi, lo, h, outside, keys, leaves, used, first, srcs, hashes, work[11], work[12]
        )
    if n == 0:  # no play: the turn is lost
        for i in range(26):
            leaves[0, i] = b[i]
        used[0] = 0
        first[0] = hi
        hashes[0] = h
        srcs[0, :] = 0
        n = 1
    if n > _MAX_LEAVES:
        raise ValueError("too many plays for the kernel's buffer")
    most = 0
    for j in range(n):
        most = max(most, used[j])
    with_hi = False
    for j in range(n):
        keep[j] = used[j] == most
        with_hi = with_hi or (keep[j] and first[j] == hi)
    if most == 1 and hi != lo and with_hi:  # one die only: the larger if it can (R9)
        for j in range(n):
            keep[j] = keep[j] and first[j] == hi
    # The first of each resulting board: an open-addressed table of the kept rows by
    # hash (equal hashes compared in full), at most half full.
    size = 64
    while size < 2 * n:
        size *= 2
    slots[:size] = -1
    for j in range(n):
        if not keep[j]:
            continue
        h = hashes[j]
        at = int(h >> np.uint64(40)) & (size - 1)
        while slots[at] >= 0:
            o = slots[at]
            if hashes[o] == h:
                same = True
                for i in range(26):
                    if leaves[o, i] != leaves[j, i]:
                        same = False
                        break
                if same:
                    keep[j] = False
                    break
            at = (at + 1) & (size - 1)
        if keep[j]:
            slots[at] = j
    return n


@njit(cache=True, nogil=True)
def _children(boards: Any, dice: Any, keys: Any) -> tuple[Any, Any, Any]:
    """The kernel of :func:`child_plays`."""
    n_in = boards.shape[0]
    counts = np.zeros(n_in, np.int64)
    cap = max(64, 24 * n_in)
    out = np.empty((cap, 26), np.int64)
    names = np.empty((cap, 4), np.int64)
    m = 0
    work = scratch()
    leaves, srcs, keep = work[0], work[3], work[6]
    board = np.empty(26, np.int8)
    for k in range(n_in):
        for i in range(26):
            board[i] = boards[k, i]
        hi = max(dice[k, 0], dice[k, 1])
        lo = min(dice[k, 0], dice[k, 1])
        n = kept_plays(board, hi, lo, work, keys)
        for j in range(n):
            if not keep[j]:
                continue
            if m == out.shape[0]:
                grown = np.empty((2 * m, 26), np.int64)
                grown[:m] = out[:m]
                out = grown
                grown_names = np.empty((2 * m, 4), np.int64)
                grown_names[:m] = names[:m]
                names = grown_names
            for i in range(26):
                out[m, i] = -leaves[j, 25 - i]
            for i in range(4):
                names[m, i] = srcs[j, i]
            m += 1
            counts[k] += 1
    return out[:m], counts, names[:m]


_KEYS = np.random.default_rng(20261204).integers(1, 2**63, size=26, dtype=np.uint64) | np.uint64(1)


def child_boards(boards: npt.ArrayLike, dice: npt.ArrayLike) -> tuple[IntArray, IntArray]:
    """For each ``(N, 26)`` board (the side on roll's view) and its roll (``(N, 2)``), the
    boards after each legal play, seen from the opponent, who moves next, and how many rows
    each board has: what :func:`~backgammon.evaluation.encode.after_boards_many` gives for
    :meth:`~backgammon.core.position.Position.legal_moves`, rows in the same order (a lost
    turn is one row, the board itself turned round).  The boards must be legal positions
    (:class:`~backgammon.core.position.Position` checks them); a die outside 1-6 raises
    :class:`~backgammon.core.values.DiceError`."""
    b, d = _checked(boards, dice)
    out, counts, _names = _children(b, d, _KEYS)
    return out, counts


def _checked(boards: npt.ArrayLike, dice: npt.ArrayLike) -> tuple[IntArray, IntArray]:
    """The boards and rolls as ``int64`` arrays, refused if out of range."""
    b = np.ascontiguousarray(boards, dtype=np.int64).reshape(-1, 26)
    d = np.ascontiguousarray(dice, dtype=np.int64).reshape(-1, 2)
    if len(b) != len(d):
        raise ValueError(f"{len(b)} boards but {len(d)} rolls")
    if len(d) and (d.min() < 1 or d.max() > 6):
        raise DiceError("dice must be numbers 1-6")
    if len(b) and (b.min() < -15 or b.max() > 15):
        raise ValueError("a board holds at most 15 checkers on a point")
    return b, d


def child_plays(boards: npt.ArrayLike, dice: npt.ArrayLike) -> tuple[IntArray, IntArray, IntArray]:
    """:func:`child_boards` with each play's name: ``(M, 4)`` source points, those of the
    larger and the smaller die for a non-double (0: that die unplayed), a double's sources
    from the highest down (0 padded); all 0 for a lost turn.  They are the numbers
    :func:`backgammon.env.table.play_key` gives the same play (the environments' actions)."""
    b, d = _checked(boards, dice)
    return _children(b, d, _KEYS)
