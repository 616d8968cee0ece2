"""Two-sided bear-off database: exact money values of every bear-off in which each side has
at most six checkers, all on its own home board (gnubg's ``gnubg_ts0.bd`` covers the same).

Each side has one of the 924 home boards of 0-6 checkers, so there are 924 x 924 positions
(side on roll x opponent).  For each we keep, like gnubg, four equities of the side on roll
per unit cube: cubeless, and cubeful for money with the cube owned by the side on roll,
centred, owned by the opponent.  The cubeful ones are before the side on roll's cube action
(its no-double value); the opponent's cube actions after each roll are in them, taken as
the recursion finds best (double when no-double is worth no more than the doubled game,
pass when a take would cost more than one unit).  Every roll is played to the best value of
each column on its own.  Gammons are impossible: both sides have borne off nine checkers.

The table is computed by our own code from the rules core's plays (under a minute on one
core), written once to the user's cache folder as 16-bit fixed point and read from there
afterwards (``python -m backgammon.evaluation.bearoff2 [FILE]`` builds it on demand).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backgammon.core.position import Position
from backgammon.core.values import iter_weighted_rolls
from backgammon.evaluation.bearoff import cache_path as _one_sided_cache_path
from backgammon.evaluation.bearoff import home_indices, is_bearoff, position_index, positions
from backgammon.evaluation.cube import CubeDecision, CubeState, decision_from_values

__all__ = [
    "CENTRED",
    "COLUMN_OF_OWNER",
    "CUBELESS",
    "MAX_CHECKERS",
    "N_SIDE",
    "OPPONENT_OWNS",
    "OWNED",
    "TwoSidedDatabase",
    "build",
    "money_decision",
    "successors",
]

MAX_CHECKERS = 6
"""Checkers a side may have left (all on its home board) for a position to be in the table."""
N_SIDE = comb(MAX_CHECKERS + 6, 6)
"""Home boards of 0-6 checkers: the first 924 of the one-sided database's index order."""
CUBELESS, OWNED, CENTRED, OPPONENT_OWNS = range(4)
"""The four columns (gnubg's order): cubeless equity, then cubeful equity with the cube
owned by the side on roll, centred, owned by the opponent."""
COLUMN_OF_OWNER = {1: OWNED, 0: CENTRED, -1: OPPONENT_OWNS}
"""The cubeful column for a cube owner as :class:`~backgammon.evaluation.cube.CubeState` says
it: 1 the side on roll, 0 centred, -1 the opponent."""
VERSION = 1

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_ROLLS = list(iter_weighted_rolls())
_WEIGHTS = np.array([w for _, _, w in _ROLLS], dtype=np.float64) / 36.0


def _homes() -> list[tuple[int, ...]]:
    """The 924 home boards of 0-6 checkers, in index order."""
    out: list[tuple[int, ...]] = []
    for home in positions():
        if sum(home) <= MAX_CHECKERS:
            out.append(home)
        if len(out) == N_SIDE:
            break
    assert [position_index(h) for h in out] == list(range(N_SIDE))
    return out


def successors() -> tuple[IntArray, IntArray]:
    """The distinct home boards each roll can leave, from each of the 924 (the plays come
    from the rules core): ``(flat, sizes)``, ``sizes[i, r]`` successors of board ``i`` for
    roll ``r`` (:func:`~backgammon.core.values.iter_weighted_rolls` order), their indices
    one after the other in ``flat``.  The empty board has none."""
    flat: list[int] = []
    sizes = np.zeros((N_SIDE, len(_ROLLS)), dtype=np.int64)
    for i, home in enumerate(_homes()):
        if not i:
            continue
        board = [0] * 26
        board[1:7] = home
        board[24] = -1  # an opponent checker far away: the game is not over
        pos = Position(board)
        for r, (a, b, _) in enumerate(_ROLLS):
            after = {position_index(pos.play(m).flip().board[1:7]) for m in pos.legal_moves((a, b))}
            flat.extend(sorted(after))
            sizes[i, r] = len(after)
    return np.array(flat, dtype=np.int64), sizes


def pips() -> IntArray:
    """The pip count of each of the 924 home boards."""
    return np.array([sum((p + 1) * c for p, c in enumerate(h)) for h in _homes()], dtype=np.int64)


def build(progress: Callable[[int, int], None] | None = None) -> FloatArray:
    """The ``(924, 924, 4)`` table: ``[on roll, opponent, column]`` (:data:`CUBELESS`,
    :data:`OWNED`, :data:`CENTRED`, :data:`OPPONENT_OWNS`).

    Level by level of total pips: a position leads only to positions with fewer, so each
    level is one vectorised step over all its positions and their successors."""
    flat, sizes = successors()
    n_succ = sizes.sum(axis=1)
    first = np.concatenate([[0], np.cumsum(n_succ)[:-1]])
    pip = pips()
    table = np.empty((N_SIDE, N_SIDE, 4))
    table[:, 0, :] = -1.0  # the opponent has borne everything off: lost
    table[0, :, :] = 1.0  # nothing left to bear off: won
    # child[k, j, s]: what the position (j on roll against s) is worth to its side on roll
    # as column k of its parent (the other side, who has just played to it) sees it.  The
    # parent owns the cube (OWNED): the child's side cannot double.  Centred, or the cube
    # the parent's opponent's (OPPONENT_OWNS): the child's side takes its cube action first.
    child = np.moveaxis(table, 2, 0)[[CUBELESS, OPPONENT_OWNS, CENTRED, OWNED]]
    most = int(pip.max())
    by_pips = [np.flatnonzero(pip == p) for p in range(most + 1)]
    for level in range(2, 2 * most + 1):
        ii, jj = [], []
        for p in range(max(1, level - most), min(level - 1, most) + 1):
            a, b = by_pips[p], by_pips[level - p]
            ii.append(np.repeat(a, len(b)))
            jj.append(np.tile(b, len(a)))
        on_roll, other = np.concatenate(ii), np.concatenate(jj)
        counts = n_succ[on_roll]
        ends = np.cumsum(counts)
        starts = ends - counts
        where = np.repeat(first[on_roll] - starts, counts) + np.arange(int(ends[-1]))
        after = flat[where]
        # The child is the opponent on roll against what this side left: its value, negated.
        values = -child[:, np.repeat(other, counts), after]
        roll_starts = (starts[:, None] + np.cumsum(sizes[on_roll], axis=1) - sizes[on_roll]).ravel()
        best = np.maximum.reduceat(values, roll_starts, axis=1).reshape(4, len(on_roll), -1)
        eq = best @ _WEIGHTS  # each column's best play of each roll, over the 36 rolls
        table[on_roll, other, :] = eq.T
        take = np.minimum(2.0 * eq[OPPONENT_OWNS], 1.0)  # doubled: the taken game, or a pass
        child[CUBELESS, on_roll, other] = eq[CUBELESS]
        child[OWNED, on_roll, other] = eq[OPPONENT_OWNS]
        child[CENTRED, on_roll, other] = np.maximum(eq[CENTRED], take)
        child[OPPONENT_OWNS, on_roll, other] = np.maximum(eq[OWNED], take)
        if progress:
            progress(level - 1, 2 * most - 1)
    return table


_SCALE = 65535.0


def quantised(table: FloatArray) -> npt.NDArray[np.uint16]:
    """Equities in [-1, 1] as 16-bit fixed point (gnubg's resolution, 2 / 65535)."""
    return np.round((np.clip(table, -1.0, 1.0) + 1.0) * (_SCALE / 2.0)).astype(np.uint16)


def restored(q: npt.NDArray[np.uint16]) -> FloatArray:
    """The inverse of :func:`quantised`."""
    return np.asarray(q, dtype=np.float64) * (2.0 / _SCALE) - 1.0


def cache_path() -> Path:
    """Where the table is kept: beside the one-sided one (``$BACKGAMMON_CACHE`` or the
    user's cache folder)."""
    return _one_sided_cache_path().with_name(f"bearoff2-v{VERSION}.npz")


def write_table(table: FloatArray, path: Path) -> None:
    """Store the table compressed, as 16-bit fixed point; written whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    np.savez_compressed(tmp, table=quantised(table), version=np.array(VERSION))
    tmp.replace(path)


def read_table(path: Path) -> FloatArray:
    """Read a table written by :func:`write_table`."""
    with np.load(path) as data:
        return restored(np.asarray(data["table"]))


def _bar(done: int, total: int) -> None:
    width = 40
    filled = width * done // total
    sys.stderr.write(
        f"\rbuilding two-sided bear-off database [{'#' * filled}{'.' * (width - filled)}]"
        f" {done}/{total}"
    )
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


_READ: dict[tuple[str, int], FloatArray] = {}
"""The tables read from files in this process, by path and modification time."""


def _load(path: Path | None, progress: bool) -> FloatArray:
    """The table at ``path`` (default: the cache), built and written there if missing."""
    path = path or cache_path()
    if path.exists():
        key = (str(path.resolve()), path.stat().st_mtime_ns)
        if key not in _READ:  # every database of the process shares one (read only)
            _READ[key] = read_table(path)
        return _READ[key]
    table = build(_bar if progress else None)
    write_table(table, path)
    return table


class TwoSidedDatabase:
    """The table with look-ups of ``(N, 26)`` boards (each seen from its side on roll)."""

    def __init__(
        self, table: FloatArray | None = None, path: Path | None = None, progress: bool = True
    ) -> None:
        """Wrap a table made by :func:`build`; without one, the table at ``path`` (default:
        the cache) is read at the first look-up, built and cached then if missing, with a
        progress bar if ``progress``: a player that meets no such bear-off never waits."""
        if table is not None and table.shape != (N_SIDE, N_SIDE, 4):
            raise ValueError(f"two-sided bear-off table has shape {table.shape}")
        self._table = table
        self._path = path
        self._progress = progress

    @classmethod
    def load(cls, path: Path | None = None, progress: bool = True) -> TwoSidedDatabase:
        """The table at ``path`` (default: the cache) now, built and written there first if
        missing (with a progress bar if ``progress``)."""
        return cls(_load(path, progress))

    @property
    def table(self) -> FloatArray:
        """The ``(924, 924, 4)`` table (read or built now if not yet)."""
        if self._table is None:
            self._table = _load(self._path, self._progress)
        return self._table

    @staticmethod
    def covers(boards: IntArray) -> BoolArray:
        """True where both sides have at most six checkers left, all on their home boards."""
        b = np.asarray(boards)
        # In a bear-off the home boards hold every checker, and only that side's.
        return np.asarray(
            is_bearoff(b)
            & (b[:, 1:7].sum(axis=1) <= MAX_CHECKERS)
            & (b[:, 19:25].sum(axis=1) >= -MAX_CHECKERS)
        )

    @staticmethod
    def covers_board(board: Sequence[int]) -> bool:
        """:meth:`covers` of one 26-number board, without numpy (cheap for one position)."""
        mine = theirs = 0
        for point, x in enumerate(board):
            if x > 0:
                if not 1 <= point <= 6:
                    return False
                mine += x
            elif x < 0:
                if not 19 <= point <= 24:
                    return False
                theirs -= x
        return mine <= MAX_CHECKERS and theirs <= MAX_CHECKERS

    def equities(self, boards: IntArray) -> FloatArray:
        """The ``(N, 4)`` equities of covered boards (:meth:`covers`) for the side on roll."""
        index, _ = home_indices(boards)
        return np.asarray(self.table[index[:, 0], index[:, 1]])

    def win_probabilities(self, boards: IntArray) -> FloatArray:
        """P(the side on roll wins) of covered boards, exactly (to 16 bits)."""
        return self.win_probabilities_at(home_indices(boards)[0])

    def win_probabilities_at(self, index: IntArray) -> FloatArray:
        """:meth:`win_probabilities` of covered boards given by their home boards' indices
        (:func:`~backgammon.evaluation.bearoff.home_indices`)."""
        return np.asarray((self.table[index[:, 0], index[:, 1], CUBELESS] + 1.0) / 2.0)

    def cubeful(self, boards: IntArray, owner: int) -> FloatArray:
        """Money equity per unit cube of covered boards for the side on roll, before its
        cube action: ``owner`` 1 if it owns the cube, 0 centred, -1 the opponent's."""
        return np.asarray(self.equities(boards)[:, COLUMN_OF_OWNER[owner]])

    def lookup(self, mine: Sequence[int], theirs: Sequence[int]) -> FloatArray:
        """The four equities of the side on roll with home boards ``mine`` and ``theirs``
        (checkers on points 1..6, each from its own side)."""
        return np.asarray(self.table[position_index(mine), position_index(theirs)])


def money_decision(
    db: TwoSidedDatabase, board: Sequence[int], state: CubeState
) -> CubeDecision | None:
    """The exact cube decision of the side on roll of ``board`` in money play (no double,
    double/take, double/pass per unit of the current cube), or None where the table does
    not answer: a match, or a board it does not cover."""
    if not state.is_money or not db.covers_board(board):
        return None
    b = np.asarray([board])
    e = db.equities(b)[0]
    nd = float(e[COLUMN_OF_OWNER[state.cube_owner]])
    return decision_from_values(nd, 2.0 * float(e[OPPONENT_OWNS]), 1.0, state)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m backgammon.evaluation.bearoff2 [FILE]``: build the table and write it to
    FILE (default: the user cache), showing progress."""
    args = list(sys.argv[1:] if argv is None else argv)
    path = Path(args[0]) if args else cache_path()
    wall, cpu = time.perf_counter(), time.process_time()
    table = build(_bar)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    write_table(table, path)
    size = path.stat().st_size / 1e6
    print(f"{path}: {N_SIDE} x {N_SIDE} positions in {wall:.1f} s ({cpu:.1f} s CPU), {size:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
