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
from numba import njit

from backgammon.core.values import DiceError

__all__ = ["apply_step", "child_boards", "child_plays", "kept_plays", "scratch"]

IntArray = npt.NDArray[np.int64]

_BAR = 25
_MAX_LEAVES = 1 << 14
"""Plays a search may record before the keeping (a double has a few thousand at most)."""


@njit(cache=True, nogil=True)
def _can_step(b: Any, s: int, d: int) -> bool:
    """Whether the mover may take one checker from ``s`` (25: the bar) by ``d`` pips."""
    if b[s] <= 0 or (b[_BAR] > 0 and s != _BAR):
        return False
    t = s - d
    if t >= 1:
        return bool(b[t] >= -1)
    for p in range(7, 26):  # bearing off: every checker home
        if b[p] > 0:
            return False
    if t == 0:
        return True
    for p in range(s + 1, 7):  # noqa: SIM110 (numba compiles loops); a larger die: R15
        if b[p] > 0:
            return False
    return True


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


@njit(cache=True, nogil=True)
def _record(
    leaves: Any,
    used: Any,
    first: Any,
    srcs: Any,
    n: int,
    board: Any,
    steps: int,
    die: int,
    key: Any,
) -> int:
    """Put a play's board in row ``n`` of ``leaves`` (with the dice it used, its first die
    and the source points that name it, :func:`child_plays`) if there is room; gives the new
    row count."""
    if n < leaves.shape[0]:
        leaves[n] = board
        used[n] = steps
        first[n] = die
        for i in range(4):
            srcs[n, i] = key[i]
    return n + 1


@njit(cache=True, nogil=True)
def _doubles(
    board: Any, die: int, leaves: Any, used: Any, first: Any, srcs: Any, stack: Any
) -> int:
    """Record every play of a double: up to four steps from non-increasing points (bar
    first), a play ending where no step can follow; gives the row count."""
    for i in range(26):
        stack[0, i] = board[i]
    nxt = np.empty(5, np.int64)
    moved = np.zeros(5, np.bool_)
    path = np.zeros(4, np.int64)
    nxt[0] = _BAR
    depth = 0
    n = 0
    while depth >= 0:
        s = nxt[depth]
        while s >= 1 and (stack[depth, s] <= 0 or not _can_step(stack[depth], s, die)):
            s -= 1  # (the first test spares most calls: only points holding a checker)
        if s >= 1:
            nxt[depth] = s - 1
            moved[depth] = True
            path[depth] = s
            apply_step(stack[depth], stack[depth + 1], s, die)
            if depth == 3:
                n = _record(leaves, used, first, srcs, n, stack[4], 4, die, path)
            else:
                depth += 1
                nxt[depth] = s
                moved[depth] = False
        else:
            if not moved[depth]:
                for i in range(depth, 4):
                    path[i] = 0
                n = _record(leaves, used, first, srcs, n, stack[depth], depth, die, path)
            depth -= 1
    return n


@njit(cache=True, nogil=True)
def _non_doubles(
    board: Any, hi: int, lo: int, leaves: Any, used: Any, first: Any, srcs: Any, stack: Any
) -> int:
    """Record every play of a non-double, the larger die first, then the smaller: the
    second step from the points held before the play (highest first), then from where the
    first step landed if no checker of ours was there (before them when it entered from
    the bar), as the rules core orders them; gives the row count."""
    occupied = np.empty(26, np.int64)
    n_occ = 0
    for s in range(24, 0, -1):
        if board[s] > 0:
            occupied[n_occ] = s
            n_occ += 1
    seconds = np.empty(27, np.int64)
    key = np.zeros(4, np.int64)
    n = 0
    for order in range(2):
        da = hi if order == 0 else lo
        db = lo if order == 0 else hi
        n_first = 1 if board[_BAR] > 0 else n_occ
        for f in range(n_first):
            s1 = _BAR if board[_BAR] > 0 else occupied[f]
            if not _can_step(board, s1, da):
                continue
            apply_step(board, stack[1], s1, da)
            t1 = s1 - da
            k = 0
            if stack[1, _BAR] > 0:
                seconds[0] = _BAR
                k = 1
            else:
                new_point = t1 >= 1 and board[t1] <= 0
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
                if _can_step(stack[1], s2, db):
                    apply_step(stack[1], stack[2], s2, db)
                    key[order] = s1
                    key[1 - order] = s2
                    n = _record(leaves, used, first, srcs, n, stack[2], 2, da, key)
                    went_on = True
            if not went_on:  # one die: a bear-off either die can make is the larger's
                side = 0 if s1 - da <= 0 else order
                key[side] = s1
                key[1 - side] = 0
                n = _record(leaves, used, first, srcs, n, stack[1], 1, da, key)
    return n


@njit(cache=True, nogil=True)
def scratch() -> tuple[Any, Any, Any, Any, Any, Any, Any, Any]:
    """The working arrays of :func:`kept_plays`, made once and reused for every board."""
    return (
        np.empty((_MAX_LEAVES, 26), np.int8),  # leaves: the boards the search reached
        np.empty(_MAX_LEAVES, np.int64),  # used: the dice each one used
        np.empty(_MAX_LEAVES, np.int64),  # first: its first die
        np.empty((_MAX_LEAVES, 4), np.int64),  # srcs: the source points that name it
        np.empty((5, 26), np.int8),  # stack: the boards along the search
        np.empty(_MAX_LEAVES, np.uint64),  # hashes
        np.empty(_MAX_LEAVES, np.bool_),  # keep: a legal play, the first of its board
        np.empty(2 * _MAX_LEAVES, np.int64),  # slots of the hash table
    )


@njit(cache=True, nogil=True)
def kept_plays(board: Any, hi: int, lo: int, work: Any, keys: Any) -> int:
    """Search the plays of ``hi``-``lo`` from ``board`` (the mover's ``int8`` view) into
    ``work`` (:func:`scratch`); gives the row count, the legal plays being the rows whose
    ``keep`` flag is set, in the rules core's order.  ``keys``: 26 random multipliers that
    hash a board (equal hashes are compared in full)."""
    leaves, used, first, srcs, stack, hashes, keep, slots = work
    if hi == lo:
        n = _doubles(board, hi, leaves, used, first, srcs, stack)
    else:
        n = _non_doubles(board, hi, lo, leaves, used, first, srcs, stack)
    if n == 0:  # no play: the turn is lost
        n = _record(leaves, used, first, srcs, 0, board, 0, hi, np.zeros(4, np.int64))
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
        h = np.uint64(0)
        for i in range(26):
            h += np.uint64(leaves[j, i] + 16) * keys[i]
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
            hashes[j] = h
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
