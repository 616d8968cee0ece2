"""The rules core: positions, plays and their generation (rules R1-R19 of docs/rules.md).

A :class:`Position` is an immutable board seen from the side to move.  Internally it is a
tuple of 26 signed counts::

    board[0]      = -(opponent's checkers on the bar)       (always <= 0)
    board[1..24]  = point p from the mover's side: > 0 mover's checkers, < 0 opponent's
    board[25]     = mover's checkers on the bar             (always >= 0)

so the opponent's point ``q`` is our ``25 - q`` and :meth:`Position.flip` is a reversal with
a change of sign.  Checkers borne off are the ones missing from the 15.

Its text codecs (gnubg's Position ID, the XGID's position part) live here too, so the
core needs no higher layer.  This module depends on nothing but the standard library.
"""

from __future__ import annotations

import base64
import operator
from collections.abc import Iterable, Sequence

from backgammon.core.diagram import render_text
from backgammon.core.movegen import generate
from backgammon.core.notation import parse_move
from backgammon.core.values import (
    BAR,
    CHECKERS,
    OFF,
    GameResult,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    Step,
    check_dice,
    short_repr,
)

__all__ = [
    "Position",
    "decode_position_id",
    "encode_position_id",
    "position_from_xgid",
    "xgid_board",
    "xgid_position",
]

_START = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)


class Position:
    """An immutable, hashable backgammon position seen from the side to move.

    >>> pos = Position.initial()
    >>> pos.pip_counts(), pos.off
    ((167, 167), (0, 0))
    >>> after = pos.play(pos.parse_move("8/5 6/5", (3, 1)))  # seen from the other side now
    >>> after.position_id(), after.flip().checkers(5)
    ('sGfwATDgc/ABMA', 2)
    >>> Position.from_position_id("sGfwATDgc/ABMA") == after
    True
    """

    __slots__ = ("_board", "_hash", "_plays")

    _board: tuple[int, ...]
    _hash: int
    _plays: tuple[int, int, tuple[Move, ...]] | None
    """The last roll asked of :meth:`legal_moves` and its plays: a match asks a turn's
    plays several times (to roll, to list, to play), and a position never changes."""

    def __init__(self, board: Sequence[int]) -> None:
        """Make a position from the 26-number board (see the module docstring); checked."""
        b = tuple(int(x) for x in board)
        _check_board(b)
        self._board = b
        self._hash = hash(b)
        self._plays = None

    @classmethod
    def _trusted(cls, board: tuple[int, ...]) -> Position:
        pos = object.__new__(cls)
        pos._board = board
        pos._hash = hash(board)
        pos._plays = None
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
        return decode_position_id(text)

    @classmethod
    def from_xgid(cls, text: str) -> Position:
        """From an XGID (or just its 26-character position part), with the side on roll."""
        return position_from_xgid(text)

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
        """The result if one side has borne off all 15 checkers (R18-R19), else None.

        >>> last = Position.from_simple([0, 1, *[0] * 11, -15, *[0] * 11, 0])
        >>> last.play(last.legal_moves((2, 1))[0]).outcome()  # none of the 15 off: a gammon
        Outcome(winner_on_roll=False, result=<GameResult.GAMMON: 2>)
        """
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
        return encode_position_id(self)

    def xgid_position(self, bottom_on_roll: bool = True) -> str:
        """The 26-character position part of an XGID.

        XGID draws the board from the bottom player's side; pass False when the side to
        move is the top player.
        """
        return xgid_position(self, bottom_on_roll)

    # ----------------------------------------------------------------- plays
    def legal_moves(self, dice: Sequence[int]) -> list[Move]:
        """Every legal play of a roll, one per distinct resulting position (R5-R17).

        The order is deterministic.  An empty list means the turn is lost (R10).

        >>> [str(m) for m in Position.initial().legal_moves((6, 5))]
        ['24/18 13/8', '24/18 8/3', '24/13', '13/8 13/7', '13/7 8/3', '13/2', '8/3 8/2']
        """
        # The common case, a tuple of two ints, checked here without a further call.
        if type(dice) is tuple and len(dice) == 2:
            d1, d2 = dice
            if not (type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6):
                d1, d2 = check_dice(dice)
        else:
            d1, d2 = check_dice(dice)
        hi, lo = (d1, d2) if d1 >= d2 else (d2, d1)
        memo = self._plays
        if memo is not None and memo[0] == hi and memo[1] == lo:
            return list(memo[2])
        moves = generate(self._board, hi, lo)
        self._plays = (hi, lo, tuple(moves))
        return moves

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
        concern of :meth:`legal_moves` and :class:`backgammon.core.turn.TurnEntry`.
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


# ------------------------------------------------------------------------------ Position ID
def encode_position_id(position: Position) -> str:
    """The GNU Backgammon Position ID of ``position`` (14 characters; formats.md §1).

    >>> encode_position_id(Position.initial())
    '4HPwATDgc/ABMA'
    """
    bits = 0
    k = 0
    for array in position.arrays():
        for n in array:
            bits |= ((1 << n) - 1) << k
            k += n + 1
    return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii")[:14]


def decode_position_id(text: str) -> Position:
    """The position of a Position ID; :class:`InvalidPositionError` for anything else.

    >>> decode_position_id("sGfwATDgc/ABMA").pip_counts()  # after 8/5 6/5, the other side's
    (167, 163)
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"a Position ID is text, not {type(text).__name__}")
    text = text.strip()
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
    return Position.from_arrays(arrays[0], arrays[1])


# ------------------------------------------------------------------------------ XGID position
def xgid_position(position: Position, bottom_on_roll: bool = True) -> str:
    """The 26-character position part of an XGID.

    XGID draws the board from the bottom player's side; pass False when the side to move
    is the top player.
    """
    b = position.board if bottom_on_roll else position.flip().board
    out = []
    for x in b:
        if x > 0:
            out.append(chr(64 + x))
        elif x < 0:
            out.append(chr(96 - x))
        else:
            out.append("-")
    return "".join(out)


def xgid_board(chars: str, turn: int) -> Position:
    """The position of an XGID's 26 position characters, seen from the side on roll."""
    if len(chars) != 26:
        raise InvalidPositionError(f"XGID position needs 26 characters, got {len(chars)}")
    bottom = [0] * 26  # bottom's view, same layout as our board with bottom to move
    for i, c in enumerate(chars):
        if c == "-":
            continue
        if "A" <= c <= "P":
            if i == 0:
                raise InvalidPositionError("XGID: character 0 is the top player's bar")
            bottom[i] = ord(c) - 64
        elif "a" <= c <= "p":
            if i == 25:
                raise InvalidPositionError("XGID: character 25 is the bottom player's bar")
            bottom[i] = -(ord(c) - 96)
        else:
            raise InvalidPositionError(f"XGID: bad character {c!r} at {i}")
    pos = Position(bottom)
    if turn == 1:
        return pos
    if turn == -1:
        return pos.flip()
    raise InvalidPositionError(f"XGID turn must be 1 or -1, got {turn}")


def position_from_xgid(text: str) -> Position:
    """The position of an XGID (or just its 26-character position part), from the side on
    roll; :class:`InvalidPositionError` for anything else."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"an XGID is text, not {type(text).__name__}")
    text = text.strip()
    if text.startswith("XGID="):
        text = text[5:]
    fields = text.split(":")
    turn = 1
    if len(fields) >= 4:
        try:
            turn = int(fields[3])
        except ValueError as exc:
            raise InvalidPositionError(f"XGID turn field {fields[3]!r} is not 1 or -1") from exc
    return xgid_board(fields[0], turn)
