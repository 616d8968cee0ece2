"""The rules core: positions, plays and their generation (rules R1-R19 of docs/rules.md).

A :class:`Position` is an immutable board seen from the side to move.  Internally it is a
tuple of 26 signed counts::

    board[0]      = -(opponent's checkers on the bar)       (always <= 0)
    board[1..24]  = point p from the mover's side: > 0 mover's checkers, < 0 opponent's
    board[25]     = mover's checkers on the bar             (always >= 0)

so the opponent's point ``q`` is our ``25 - q`` and :meth:`Position.flip` is a reversal with
a change of sign.  Checkers borne off are the ones missing from the 15.

This module depends on nothing but the standard library.
"""

from __future__ import annotations

import base64
import enum
import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

__all__ = [
    "BAR",
    "OFF",
    "AmbiguousMoveError",
    "DiceError",
    "GameResult",
    "IllegalMoveError",
    "InvalidMoveTextError",
    "InvalidPositionError",
    "Move",
    "Outcome",
    "Position",
    "Step",
    "check_dice",
    "iter_rolls",
    "iter_weighted_rolls",
    "short_repr",
]

BAR = 25
"""The bar, as a point number in code and in notation (gnubg's convention)."""
OFF = 0
"""Borne off, as a point number in code and in notation."""

CHECKERS = 15

_START = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)

# Exact incremental keys for generated plays: each point is a digit in base 32 holding the
# change of its signed count (|change| <= 15 < 16), so different results have different keys.
_P = tuple(32**i for i in range(26))
_POINTS_DOWN = tuple(range(24, 0, -1))


class InvalidPositionError(ValueError):
    """A position, Position ID or board description that is malformed or impossible."""


class DiceError(ValueError):
    """Dice that are not two numbers 1-6 (or, in :mod:`backgammon.dice`, a source run dry)."""


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
    """gnubg's canonical notation (FormatMove): high sources first, chains joined, (n) groups."""
    order = sorted(steps, key=lambda st: (st[0], st[1]), reverse=True)
    # Join the steps of one checker: a step starting where an earlier one ended continues it.
    chains: list[list[Step]] = []
    for step in order:
        for chain in chains:
            if chain[-1][1] == step[0]:
                chain.append(step)
                break
        else:
            chains.append([step])
    texts: list[str] = []
    for chain in chains:
        parts = [_point_text(chain[0][0])]
        for i, (_, t, hit) in enumerate(chain):
            if hit or i == len(chain) - 1:
                parts.append(_point_text(t) + ("*" if hit else ""))
        texts.append("/".join(parts))
    # Group identical parts keeping first-appearance order: 24/18(2).
    grouped: list[tuple[str, int]] = []
    for text in texts:
        for i, (other, n) in enumerate(grouped):
            if other == text:
                grouped[i] = (other, n + 1)
                break
        else:
            grouped.append((text, 1))
    return " ".join(text if n == 1 else f"{text}({n})" for text, n in grouped)


def _point_text(point: int) -> str:
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


class Position:
    """An immutable, hashable backgammon position seen from the side to move."""

    __slots__ = ("_board", "_hash")

    _board: tuple[int, ...]
    _hash: int

    def __init__(self, board: Sequence[int]) -> None:
        """Make a position from the 26-number board (see the module docstring); checked."""
        b = tuple(int(x) for x in board)
        _check_board(b)
        self._board = b
        self._hash = hash(b)

    @classmethod
    def _trusted(cls, board: tuple[int, ...]) -> Position:
        pos = object.__new__(cls)
        pos._board = board
        pos._hash = hash(board)
        return pos

    # ----------------------------------------------------------------- construction
    @classmethod
    def initial(cls) -> Position:
        """The starting position (R2)."""
        return cls._trusted(_START)

    @classmethod
    def from_simple(cls, numbers: Sequence[int] | str) -> Position:
        """gnubg's ``set board simple`` form: the mover's bar, points 1-24 (mover positive,
        opponent negative), then the opponent's bar."""
        if isinstance(numbers, str):
            try:
                numbers = [int(x) for x in numbers.replace(",", " ").split()]
            except ValueError as exc:
                raise InvalidPositionError(f"simple board: not a number in {numbers!r}") from exc
        if len(numbers) != 26:
            raise InvalidPositionError(f"simple board needs 26 numbers, got {len(numbers)}")
        if numbers[0] < 0 or numbers[25] < 0:
            raise InvalidPositionError("simple board: bar counts must not be negative")
        return cls([-numbers[25], *numbers[1:25], numbers[0]])

    @classmethod
    def from_arrays(cls, not_on_roll: Sequence[int], on_roll: Sequence[int]) -> Position:
        """From gnubg's two 25-slot arrays (each from its own side, slot 24 = bar)."""
        if len(not_on_roll) != 25 or len(on_roll) != 25:
            raise InvalidPositionError("each side needs 25 slots (points 1-24 and the bar)")
        if min(not_on_roll) < 0 or min(on_roll) < 0:
            raise InvalidPositionError("checker counts must not be negative")
        b = [0] * 26
        b[0] = -not_on_roll[24]
        b[25] = on_roll[24]
        for i in range(24):
            mine, theirs = on_roll[i], not_on_roll[23 - i]
            if mine and theirs:
                raise InvalidPositionError(f"both sides have checkers on point {i + 1}")
            b[i + 1] = mine - theirs
        return cls(b)

    @classmethod
    def from_position_id(cls, text: str) -> Position:
        """Decode a GNU Backgammon Position ID (14 characters; docs/formats.md §1)."""
        text = _text(text, "a Position ID")
        if len(text) != 14:
            raise InvalidPositionError(f"a Position ID has 14 characters, got {len(text)}")
        try:
            raw = base64.b64decode(text + "==", validate=True)
        except ValueError as exc:
            raise InvalidPositionError(f"not a Position ID (bad characters): {text!r}") from exc
        bits = int.from_bytes(raw, "little")
        arrays: list[list[int]] = [[0] * 25, [0] * 25]
        side = slot = 0
        for k in range(80):
            if bits >> k & 1:
                if side > 1:
                    raise InvalidPositionError(f"Position ID {text!r} has too many checkers")
                arrays[side][slot] += 1
            else:
                slot += 1
                if slot == 25:
                    side, slot = side + 1, 0
        if side < 2:
            raise InvalidPositionError(f"Position ID {text!r} does not describe two sides")
        return cls.from_arrays(arrays[0], arrays[1])

    @classmethod
    def from_xgid(cls, text: str) -> Position:
        """From an XGID (or just its 26-character position part), with the side on roll."""
        text = _text(text, "an XGID")
        if text.startswith("XGID="):
            text = text[5:]
        fields = text.split(":")
        chars = fields[0]
        turn = 1
        if len(fields) >= 4:
            try:
                turn = int(fields[3])
            except ValueError as exc:
                raise InvalidPositionError(f"XGID turn field {fields[3]!r} is not 1 or -1") from exc
        if len(chars) != 26:
            raise InvalidPositionError(f"XGID position needs 26 characters, got {len(chars)}")
        bottom = [0] * 26  # bottom's view, same layout as our board with bottom to move
        for i, c in enumerate(chars):
            if c == "-":
                continue
            if "A" <= c <= "P":
                n = ord(c) - 64
                if i == 0:
                    raise InvalidPositionError("XGID: character 0 is the top player's bar")
                bottom[i] = n
            elif "a" <= c <= "p":
                n = ord(c) - 96
                if i == 25:
                    raise InvalidPositionError("XGID: character 25 is the bottom player's bar")
                bottom[i] = -n
            else:
                raise InvalidPositionError(f"XGID: bad character {c!r} at {i}")
        pos = cls(bottom)
        if turn == 1:
            return pos
        if turn == -1:
            return pos.flip()
        raise InvalidPositionError(f"XGID turn must be 1 or -1, got {turn}")

    # ----------------------------------------------------------------- reading
    @property
    def board(self) -> tuple[int, ...]:
        """The 26-number board (see the module docstring)."""
        return self._board

    def arrays(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gnubg's two 25-slot arrays: (not on roll, on roll), each from its own side."""
        b = self._board
        on_roll = (*(x if x > 0 else 0 for x in b[1:25]), b[25])
        not_on_roll = (*(-x if x < 0 else 0 for x in b[24:0:-1]), -b[0])
        return not_on_roll, on_roll

    def simple(self) -> tuple[int, ...]:
        """gnubg's ``set board simple`` numbers for this position."""
        b = self._board
        return (b[25], *b[1:25], -b[0])

    def checkers(self, point: int) -> int:
        """The mover's checkers on a point (1-24, 25 = bar, 0 = borne off)."""
        if point == OFF:
            return self.off[0]
        return max(self._board[point], 0)

    def opponent_checkers(self, point: int) -> int:
        """The opponent's checkers on a point numbered from the *mover's* side.

        Point 0 gives the opponent's bar (the opponent enters on our home board).
        """
        return max(-self._board[point], 0)

    @property
    def bar(self) -> tuple[int, int]:
        """Checkers on the bar: (mover, opponent)."""
        return self._board[25], -self._board[0]

    @property
    def off(self) -> tuple[int, int]:
        """Checkers borne off: (mover, opponent)."""
        b = self._board
        return (
            CHECKERS - sum(x for x in b if x > 0),
            CHECKERS + sum(x for x in b if x < 0),
        )

    def pip_counts(self) -> tuple[int, int]:
        """Pips each side needs to bear off everything: (mover, opponent)."""
        b = self._board
        mine = sum(i * x for i, x in enumerate(b) if x > 0)
        theirs = sum((25 - i) * -x for i, x in enumerate(b) if x < 0)
        return mine, theirs

    def is_race(self) -> bool:
        """True when contact is over: every mover checker is past every opponent checker."""
        b = self._board
        mine = max((i for i in range(26) if b[i] > 0), default=0)
        theirs = min((i for i in range(26) if b[i] < 0), default=25)
        return mine < theirs

    def can_bear_off(self) -> bool:
        """True when all the mover's checkers on the board are in the home board (R14)."""
        return all(x <= 0 for x in self._board[7:])

    def flip(self) -> Position:
        """The same position seen from the other side (the other side to move)."""
        return Position._trusted(tuple([-x for x in reversed(self._board)]))

    def outcome(self) -> Outcome | None:
        """The result if one side has borne off all 15 checkers (R18-R19), else None."""
        b = self._board
        mine_left = sum(x for x in b if x > 0)
        theirs_left = -sum(x for x in b if x < 0)
        if mine_left and theirs_left:
            return None
        if not mine_left:
            loser_off, loser_back = CHECKERS - theirs_left, any(x < 0 for x in b[:7])
            winner_on_roll = True
        else:
            loser_off, loser_back = CHECKERS - mine_left, any(x > 0 for x in b[19:])
            winner_on_roll = False
        if loser_off:
            result = GameResult.SINGLE
        elif loser_back:
            result = GameResult.BACKGAMMON
        else:
            result = GameResult.GAMMON
        return Outcome(winner_on_roll, result)

    def is_game_over(self) -> bool:
        """True when one side has borne off all its checkers (R18)."""
        b = self._board
        return not any(x > 0 for x in b) or not any(x < 0 for x in b)

    # ----------------------------------------------------------------- ids
    def position_id(self) -> str:
        """The GNU Backgammon Position ID (14 characters; formats.md §1)."""
        bits = 0
        k = 0
        for array in self.arrays():
            for n in array:
                bits |= ((1 << n) - 1) << k
                k += n + 1
        return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii")[:14]

    def xgid_position(self, bottom_on_roll: bool = True) -> str:
        """The 26-character position part of an XGID.

        XGID draws the board from the bottom player's side; pass False when the side to
        move is the top player.
        """
        b = self._board if bottom_on_roll else self.flip()._board
        out = []
        for x in b:
            if x > 0:
                out.append(chr(64 + x))
            elif x < 0:
                out.append(chr(96 - x))
            else:
                out.append("-")
        return "".join(out)

    # ----------------------------------------------------------------- plays
    def legal_moves(self, dice: Sequence[int]) -> list[Move]:
        """Every legal play of a roll, one per distinct resulting position (R5-R17).

        The order is deterministic.  An empty list means the turn is lost (R10).
        """
        # The common case, a tuple of two ints, checked here without a further call.
        if type(dice) is tuple and len(dice) == 2:
            d1, d2 = dice
            if not (type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6):
                d1, d2 = check_dice(dice)
        else:
            d1, d2 = check_dice(dice)
        return _generate(self._board, d1, d2) if d1 >= d2 else _generate(self._board, d2, d1)

    def play(self, move: Iterable[Step]) -> Position:
        """The position after a play, seen from the opponent (who moves next).

        The play is applied as given; use a play from :meth:`legal_moves` or
        :meth:`parse_move` (this method checks each step, not the whole roll).
        """
        b = list(self._board)
        for step in move:
            _step_onto(b, step)
        b.reverse()
        return Position._trusted(tuple([-x for x in b]))

    def apply_steps(self, steps: Iterable[Sequence[int]]) -> Position:
        """The position after some steps (a play or a part of one), still from the mover's side.

        Each step is ``(from, to)`` or ``(from, to, hit)`` (the hit flag is ignored) and is
        checked to be one checker's possible move; whether the dice allow it is the
        concern of :meth:`legal_moves` and :class:`backgammon.turn.TurnEntry`.
        """
        b = list(self._board)
        for step in _steps_of(steps):
            _step_onto(b, step)
        return Position._trusted(tuple(b))

    def move_of(self, steps: Iterable[Sequence[int]]) -> Move:
        """The steps as a :class:`Move`, played in order, with their hit flags from the board.

        Raises :class:`IllegalMoveError` when a step is not two point numbers or no checker
        can make it; it does not check the dice.
        """
        b = list(self._board)
        return Move(_step_onto(b, step) for step in _steps_of(steps))

    @property
    def is_closed_out(self) -> bool:
        """True when the side to move is on the bar and every entry point is closed (R13)."""
        b = self._board
        return b[BAR] > 0 and all(x <= -2 for x in b[19:25])

    def parse_move(self, text: str, dice: Sequence[int]) -> Move:
        """The legal play of ``dice`` that ``text`` (gnubg notation, read leniently) means.

        Raises :class:`InvalidMoveTextError` for unreadable text, :class:`IllegalMoveError`
        for a play that is not legal and :class:`AmbiguousMoveError` for text that could
        mean more than one legal play.
        """
        from backgammon.notation import parse_move  # notation depends on this module

        return parse_move(self, text, dice)

    def is_legal(self, move: Move, dice: Sequence[int]) -> bool:
        """True when ``move`` reaches the same position as a legal play of ``dice``."""
        try:
            target = self.play(move)
        except IllegalMoveError:
            return False
        return any(self.play(m) == target for m in self.legal_moves(dice))

    # ----------------------------------------------------------------- dunder
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._board == other._board

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Position.from_position_id({self.position_id()!r})"

    def __str__(self) -> str:
        return render_text(self)

    def _repr_svg_(self) -> str:
        """The board as SVG, so notebooks draw positions (made by backgammon.svg)."""
        from backgammon.svg import board_svg  # a side module; the core does not need it

        return board_svg(self)


def check_dice(dice: object) -> tuple[int, int]:
    """The pair as given, checked to be two integers 1-6 (order kept); :class:`DiceError`."""
    if isinstance(dice, (str, bytes)) or not isinstance(dice, Sequence) or len(dice) != 2:
        raise DiceError(f"dice must be a pair of numbers 1-6, got {short_repr(dice)}")
    a, b = dice
    for d in (a, b):
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise DiceError(f"dice must be a pair of numbers 1-6, got {short_repr(dice)}")
    return int(a), int(b)


def _text(value: object, what: str) -> str:
    """``value`` stripped, when it is text; :class:`InvalidPositionError` otherwise."""
    if not isinstance(value, str):
        raise InvalidPositionError(f"{what} is text, not {type(value).__name__}")
    return value.strip()


def short_repr(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages about any input."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _steps_of(steps: object) -> Iterable[object]:
    """``steps`` as an iterable of steps, or :class:`IllegalMoveError` (text is not steps)."""
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Iterable):
        raise IllegalMoveError(f"a play is a sequence of (from, to) steps, not {short_repr(steps)}")
    return steps


def _point_number(x: object, step: object) -> int:
    """``x`` as a point number (any integer type but bool), or :class:`IllegalMoveError`."""
    if isinstance(x, bool):
        raise IllegalMoveError(f"a step is two point numbers, not {short_repr(step)}")
    try:
        return operator.index(x)  # type: ignore[arg-type]
    except TypeError as exc:
        raise IllegalMoveError(f"a step is two point numbers, not {short_repr(step)}") from exc


def _step_onto(b: list[int], step: object) -> Step:
    """Move one checker on the mutable board ``b`` (mover's side); the step with its hit flag.

    The one place a step is made: :meth:`Position.play`, :meth:`Position.apply_steps` and
    :meth:`Position.move_of` all use it.
    """
    try:
        s, t = step[0], step[1]  # type: ignore[index]
    except (TypeError, IndexError, KeyError) as exc:
        raise IllegalMoveError(f"a step is (from, to), not {short_repr(step)}") from exc
    if type(s) is not int or type(t) is not int:
        s, t = _point_number(s, step), _point_number(t, step)
    if not 1 <= s <= BAR or not OFF <= t < s or b[s] <= 0:
        raise IllegalMoveError(f"no checker can move {s}/{t} in this position")
    b[s] -= 1
    if t == OFF:
        return (s, t, False)
    x = b[t]
    if x < -1:
        raise IllegalMoveError(f"point {t} is closed")
    if x == -1:
        b[t] = 1
        b[0] -= 1
        return (s, t, True)
    b[t] = x + 1
    return (s, t, False)


def _check_board(b: tuple[int, ...]) -> None:
    if len(b) != 26:
        raise InvalidPositionError(f"a board has 26 numbers, got {len(b)}")
    if b[0] > 0:
        raise InvalidPositionError("board[0] is the opponent's bar and must be <= 0")
    if b[25] < 0:
        raise InvalidPositionError("board[25] is the mover's bar and must be >= 0")
    mine = sum(x for x in b if x > 0)
    theirs = -sum(x for x in b if x < 0)
    if mine > CHECKERS:
        raise InvalidPositionError(f"the side to move has {mine} checkers (at most 15)")
    if theirs > CHECKERS:
        raise InvalidPositionError(f"the opponent has {theirs} checkers (at most 15)")


# --------------------------------------------------------------------- generation
#
# Distinct results are what count (R10), so the generators enumerate results, not spellings.
#
# Non-doubles: a play is a step with each die.  When nothing can be borne off within the
# roll and no checker is on the bar, two steps by different checkers do not interfere, so
# the plays are (larger die, smaller die) pairs of steps legal on the original board, plus
# one checker taking both dice in either order; otherwise a depth-first search tries both
# orders.  Results are kept once each under an exact integer key (see _P).
#
# Doubles: a play is fully described by how many steps start from each point, f(s), taken
# in descending order of source (as gnubg does), and different f give different results,
# so enumerating f gives each result exactly once, with no duplicates to remove: nested
# loops when no checker is on the bar and nothing can be borne off, a search otherwise.


def _generate(board: tuple[int, ...], hi_die: int, lo_die: int) -> list[Move]:
    if hi_die == lo_die:
        if board[25]:
            return _generate_double_bar(board, hi_die)
        if sum([x for x in board[7:25] if x > 0]) >= 4:
            return _generate_double_free(board, hi_die)
        return _generate_double(board, hi_die)
    occupied = [s for s in _POINTS_DOWN if board[s] > 0]
    bar = board[25]
    if bar:
        return _generate_two_bar(board, occupied, hi_die, lo_die)
    if sum([board[s] for s in occupied if s > 6]) >= 2:
        return _generate_two_free(board, occupied, hi_die, lo_die)
    return _generate_two(list(board), occupied, hi_die, lo_die)


def _generate_two_bar(b: tuple[int, ...], occupied: list[int], hi: int, lo: int) -> list[Move]:
    """Non-doubles with checkers on the bar (R12-R13); nothing can be borne off."""
    new = tuple.__new__
    t_hi, t_lo = BAR - hi, BAR - lo
    hi_open, lo_open = b[t_hi] >= -1, b[t_lo] >= -1
    if b[BAR] > 1:  # both dice must enter if they can (R9, R12)
        steps = [(BAR, t, b[t] == -1) for t, ok in ((t_hi, hi_open), (t_lo, lo_open)) if ok]
        return [new(Move, steps)] if len(steps) == 2 else [new(Move, steps[:1])] if steps else []
    # As in _generate_two_free: the entered checker going on (or one from where it
    # entered) is one checker taking both dice, a result told by the blot it hit on the
    # way; every other play is a result no other play gives.
    plays: list[Move] = []
    one_checker: set[int] = set()
    for t1, ok, db in ((t_hi, hi_open, lo), (t_lo, lo_open, hi)):
        if not ok:
            continue
        hit1 = b[t1] == -1
        step1 = (BAR, t1, hit1)
        for s2 in occupied if b[t1] > 0 else [t1, *occupied]:
            t2 = s2 - db
            if t2 <= 0:
                continue  # the entered checker is outside: no bearing off (R14)
            x = b[t2]
            if x < -1:
                continue
            if s2 == t1:
                key = t1 if hit1 else 0
                if key in one_checker:
                    continue
                one_checker.add(key)
            plays.append(new(Move, (step1, (s2, t2, t2 != t1 and x == -1))))
    if plays:
        return plays
    # R9: one number only: the larger if it can enter.
    if hi_open:
        return [new(Move, ((BAR, t_hi, b[t_hi] == -1),))]
    if lo_open:
        return [new(Move, ((BAR, t_lo, b[t_lo] == -1),))]
    return []


def _generate_two_free(b: tuple[int, ...], occupied: list[int], hi: int, lo: int) -> list[Move]:
    """Non-doubles with no checker on the bar and no bear-off possible within the roll.

    Two checkers that each take one die give a result no other play gives, unless one
    lands where the other starts (then one checker takes both dice in effect); only those
    one-checker results can come more than once.  One checker from ``a`` always ends on
    ``a - hi - lo``, so such a result is told by ``a`` and the blot it hit on the way, if any.
    """
    new = tuple.__new__
    hi_src = [s for s in occupied if s > hi and b[s - hi] >= -1]
    lo_steps: list[tuple[int, int, Step]] = []  # the smaller die's steps, made once
    for s in occupied:
        if s > lo and b[s - lo] >= -1:
            t = s - lo
            lo_steps.append((s, t, (s, t, b[t] == -1)))
    plays: list[Move] = []
    add = plays.append
    one_checker: set[int] = set()  # 32 * a + the point of the blot hit on the way (or 0)
    for s1 in hi_src:
        t1 = s1 - hi
        hit1 = b[t1] == -1
        step1 = (s1, t1, hit1)
        last = b[s1] == 1
        up = s1 + lo  # the smaller die from there lands on s1
        for s2, t2, step2 in lo_steps:
            if s2 == t1 or s2 == up:  # noqa: SIM109 (one checker in effect; faster than `in`)
                key = 32 * (s1 if s1 > s2 else s2)  # passing over a point of ours
                if key not in one_checker:
                    one_checker.add(key)
                    add(new(Move, (step1, step2)))
            elif s2 == s1 and last:
                continue
            elif t2 == t1 and hit1:  # the blot is gone: the second checker joins the first
                add(new(Move, (step1, (s2, t2, False))))
            else:
                add(new(Move, (step1, step2)))
        t2 = t1 - lo
        if b[t1] <= 0 and t2 > 0 and b[t2] >= -1:  # the same checker goes on (R7)
            key = 32 * s1 + (t1 if hit1 else 0)
            if key not in one_checker:
                one_checker.add(key)
                add(new(Move, (step1, (t1, t2, b[t2] == -1))))
    for s1, t1, step1 in lo_steps:  # one checker, smaller die first (R7: its landing point open)
        t2 = t1 - hi
        if t2 <= 0 or b[t2] < -1:
            continue
        key = 32 * s1 + (t1 if step1[2] else 0)
        if key not in one_checker:
            one_checker.add(key)
            add(new(Move, (step1, (t1, t2, b[t2] == -1))))
    if plays:
        return plays
    # R9: only one number can be played: the larger if it can be.
    if hi_src:
        return [new(Move, ((s, s - hi, b[s - hi] == -1),)) for s in hi_src]
    return [new(Move, (step,)) for _, _, step in lo_steps]


def _generate_two(b: list[int], occupied: list[int], hi_die: int, lo_die: int) -> list[Move]:
    """Non-doubles in general (bar, bear-off): both orders of the dice, step by step."""
    P = _P
    two: dict[int, tuple[Step, Step]] = {}
    one: tuple[dict[int, Step], dict[int, Step]] = ({}, {})
    first_sources = [BAR] if b[25] else occupied
    out = sum(x for x in b[7:] if x > 0)
    for order, (da, db) in enumerate(((hi_die, lo_die), (lo_die, hi_die))):
        for s1 in first_sources:
            t1 = s1 - da
            if t1 > 0:
                x1 = b[t1]
                if x1 < -1:
                    continue
                hit1 = x1 == -1
            else:
                if out:
                    continue
                if t1 < 0 and s1 < occupied[0]:
                    continue  # R15: a larger number bears off only from the highest point
                t1 = 0
                hit1 = False
            b[s1] -= 1
            key1 = -P[s1]
            out1 = out - (s1 > 6 and t1 <= 6)
            if t1:
                if hit1:
                    b[t1] = 1
                    b[0] -= 1
                    key1 += 2 * P[t1] - 1
                else:
                    b[t1] += 1
                    key1 += P[t1]
            step1 = (s1, t1, hit1)
            # The highest point holding a checker of ours now (what R15 asks of the second).
            if s1 != occupied[0] or b[s1]:
                high = occupied[0]
            else:
                high = max(occupied[1] if len(occupied) > 1 else 0, t1)
            second: tuple[int, ...]
            if b[25]:
                second = (BAR,)
            elif t1 and t1 not in occupied:
                second = (*occupied, t1)
            else:
                second = tuple(occupied)
            found = False
            for s2 in second:
                if b[s2] <= 0:
                    continue
                t2 = s2 - db
                if t2 > 0:
                    x2 = b[t2]
                    if x2 < -1:
                        continue
                    key = key1 - P[s2] + (2 * P[t2] - 1 if x2 == -1 else P[t2])
                    step2 = (s2, t2, x2 == -1)
                else:
                    if out1:
                        continue
                    if t2 < 0 and s2 < high:
                        continue
                    key = key1 - P[s2]
                    step2 = (s2, 0, False)
                found = True
                if key not in two:
                    two[key] = (step1, step2)
            if not found and not two:
                one[order].setdefault(key1, step1)  # R9: this die alone
            b[s1] += 1
            if t1:
                if hit1:
                    b[t1] = -1
                    b[0] += 1
                else:
                    b[t1] -= 1
    new = tuple.__new__
    if two:
        return [new(Move, steps) for steps in two.values()]
    # R9: if only one number can be played, play the larger if it can be played.
    singles = one[0] or one[1]
    return [new(Move, (step,)) for step in singles.values()]


def _generate_double_bar(b: tuple[int, ...], die: int) -> list[Move]:
    """Doubles with checkers on the bar: they all enter first (R12-R13), then the numbers
    left move any checker; nothing can be borne off within the roll (an entered checker
    needs every number left to come home), so landing points stay open or closed."""
    entry = BAR - die
    if b[entry] < -1:
        return []  # R13: closed entry point
    new = tuple.__new__
    entering = min(b[BAR], 4)
    prefix: tuple[Step, ...] = ((BAR, entry, b[entry] == -1),) + ((BAR, entry, False),) * (
        entering - 1
    )
    if entering == 4 or b[BAR] > entering:
        return [new(Move, prefix)]
    have = [x if x > 0 else 0 for x in b]
    have[BAR] = 0
    have[entry] += entering
    kept = [False] * 32
    sources = []
    for s in range(24, die, -1):
        if (have[s] or kept[s + die]) and b[s - die] >= -1:
            kept[s] = True
            sources.append(s)
    blot = [x == -1 for x in b]
    blot[entry] = False
    n = len(sources)
    found: list[list[Move]] = [[], [], [], [], []]

    def search(start: int, left: int, steps: tuple[Step, ...], previous: int) -> None:
        more = False
        for i in range(start, n):
            s = sources[i]
            if not have[s]:
                continue
            more = True
            t = s - die
            step = (s, t, blot[t] and s != previous)
            if left == 1:
                found[4].append(new(Move, steps + (step,)))  # noqa: RUF005 (faster)
                continue
            have[s] -= 1
            have[t] += 1
            search(i, left - 1, steps + (step,), s)  # noqa: RUF005 (faster)
            have[s] += 1
            have[t] -= 1
        if not more:
            found[len(steps)].append(new(Move, steps))  # R9: as many as possible

    search(0, 4 - entering, prefix, BAR)
    return next(plays for plays in reversed(found) if plays)


def _generate_double_free(b: tuple[int, ...], die: int) -> list[Move]:
    """Doubles with no checker on the bar and no bear-off possible within the roll.

    Every landing point's openness is then fixed for the whole roll, so a play is a
    multiset of up to four step sources, taken in descending order (as in
    :func:`_generate_double`); nested loops over non-increasing sources enumerate each
    multiset, hence each result, exactly once.
    """
    kept = [False] * 32
    sources = []
    for s in range(24, die, -1):
        if (b[s] > 0 or kept[s + die]) and b[s - die] >= -1:
            kept[s] = True
            sources.append(s)
    have = [x if x > 0 else 0 for x in b]  # checkers on each point as the play goes on
    # Each source's step, made once: the first landing on a blot hits it (R11), a step
    # from the same point as the one before lands where that one hit.
    first: list[Step | None] = [None] * 26
    again: list[Step | None] = [None] * 26
    for s in sources:
        first[s] = (s, s - die, b[s - die] == -1)
        again[s] = (s, s - die, False)
    # The sources from each one down (itself included), and below it.
    down: list[list[int]] = [[]] * 26
    below: list[list[int]] = [[]] * 26
    for i, s in enumerate(sources):
        down[s] = sources[i:]
        below[s] = sources[i + 1 :]
    new = tuple.__new__
    four: list[Move] = []
    three: list[Move] = []
    two: list[Move] = []
    one: list[Move] = []
    for s1 in sources:
        if not have[s1]:
            continue
        t1 = s1 - die
        have[s1] -= 1
        have[t1] += 1
        step1 = first[s1]
        more1 = False
        for s2 in down[s1]:
            if not have[s2]:
                continue
            more1 = True
            t2 = s2 - die
            step2 = again[s2] if s2 == s1 else first[s2]
            have[s2] -= 1
            have[t2] += 1
            more2 = False
            for s3 in down[s2]:
                if not have[s3]:
                    continue
                more2 = True
                t3 = s3 - die
                step3 = again[s3] if s3 == s2 else first[s3]
                have[s3] -= 1
                have[t3] += 1
                if have[s3]:  # the fourth step: from s3 again, or from a lower source
                    four.append(new(Move, (step1, step2, step3, again[s3])))
                for s4 in below[s3]:
                    if have[s4]:
                        four.append(new(Move, (step1, step2, step3, first[s4])))
                if not four:  # R9: as many numbers as possible
                    three.append(new(Move, (step1, step2, step3)))
                have[s3] += 1
                have[t3] -= 1
            if not more2 and not (four or three):
                two.append(new(Move, (step1, step2)))
            have[s2] += 1
            have[t2] -= 1
        if not more1 and not (four or three or two):
            one.append(new(Move, (step1,)))
        have[s1] += 1
        have[t1] -= 1
    return four or three or two or one


def _generate_double(b: tuple[int, ...], die: int) -> list[Move]:
    """Doubles (R8) in general (bar, bear-off): a search over how many steps start from
    each point, highest first."""
    bar = b[25]
    if bar and b[25 - die] < -1:
        return []  # R13: the entry point is closed, nothing can move
    # Points a step can ever start from: holding a checker or reached from such a point,
    # with an open landing point (bearing off is checked as the search goes).
    sources = []
    kept = [False] * 32
    for s in range(25, 0, -1):
        t = s - die
        if (b[s] > 0 or kept[s + die]) and (t <= 0 or b[t] >= -1):
            kept[s] = True
            sources.append(s)
    own = [x if x > 0 else 0 for x in b]
    # run[s]: at most how many steps one checker on s can still take (our steps never close
    # a point), for pruning branches that cannot reach the most dice already found (R9).
    run = [0] * 26
    for s in range(1, 26):
        t = s - die
        run[s] = 1 if t <= 0 else 0 if b[t] < -1 else min(4, 1 + run[t])
    count = len(sources)
    reach = [0] * (count + 1)
    for i in range(count - 1, -1, -1):
        reach[i] = reach[i + 1] + own[sources[i]] * run[sources[i]]
    f = [0] * 32  # steps started from each point (index up to 25 + die)
    plays: list[Move] = []
    best = 0
    new = tuple.__new__

    def search(i: int, left: int, pending: int, outside: int, steps: tuple[Step, ...]) -> None:
        # pending: steps still open to checkers that arrived on points not yet visited;
        # outside: checkers not yet in the home board.  Points where nothing can start are
        # skipped in the loop; choosing zero steps at a point is the loop's next turn.
        nonlocal best, plays
        while left and i < count:
            bound = reach[i] + pending
            if 4 - left + (left if left < bound else bound) < best:
                return
            s = sources[i]
            i += 1
            arrived = f[s + die]
            avail = own[s] + arrived
            if not avail:
                continue
            pending -= arrived * run[s]
            t = s - die
            if t > 0:
                x = b[t]
                hit = x == -1
                entering = s > 6 >= t
            else:
                # R14-R15: everything home, and a larger number only from the highest point.
                if outside or (t and any(own[p] - f[p] + f[p + die] for p in range(s + 1, 7))):
                    continue
                t = 0
                hit = False
                entering = False
            first = (s, t, hit)
            rest = (s, t, False)
            top = left if avail > left else avail
            taken = steps + (first,)  # noqa: RUF005 (faster than unpacking)
            for k in range(top, top - 1 if s == BAR else 0, -1):
                if k == left:  # the last of the four numbers: a complete play, no search
                    move = new(Move, taken + (rest,) * (k - 1) if k > 1 else taken)
                    if best == 4:
                        plays.append(move)
                    else:
                        best = 4
                        plays = [move]
                    continue
                f[s] = k
                search(
                    i,
                    left - k,
                    pending + k * run[t] if t else pending,
                    outside - k if entering else outside,
                    taken + (rest,) * (k - 1) if k > 1 else taken,
                )
            f[s] = 0
            if s == BAR:
                return  # R12: every checker on the bar enters first
        used = 4 - left
        if used > best:
            best = used
            plays = [new(Move, steps)]
        elif used == best and used:
            plays.append(new(Move, steps))

    search(0, 4, 0, sum(own[7:]), ())
    return plays


# --------------------------------------------------------------------- text board


def render_text(pos: Position) -> str:
    """A gnubg-like text board with the mover (X) at the bottom, plus the Position ID."""
    b = pos.board

    def cell(point: int, row: int) -> str:
        n = b[point]
        mark = "X" if n > 0 else "O"
        n = abs(n)
        if n == 0 or row >= n:
            return " . " if row == 0 and n == 0 else "   "
        if row == 4 and n > 5:
            return f"{n:^3}"
        return f" {mark} "

    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    lines = [f"Position ID: {pos.position_id()}"]
    lines.append(" +13-14-15-16-17-18------19-20-21-22-23-24-+")
    for row in range(5):
        left = "".join(cell(p, row) for p in top[:6])
        right = "".join(cell(p, row) for p in top[6:])
        lines.append(f" |{left}|   |{right}|")
    opp_bar, my_bar = -b[0], b[25]
    lines.append(f" |{' ' * 18}|BAR|{' ' * 18}|  O bar: {opp_bar}  X bar: {my_bar}")
    for row in range(4, -1, -1):
        left = "".join(cell(p, row) for p in bottom[:6])
        right = "".join(cell(p, row) for p in bottom[6:])
        lines.append(f" |{left}|   |{right}|")
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+")
    mine, theirs = pos.pip_counts()
    off_me, off_them = pos.off
    lines.append(f" X (on roll): pips {mine}, off {off_me}    O: pips {theirs}, off {off_them}")
    return "\n".join(lines)


def iter_rolls() -> Iterator[tuple[int, int]]:
    """The 21 distinct rolls, larger die first."""
    for a in range(1, 7):
        for b in range(1, a + 1):
            yield a, b


def iter_weighted_rolls() -> Iterator[tuple[int, int, int]]:
    """The 21 distinct rolls with their chances out of 36 (1 for a double, 2 otherwise)."""
    for a, b in iter_rolls():
        yield a, b, 1 if a == b else 2
