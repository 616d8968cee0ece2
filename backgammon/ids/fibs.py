"""The FIBS ``board:`` line ("rawboard", boardstyle 3), both ways (formats.md §8).

FIBS sends it to clients, gnubg sends it to its external players and UBGI front ends send
it to engines.  This layer reads and writes the 52 fields only, and turns the 26 board
numbers into a :class:`~backgammon.core.position.Position`;
:func:`backgammon.play.ids.state_from_board_line` gives the fields their meaning in a
match.

>>> line = parse_board_line(
...     "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:"
...     "2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
>>> line.player, line.match_length, line.dice, line.position_of_player().position_id()
('You', 3, (6, 2), '4HPwATDgc/ABMA')
>>> format_board_line(line)[:40]
'board:You:someplayer:3:0:0:0:-2:0:0:0:0:'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from backgammon.core.position import Position
from backgammon.core.values import InvalidPositionError, short_repr

__all__ = [
    "FIBS_UNLIMITED",
    "BoardLine",
    "InvalidBoardLineError",
    "board_line_fields",
    "format_board_line",
    "parse_board_line",
]

FIBS_UNLIMITED = 9999  # FIBS's match length for an unlimited (money) match
_FIELDS = 52  # after "board:"
_MAX_TEXT = 1000  # a board line is about 150 characters; longer text is not one
_NUMBER = re.compile(r"[+-]?[0-9]{1,6}")


class InvalidBoardLineError(ValueError):
    """A FIBS board line that is malformed or describes no position."""


@dataclass(frozen=True)
class BoardLine:
    """The fields of a FIBS board line, as written, from the side of ``player`` ("you").

    ``board`` is the 26 numbers: positive for O's checkers, negative for X's; ``colour``
    says which you are (1 O, -1 X) and ``direction`` which way you move (-1: from 24 to 1,
    your home 0 and bar 25; 1: the other way).  ``turn`` is the colour on turn (0: the game
    is over).  ``doubled`` is not 0 while a double awaits an answer (gnubg's sign says who
    doubled).  ``did_crawford`` and ``redoubles`` are the last two fields: gnubg writes
    post-Crawford there, and 0 in the last one only in the Crawford game.
    """

    player: str
    opponent: str
    match_length: int
    score: int
    opponent_score: int
    board: tuple[int, ...]
    turn: int
    dice: tuple[int, int] = (0, 0)
    opponent_dice: tuple[int, int] = (0, 0)
    cube: int = 1
    may_double: bool = True
    opponent_may_double: bool = True
    doubled: int = 0
    colour: int = 1
    direction: int = -1
    home: int = 0
    bar: int = 25
    off: int = 0
    opponent_off: int = 0
    on_bar: int = 0
    opponent_on_bar: int = 0
    can_move: int = 0
    forced_move: int = 0
    did_crawford: int = 0
    redoubles: int = 0

    def index_of(self, point: int) -> int:
        """The board index of the player's ``point`` (1-24 from the player's side)."""
        return point if self.direction < 0 else 25 - point

    def position_of_player(self) -> Position:
        """The checkers as a :class:`Position` seen from the player (as if on roll)."""
        c = self.colour
        board = [0] * 26
        for point in range(1, 25):
            board[point] = self.board[self.index_of(point)] * c
        board[25] = self.board[self.bar] * c
        board[0] = self.board[self.home] * c
        try:
            return Position(board)
        except InvalidPositionError as exc:
            raise InvalidBoardLineError(f"board line: {exc}") from exc


def _int(text: str, what: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise InvalidBoardLineError(f"board line {what} {short_repr(text)} is not a number")
    return int(text)


def _flag(value: int, what: str) -> bool:
    if value not in (0, 1):
        raise InvalidBoardLineError(f"board line {what} must be 0 or 1, got {value}")
    return bool(value)


def _dice(a: int, b: int, what: str) -> tuple[int, int]:
    if not (0 <= a <= 6 and 0 <= b <= 6) or (a == 0) != (b == 0):
        raise InvalidBoardLineError(f"board line {what} {a}, {b} are not two dice or none")
    return a, b


def board_line_fields(text: str) -> list[str]:
    """The 52 ``:``-separated fields after ``board:`` (NUL bytes and white space around the
    line, as gnubg's sockets leave them, are dropped)."""
    if not isinstance(text, str):
        raise InvalidBoardLineError(f"a board line is text, not {short_repr(text)}")
    if len(text) > _MAX_TEXT:
        raise InvalidBoardLineError(f"a board line is short, got {len(text)} characters")
    body = text.strip().strip("\x00").strip()
    if not body.startswith("board:"):
        raise InvalidBoardLineError(f"a board line starts with 'board:', got {short_repr(body)}")
    fields = body[6:].split(":")
    if len(fields) != _FIELDS:
        raise InvalidBoardLineError(f"a board line has {_FIELDS} fields, got {len(fields)}")
    return fields


def parse_board_line(text: str) -> BoardLine:
    """Read a FIBS board line; raises :class:`InvalidBoardLineError`."""
    f = board_line_fields(text)
    player, opponent = f[0], f[1]
    n = [_int(x, f"field {i + 1}") for i, x in enumerate(f) if i >= 2]  # n[k] is f[k + 2]
    length, score, opp_score = n[0], n[1], n[2]
    if not (0 <= length <= FIBS_UNLIMITED and 0 <= score < 100000 and 0 <= opp_score < 100000):
        raise InvalidBoardLineError(f"board line match length or score out of range: {n[:3]}")
    board = tuple(n[3:29])
    turn, colour, direction, home, bar = n[29], n[38], n[39], n[40], n[41]
    if turn not in (-1, 0, 1) or colour not in (-1, 1):
        raise InvalidBoardLineError(f"board line turn {turn} or colour {colour} is not -1 or 1")
    if (direction, home, bar) not in ((-1, 0, 25), (1, 25, 0)):
        raise InvalidBoardLineError(
            f"board line direction, home and bar must be -1, 0, 25 or 1, 25, 0; "
            f"got {direction}, {home}, {bar}"
        )
    cube = n[34]
    if cube < 1 or cube & (cube - 1) or cube > 1 << 15:
        raise InvalidBoardLineError(f"board line cube {cube} is not a power of two")
    line = BoardLine(
        player=player,
        opponent=opponent,
        match_length=length,
        score=score,
        opponent_score=opp_score,
        board=board,
        turn=turn,
        dice=_dice(n[30], n[31], "dice"),
        opponent_dice=_dice(n[32], n[33], "opponent's dice"),
        cube=cube,
        may_double=_flag(n[35], "may-double flag"),
        opponent_may_double=_flag(n[36], "opponent's may-double flag"),
        doubled=n[37],
        colour=colour,
        direction=direction,
        home=home,
        bar=bar,
        off=n[42],
        opponent_off=n[43],
        on_bar=n[44],
        opponent_on_bar=n[45],
        can_move=n[46],
        forced_move=n[47],
        did_crawford=n[48],
        redoubles=n[49],
    )
    _check_checkers(line)
    return line


def _check_checkers(line: BoardLine) -> None:
    """Each side has 15 checkers between the board, its bar and its borne-off count, and
    each bar holds only its owner's checkers."""
    c = line.colour
    if line.board[line.bar] * c < 0 or line.board[line.home] * c > 0:
        raise InvalidBoardLineError("board line: a bar holds the other side's checkers")
    mine = sum(x * c for x in line.board if x * c > 0)
    theirs = sum(-x * c for x in line.board if x * c < 0)
    if mine + line.off != 15 or theirs + line.opponent_off != 15:
        raise InvalidBoardLineError(
            f"board line: {mine} + {line.off} off and {theirs} + {line.opponent_off} off "
            "are not 15 checkers a side"
        )
    line.position_of_player()


def format_board_line(line: BoardLine) -> str:
    """The text of ``line`` (``:`` in names is written ``_``, as gnubg does)."""
    numbers = [
        line.match_length,
        line.score,
        line.opponent_score,
        *line.board,
        line.turn,
        *line.dice,
        *line.opponent_dice,
        line.cube,
        int(line.may_double),
        int(line.opponent_may_double),
        line.doubled,
        line.colour,
        line.direction,
        line.home,
        line.bar,
        line.off,
        line.opponent_off,
        line.on_bar,
        line.opponent_on_bar,
        line.can_move,
        line.forced_move,
        line.did_crawford,
        line.redoubles,
    ]
    if len(line.board) != 26:
        raise InvalidBoardLineError(f"a board line has 26 board numbers, got {len(line.board)}")
    names = [name.replace(":", "_").replace("\n", " ") for name in (line.player, line.opponent)]
    return "board:" + ":".join(names + [str(x) for x in numbers])
