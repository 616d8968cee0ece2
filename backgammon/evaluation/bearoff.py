"""One-sided bear-off database: for every home-board position of up to 15 checkers, the
distribution of the number of rolls needed to bear everything off, playing each roll to
minimise the expected number of rolls; and for the positions of all 15 checkers, the
distribution of the rolls needed to bear the first one off (a gammon is saved by it), played
to minimise those.  Two-sided race chances, gammons included, are built on them, as gnubg
builds its one-sided bear-off evaluation.

There are C(21, 6) = 54,264 positions.  The table is computed by our own code (about a
minute), written once to the user's cache directory, and read from there afterwards.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt
import platformdirs

from backgammon.core.values import iter_weighted_rolls

__all__ = [
    "MAX_ROLLS",
    "N_POSITIONS",
    "BearoffDatabase",
    "BearoffError",
    "position_index",
    "positions",
]

N_POSITIONS = comb(21, 6)
"""Positions of 0-15 checkers on six points."""
MAX_ROLLS = 32
"""Length of each stored distribution (no position needs more rolls)."""
VERSION = 2

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Home = tuple[int, int, int, int, int, int]

_BINOM = np.array([[comb(n, k) for k in range(7)] for n in range(22)], dtype=np.int64)
_ROLLS = list(iter_weighted_rolls())


class BearoffError(ValueError):
    """A position that is not in the database (checkers outside the home board, > 15)."""


def position_index(home: Sequence[int]) -> int:
    """The index of a home board (checkers on points 1..6) in the database."""
    if len(home) != 6 or min(home) < 0 or sum(home) > 15:
        raise BearoffError(f"not a bear-off position of up to 15 checkers: {tuple(home)}")
    rank = 0
    s = 0
    for k, c in enumerate(home, start=1):
        s += c
        rank += comb(s + k - 1, k)
    return rank


def indices(homes: IntArray) -> IntArray:
    """Vectorised :func:`position_index` of an ``(N, 6)`` array of home boards."""
    a = np.cumsum(homes, axis=1) + _ROW_OFFSETS
    return np.asarray(_BINOM[a, _COLUMNS_1_6].sum(axis=1))


_ROW_OFFSETS = np.arange(6)
_COLUMNS_1_6 = np.arange(1, 7)


# Both sides' home boards as read from a board: points 1-6, then the opponent's 1-6 (board
# columns 24-19, counts negated).
_HOME_COLUMNS = np.array([*range(1, 7), *range(24, 18, -1)], dtype=np.int64)
_HOME_SIGNS = np.array([1] * 6 + [-1] * 6, dtype=np.int64)


def home_indices(boards: IntArray) -> tuple[IntArray, IntArray]:
    """Both sides' home boards of bear-off boards: their :func:`indices` and their checkers,
    ``(N, 2)`` each (the side on roll first), in one set of array operations."""
    b = np.asarray(boards, dtype=np.int64)
    homes = np.maximum(b.take(_HOME_COLUMNS, axis=1) * _HOME_SIGNS, 0).reshape(-1, 2, 6)
    a = np.cumsum(homes, axis=2)
    a += _ROW_OFFSETS
    return np.asarray(_BINOM[a, _COLUMNS_1_6].sum(axis=2)), a[:, :, 5] - 5


def positions() -> Iterator[Home]:
    """Every home board of up to 15 checkers, in index order."""
    out: list[Home] = []

    def rec(prefix: tuple[int, ...], left: int) -> None:
        if len(prefix) == 6:
            out.append(prefix)  # type: ignore[arg-type,unused-ignore]
            return
        for c in range(left + 1):
            rec((*prefix, c), left - c)

    rec((), 15)
    out.sort(key=position_index)
    return iter(out)


@cache
def _after_die(home: Home, die: int) -> tuple[Home, ...]:
    """Positions after playing one die (all checkers are home, so a die is always playable)."""
    results: set[Home] = set()
    highest = max((p for p in range(6) if home[p]), default=-1)
    for p in range(6):
        if not home[p]:
            continue
        point = p + 1
        if point < die and p != highest:
            continue  # bearing off with a larger die needs no checker on a higher point
        h = list(home)
        h[p] -= 1
        if point > die:
            h[p - die] += 1
        results.add((h[0], h[1], h[2], h[3], h[4], h[5]))
    return tuple(results)


def _after_roll(home: Home, a: int, b: int) -> set[Home]:
    """Positions after playing a whole roll (as many dice as possible, R9)."""
    dice = [a] * 4 if a == b else [a, b]
    orders = [dice] if a == b else [dice, dice[::-1]]
    results: set[Home] = set()
    for order in orders:
        layer = {home}
        for die in order:
            nxt: set[Home] = set()
            for h in layer:
                if not any(h):
                    nxt.add(h)
                else:
                    nxt.update(_after_die(h, die))
            layer = nxt
        results |= layer
    return results


def build(progress: Callable[[int, int], None] | None = None, max_checkers: int = 15) -> FloatArray:
    """Compute the ``(N, MAX_ROLLS)`` table; index k = bear off in exactly k rolls.

    With ``max_checkers`` < 15 only the first ``C(max_checkers + 6, 6)`` positions (those
    with at most that many checkers, a prefix of the index order) are computed.
    """
    total = comb(max_checkers + 6, 6)
    table = np.zeros((total, MAX_ROLLS))
    mean = np.zeros(total)
    todo = [h for h in positions() if sum(h) <= max_checkers]
    order = sorted(todo, key=lambda h: sum((i + 1) * c for i, c in enumerate(h)))
    table[0, 0] = 1.0  # nothing left: done in zero rolls
    for n, home in enumerate(order):
        if n and progress and n % 500 == 0:
            progress(n, total)
        if not any(home):
            continue
        i = position_index(home)
        dist = np.zeros(MAX_ROLLS)
        for a, b, weight in _ROLLS:
            best = min((position_index(h) for h in _after_roll(home, a, b)), key=mean.__getitem__)
            dist[1:] += weight * table[best, :-1]
        dist /= 36.0
        table[i] = dist
        mean[i] = float(dist @ np.arange(MAX_ROLLS))
    _after_die.cache_clear()
    if progress:
        progress(total, total)
    return table


def build_first_off(
    table: FloatArray, progress: Callable[[int, int], None] | None = None
) -> FloatArray:
    """The ``(N, MAX_ROLLS)`` table of the rolls needed to bear the first checker off, for
    the positions of all 15 checkers (zero rows elsewhere): index k = in exactly k rolls.

    A roll that can bear a checker off does (the gammon is saved); one that cannot is played
    to the position with the fewest rolls to go, on average, until one can.  ``table`` (the
    bear-off distributions) is only used for its shape."""
    first = np.zeros_like(table)
    mean = np.zeros(len(table))
    todo = [h for h in positions() if sum(h) == 15]
    for n, home in enumerate(sorted(todo, key=lambda h: sum((i + 1) * c for i, c in enumerate(h)))):
        if progress and n % 500 == 0:
            progress(n, len(todo))
        dist = np.zeros(MAX_ROLLS)
        for a, b, weight in _ROLLS:
            after = _after_roll(home, a, b)
            if any(sum(h) < 15 for h in after):
                dist[1] += weight
            else:
                best = min((position_index(h) for h in after), key=mean.__getitem__)
                dist[1:] += weight * first[best, :-1]
        dist /= 36.0
        i = position_index(home)
        first[i] = dist
        mean[i] = float(dist @ np.arange(MAX_ROLLS))
    _after_die.cache_clear()
    if progress:
        progress(len(todo), len(todo))
    return first


def _bar(done: int, total: int) -> None:
    width = 40
    filled = width * done // total
    sys.stderr.write(
        f"\rbuilding bear-off database [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
    )
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def cache_path() -> Path:
    """Where the table is kept: ``$BACKGAMMON_CACHE`` or the user's cache folder (on Linux
    ``$XDG_CACHE_HOME/backgammon``, else ``~/.cache/backgammon``)."""
    root = os.environ.get("BACKGAMMON_CACHE")
    folder = Path(root) if root else platformdirs.user_cache_path("backgammon")
    return folder / f"bearoff-v{VERSION}.npz"


SHIPPED = Path(__file__).with_name("data") / "bearoff.npz"
"""The table shipped with the package (made by ``python -m backgammon.evaluation.bearoff``)."""
_SCALE = 65535.0


def _quantised(table: FloatArray) -> npt.NDArray[np.uint16]:
    used = int(np.nonzero(table.max(axis=0) * _SCALE >= 0.5)[0].max()) + 1
    return np.round(table[:, :used] * _SCALE).astype(np.uint16)


def _restored(q: npt.NDArray[np.uint16]) -> FloatArray:
    table = np.zeros((len(q), MAX_ROLLS))
    table[:, : q.shape[1]] = q
    sums = table.sum(axis=1, keepdims=True)
    return np.asarray(table / np.where(sums > 0, sums, 1.0))


def write_table(table: FloatArray, path: Path, first: FloatArray | None = None) -> None:
    """Store the tables as 16-bit fixed point (like gnubg's; 1/65535 resolution),
    compressed: the bear-off distributions and (given) the first-checker-off ones."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    arrays = {"table": _quantised(table), "version": np.array(VERSION)}
    if first is not None:
        arrays["first"] = _quantised(first)
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)


def read_tables(path: Path) -> tuple[FloatArray, FloatArray | None]:
    """Read the tables written by :func:`write_table` (renormalised rows); the second is
    None in a file without the first-checker-off table."""
    with np.load(path) as data:
        table = _restored(np.asarray(data["table"]))
        first = _restored(np.asarray(data["first"])) if "first" in data else None
    return table, first


_READ: dict[tuple[str, int], BearoffDatabase] = {}
"""The databases read from files in this process, by path and modification time."""


class BearoffDatabase:
    """The one-sided table with race chances built on it."""

    def __init__(self, table: FloatArray, first: FloatArray | None = None) -> None:
        """Wrap a table made by :func:`build` and one made by :func:`build_first_off`
        (made now, in about ten seconds, when not given)."""
        if table.shape != (N_POSITIONS, MAX_ROLLS):
            raise BearoffError(f"bear-off table has shape {table.shape}")
        if first is None:
            first = build_first_off(table)
        if first.shape != table.shape:
            raise BearoffError(f"first-checker-off table has shape {first.shape}")
        self.table = table
        self.cumulative = np.cumsum(table, axis=1)  # P(done within k rolls)
        self.mean = table @ np.arange(MAX_ROLLS)
        self.first_cumulative = np.cumsum(first, axis=1)  # P(one off within k rolls)

    @classmethod
    def load(cls, path: Path | None = None, progress: bool = True) -> BearoffDatabase:
        """The shipped table, else the cached one, else build it (with a progress bar) and
        cache it.  ``path`` names a specific file (built and written there if missing)."""
        if path is None and SHIPPED.exists():
            path = SHIPPED
        path = path or cache_path()
        if path.exists():
            key = (str(path.resolve()), path.stat().st_mtime_ns)
            if key not in _READ:  # a player's and its rollouts' share one (read only)
                _READ[key] = cls(*read_tables(path))
            return _READ[key]
        table = build(_bar if progress else None)
        first = build_first_off(table, _bar if progress else None)
        write_table(table, path, first)
        return cls(table, first)

    def distribution(self, home: Sequence[int]) -> FloatArray:
        """P(bear off in exactly k rolls) for k = 0..MAX_ROLLS-1."""
        return np.asarray(self.table[position_index(home)])

    def expected_rolls(self, home: Sequence[int]) -> float:
        """Mean number of rolls to bear off."""
        return float(self.mean[position_index(home)])

    def win_probability(self, mine: Sequence[int], theirs: Sequence[int]) -> float:
        """P(the side on roll bears off first), each side playing from its own table."""
        p = self.distribution(mine)
        q_cum = self.cumulative[position_index(theirs)]
        # I need k rolls; I win if the opponent needs at least k (they roll after me).
        q_at_least = 1.0 - np.concatenate([[0.0], q_cum[:-1]])
        return float(p @ q_at_least)

    def win_probabilities(self, boards: IntArray) -> FloatArray:
        """Vectorised :meth:`win_probability` of ``(N, 26)`` boards that are both bear-offs."""
        index, _ = home_indices(boards)
        return self._win(self.table[index[:, 0]], index[:, 1])

    def gammon_probabilities(self, boards: IntArray) -> tuple[FloatArray, FloatArray]:
        """P(the side on roll wins a gammon) and P(it loses one) of ``(N, 26)`` boards that
        are both bear-offs: a side wins a gammon by bearing its last checker off before the
        other, with all 15 checkers left, bears its first one off (gnubg's one-sided
        bear-off evaluation)."""
        index, checkers = home_indices(boards)
        return self._gammons(self.table[index[:, 0]], index, checkers)

    def probabilities(self, boards: IntArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """:meth:`win_probabilities` and :meth:`gammon_probabilities` of the same boards,
        each side's home board looked up once."""
        return self.probabilities_at(*home_indices(boards))

    def probabilities_at(
        self, index: IntArray, checkers: IntArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """:meth:`probabilities` of boards given by :func:`home_indices` (a caller that has
        them already need not work them out again)."""
        p = self.table[index[:, 0]]
        return self._win(p, index[:, 1]), *self._gammons(p, index, checkers)

    def _win(self, p: FloatArray, i_theirs: IntArray) -> FloatArray:
        """P(win) from the side on roll's distribution ``p`` and the other's index."""
        q_cum = self.cumulative[i_theirs, :-1]
        q_at_least = 1.0 - np.concatenate([np.zeros((len(p), 1)), q_cum], axis=1)
        return np.asarray((p * q_at_least).sum(axis=1))

    def _gammons(
        self, p: FloatArray, index: IntArray, checkers: IntArray
    ) -> tuple[FloatArray, FloatArray]:
        """P(win a gammon), P(lose one) from the side on roll's distribution ``p`` and both
        sides' indices and checkers."""
        i_mine, i_theirs = index[:, 0], index[:, 1]
        zero = np.zeros((len(p), 1))
        # I finish in k rolls; they have not borne one off in their k - 1 (they roll second).
        theirs_none_yet = 1.0 - np.concatenate([zero, self.first_cumulative[i_theirs, :-1]], axis=1)
        win = (p * theirs_none_yet).sum(axis=1)
        # They finish in k rolls; I have not borne one off in my k (I roll first).
        mine_none_yet = 1.0 - self.first_cumulative[i_mine]
        lose = (self.table[i_theirs] * mine_none_yet).sum(axis=1)
        win = np.where(checkers[:, 1] == 15, win, 0.0)
        lose = np.where(checkers[:, 0] == 15, lose, 0.0)
        return np.asarray(win), np.asarray(lose)


def is_bearoff(boards: IntArray) -> npt.NDArray[np.bool_]:
    """True where both sides have every checker in their home board (none on the bar)."""
    return np.asarray((boards[:, 7:26].max(axis=1) <= 0) & (boards[:, 0:19].min(axis=1) >= 0))


def all_bearoffs(boards: IntArray) -> bool:
    """``is_bearoff(boards).all()`` for a non-empty batch, in two reductions (one when the
    side on roll has a checker outside, as in most batches)."""
    return bool(boards[:, 7:26].max() <= 0 and boards[:, 0:19].min() >= 0)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m backgammon.evaluation.bearoff [FILE]``: build the table and write it to FILE
    (default: the user cache), showing progress."""
    args = list(sys.argv[1:] if argv is None else argv)
    path = Path(args[0]) if args else cache_path()
    table = build(_bar)
    write_table(table, path, build_first_off(table, _bar))
    print(f"{path}: {len(table)} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
