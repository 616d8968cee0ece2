"""The core's small values: points, steps, plays, results, dice and the errors about them.

Points are numbered from the mover's side, 1-24; the bar is 25 and off is 0 (gnubg's
convention).  This module depends on nothing but the standard library.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

__all__ = [
    "BAR",
    "CHECKERS",
    "OFF",
    "AmbiguousMoveError",
    "DiceError",
    "GameResult",
    "IllegalMoveError",
    "InvalidMoveTextError",
    "InvalidPositionError",
    "Move",
    "Outcome",
    "Step",
    "check_dice",
    "format_steps",
    "iter_rolls",
    "iter_weighted_rolls",
    "short_repr",
]

BAR = 25
"""The bar, as a point number in code and in notation (gnubg's convention)."""
OFF = 0
"""Borne off, as a point number in code and in notation."""

CHECKERS = 15


class InvalidPositionError(ValueError):
    """A position, Position ID or board description that is malformed or impossible."""


class DiceError(ValueError):
    """Dice that are not two numbers 1-6 (or, in :mod:`backgammon.play.dice`, a source run dry)."""


class InvalidMoveTextError(ValueError):
    """Move text that cannot be read as a play at all (notation: formats.md §5.2)."""


class IllegalMoveError(ValueError):
    """A play that is well formed but not legal for this position and roll (R5-R17)."""


class AmbiguousMoveError(ValueError):
    """Move text that matches more than one legal play."""


class GameResult(enum.IntEnum):
    """How a finished game was won (R19); the value is the base number of points."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


class Outcome(NamedTuple):
    """The end of a game: who won and how (R18-R19).

    ``winner_on_roll`` is relative to the position it was read from: after
    :meth:`Position.play` the winner is the side that just moved, so it is False there.
    """

    winner_on_roll: bool
    result: GameResult

    @property
    def points(self) -> int:
        """Base points of the win, before the cube (R20)."""
        return int(self.result)


Step = tuple[int, int, bool]
"""One die's worth of a play: (from point, to point, hit), points from the mover's side."""


class Move(tuple[Step, ...]):
    """A complete play: the single-die steps in the order they are played.

    Points are numbered from the mover's side (bar 25, off 0).  ``str(move)`` is gnubg's
    canonical notation; an empty move is a lost turn (R10) and prints as ``""``.
    """

    __slots__ = ()

    def __new__(cls, steps: Iterable[Step] = ()) -> Move:
        return tuple.__new__(cls, tuple((int(s), int(t), bool(h)) for s, t, h in steps))

    @property
    def steps(self) -> tuple[Step, ...]:
        """The single-die steps, in playing order."""
        return tuple(self)

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"

    def __str__(self) -> str:
        return format_steps(self)

    def pips(self) -> int:
        """Pips moved (a bear-off with a larger die moves only the distance to off)."""
        return sum(s - t for s, t, _ in self)


def format_steps(steps: Iterable[Step]) -> str:
    """gnubg's canonical notation (FormatMove): high sources first, chains joined, (n) groups.

    As gnubg, a hit is a point that held an opponent's blot before the turn: a checker's
    chain keeps such a point when it passes it, identical chains group whatever their flags
    (``2/1*(2)``, ``bar/20*(2)``), and a hit point ending a chain is marked once.
    """
    order = sorted(steps, key=lambda st: (st[0], st[1]), reverse=True)
    hit_points = {t for _, t, hit in order if hit}
    # Join the steps of one checker: a step starting where an earlier one ended continues it.
    chains: list[list[int]] = []
    for s, t, _ in order:
        for chain in chains:
            if chain[-1] == s:
                if s not in hit_points:
                    chain.pop()
                chain.append(t)
                break
        else:
            chains.append([s, t])
    grouped: list[tuple[list[int], int]] = []
    for chain in chains:
        for i, (other, n) in enumerate(grouped):
            if other == chain:
                grouped[i] = (other, n + 1)
                break
        else:
            grouped.append((chain, 1))
    marked: set[int] = set()
    texts: list[str] = []
    for chain, n in grouped:
        parts = [_point_text(chain[0])]
        for t in chain[1:-1]:  # kept only where it hit
            marked.add(t)
            parts.append(_point_text(t) + "*")
        last = chain[-1]
        mark = last in hit_points and last not in marked
        marked.update((last,) if mark else ())
        parts.append(_point_text(last) + ("*" if mark else ""))
        texts.append("/".join(parts) + (f"({n})" if n > 1 else ""))
    return " ".join(texts)


def _point_text(point: int) -> str:
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


def check_dice(dice: object) -> tuple[int, int]:
    """The pair as given, checked to be two integers 1-6 (order kept); :class:`DiceError`."""
    if isinstance(dice, (str, bytes)) or not isinstance(dice, Sequence) or len(dice) != 2:
        raise DiceError(f"dice must be a pair of numbers 1-6, got {short_repr(dice)}")
    a, b = dice
    for d in (a, b):
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise DiceError(f"dice must be a pair of numbers 1-6, got {short_repr(dice)}")
    return int(a), int(b)


ECHO_LIMIT = 40
"""How many characters of any input a message repeats."""


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters plus "…": what a message echoes of any input
    (a pasted page or a damaged file's line must not come back whole)."""
    return text if len(text) <= limit else text[:limit] + "…"


def short_repr(value: object, limit: int = ECHO_LIMIT) -> str:
    """``value`` quoted for a message and clipped; a string is cut before it is quoted, so
    the quote still closes and control characters show escaped."""
    if isinstance(value, str):
        return repr(clip(value, limit))
    return clip(repr(value), limit)


def iter_rolls() -> Iterator[tuple[int, int]]:
    """The 21 distinct rolls, larger die first."""
    for a in range(1, 7):
        for b in range(1, a + 1):
            yield a, b


def iter_weighted_rolls() -> Iterator[tuple[int, int, int]]:
    """The 21 distinct rolls with their chances out of 36 (1 for a double, 2 otherwise)."""
    for a, b in iter_rolls():
        yield a, b, 1 if a == b else 2
