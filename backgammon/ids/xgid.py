"""eXtreme Gammon's XGID, both ways (formats.md §3).

In an XGID bottom is gnubg's player 1 (X) and top is player 0 (O); with a pending double
(``D``) its turn field names the doubler and the cube fields hold the cube before the
double, as gnubg reads it.

>>> x = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
>>> x.on_roll, x.dice, x.jacoby, x.beavers, x.max_cube
(1, (5, 2), True, True, 1024)
>>> gnubg_id_from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
'4HPwATDgc/ABMA:cIkKAAAAAAAA'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from backgammon.core.position import Position, encode_position_id, xgid_board, xgid_position
from backgammon.core.values import InvalidPositionError, short_repr
from backgammon.ids.gnubg import (
    GameState,
    MatchIdFields,
    encode_match_id,
    split_gnubg_id,
)

__all__ = [
    "InvalidXgidError",
    "XgidFields",
    "format_xgid",
    "gnubg_id_from_xgid",
    "match_id_fields_from_xgid",
    "parse_xgid",
    "xgid_from_gnubg_id",
]


class InvalidXgidError(ValueError):
    """An XGID that is malformed or out of range."""


# ------------------------------------------------------------------------------ XGID
_CUBE_ACTIONS = ("", "D", "B", "R")


@dataclass(frozen=True)
class XgidFields:
    """The fields of an XGID, with players numbered as gnubg does (1 = bottom, 0 = top).

    ``position`` is seen from ``on_roll`` (the dice owner; the doubler while a double is
    pending).  ``cube_action`` is "" (none), "D" (a double awaits an answer), "B" (a beaver
    awaits one) or "R" (a raccoon awaits one); the cube fields then hold the cube as it was
    before that offer.  ``match_length`` 0 is money.  ``max_cube`` is the largest cube value.
    """

    position: Position
    cube_value: int = 1
    cube_owner: int | None = None
    on_roll: int = 1
    dice: tuple[int, ...] = ()
    cube_action: str = ""
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    match_length: int = 0
    max_cube: int = 1024


_NUMBER = re.compile(r"-?[0-9]{1,9}")  # as XG writes them: ASCII digits, no sign but '-'
_XG_MAX_SCORE = (1 << 15) - 1  # the largest score a Match ID holds


def _int(text: str, what: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise InvalidXgidError(f"XGID {what} field {short_repr(text)} is not a number")
    return int(text)


def parse_xgid(text: str) -> XgidFields:
    """Read an XGID (the ``XGID=`` prefix is optional); raises :class:`InvalidXgidError`."""
    if not isinstance(text, str):
        raise InvalidXgidError(f"an XGID is text, not {short_repr(text)}")
    body = text.strip()
    if body.startswith("XGID="):
        body = body[5:]
    fields = body.split(":")
    if len(fields) != 10:
        raise InvalidXgidError(f"an XGID has 10 ':'-separated fields, got {len(fields)}")
    pos_text, cube, cubepos, turn, dice, s_bottom, s_top, rules, length_text, maxcube = fields
    turn_n = _int(turn, "turn")
    if turn_n not in (1, -1):
        raise InvalidXgidError(f"XGID turn must be 1 or -1, got {turn_n}")
    try:
        position = xgid_board(pos_text, turn_n)
    except InvalidPositionError as exc:
        raise InvalidXgidError(f"XGID position: {exc}") from exc
    cube_log = _int(cube, "cube")
    if not 0 <= cube_log <= 15:
        raise InvalidXgidError(f"XGID cube must be 0-15 (log2 of the value), got {cube_log}")
    cp = _int(cubepos, "cube position")
    if cp not in (-1, 0, 1):
        raise InvalidXgidError(f"XGID cube position must be -1, 0 or 1, got {cp}")
    action = ""
    rolled: tuple[int, ...] = ()
    if dice in ("D", "B", "R"):
        action = dice
    elif re.fullmatch("[0-9]{2}", dice):
        a, b = int(dice[0]), int(dice[1])
        if (a, b) != (0, 0):
            if not (1 <= a <= 6 and 1 <= b <= 6):
                raise InvalidXgidError(f"XGID dice {dice!r} are not two numbers 1-6")
            rolled = (a, b)
    else:
        raise InvalidXgidError(
            f"XGID dice must be 00, two digits, D, B or R; got {short_repr(dice)}"
        )
    length = _int(length_text, "match length")
    if not 0 <= length <= 64:
        raise InvalidXgidError(f"XGID match length must be 0-64, got {length}")
    sb, st = _int(s_bottom, "score"), _int(s_top, "score")
    if not (0 <= sb <= _XG_MAX_SCORE and 0 <= st <= _XG_MAX_SCORE):
        raise InvalidXgidError(f"XGID scores {sb}, {st} are out of range")
    rules_n = _int(rules, "rules")
    if length:
        if rules_n not in (0, 1):
            raise InvalidXgidError(f"XGID rules in a match must be 0 or 1, got {rules_n}")
        crawford, jacoby, beavers = rules_n == 1, False, False
    else:
        if not 0 <= rules_n <= 3:
            raise InvalidXgidError(f"XGID rules in money play must be 0-3, got {rules_n}")
        crawford, jacoby, beavers = False, bool(rules_n & 1), bool(rules_n & 2)
    max_log = _int(maxcube, "max cube")
    if not 0 <= max_log <= 15:
        raise InvalidXgidError(f"XGID max cube must be 0-15 (log2), got {max_log}")
    return XgidFields(
        position=position,
        cube_value=1 << cube_log,
        cube_owner={1: 1, 0: None, -1: 0}[cp],
        on_roll=1 if turn_n == 1 else 0,
        dice=rolled,
        cube_action=action,
        score=(st, sb),
        crawford=crawford,
        jacoby=jacoby,
        beavers=beavers,
        match_length=length,
        max_cube=1 << max_log,
    )


def format_xgid(x: XgidFields) -> str:
    """The XGID text of ``x`` (with the ``XGID=`` prefix, as XG writes it)."""
    if x.cube_action not in _CUBE_ACTIONS:
        raise InvalidXgidError(f"cube action must be one of {_CUBE_ACTIONS}, got {x.cube_action!r}")
    if x.cube_action and x.dice:
        raise InvalidXgidError("a cube offer is made before the roll: no dice with D, B or R")
    pos = xgid_position(x.position, bottom_on_roll=x.on_roll == 1)
    cubepos = {1: 1, None: 0, 0: -1}[x.cube_owner]
    turn = 1 if x.on_roll == 1 else -1
    dice = x.cube_action or ("".join(str(d) for d in x.dice) if x.dice else "00")
    rules = int(x.crawford) if x.match_length else int(x.jacoby) | int(x.beavers) << 1
    return (
        f"XGID={pos}:{x.cube_value.bit_length() - 1}:{cubepos}:{turn}:{dice}:"
        f"{x.score[1]}:{x.score[0]}:{rules}:{x.match_length}:{x.max_cube.bit_length() - 1}"
    )


def match_id_fields_from_xgid(x: XgidFields) -> MatchIdFields:
    """gnubg's reading of an XGID (``SetXGID``) as Match ID fields."""
    doubled = bool(x.cube_action)
    return MatchIdFields(
        cube_value=x.cube_value,
        cube_owner=x.cube_owner,
        dice_owner=x.on_roll,
        crawford=x.crawford,
        game_state=GameState.PLAYING,
        turn=1 - x.on_roll if doubled else x.on_roll,
        doubled=doubled,
        resigned=0,
        dice=(max(x.dice), min(x.dice)) if x.dice else (),
        match_length=x.match_length,
        score=x.score,
        no_jacoby=not (x.jacoby and x.match_length == 0),
    )


def gnubg_id_from_xgid(text: str) -> str:
    """The GNUbg ID ``PositionID:MatchID`` that gnubg's ``set xgid`` computes."""
    x = parse_xgid(text)
    return f"{encode_position_id(x.position)}:{encode_match_id(match_id_fields_from_xgid(x))}"


def xgid_from_gnubg_id(text: str, *, max_cube: int = 1024, beavers: bool = False) -> str:
    """The XGID of a GNUbg ID (the reverse of gnubg's reading; a pending resignation is not
    representable and is left out, max cube and beavers are not in gnubg IDs)."""
    position, f = split_gnubg_id(text)
    return format_xgid(
        XgidFields(
            position=position,
            cube_value=f.cube_value,
            cube_owner=f.cube_owner,
            on_roll=f.dice_owner,
            dice=f.dice,
            cube_action="D" if f.doubled else "",
            score=f.score,
            crawford=f.crawford,
            jacoby=f.jacoby,
            beavers=beavers and not f.match_length,
            match_length=f.match_length,
            max_cube=max_cube,
        )
    )
