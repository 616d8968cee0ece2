"""The text IDs of a backgammon state, both ways: GNU Backgammon's Match ID and its joined
"GNUbg ID" (formats.md §2), and eXtreme Gammon's XGID (formats.md §3).

This layer reads and writes fields only; :mod:`backgammon.matchids` turns them into a match
state and back.  In an XGID bottom is gnubg's player 1 (X) and top is player 0 (O); with a
pending double (``D``) its turn field names the doubler and the cube fields hold the cube
before the double, as gnubg reads it.

>>> f = decode_match_id("QYkqASAAIAAA")
>>> f.cube_value, f.cube_owner, f.dice, f.match_length, f.score
(2, 0, (5, 2), 9, (2, 4))
>>> encode_match_id(f)
'QYkqASAAIAAA'
>>> x = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
>>> x.on_roll, x.dice, x.jacoby, x.beavers, x.max_cube
(1, (5, 2), True, True, 1024)
>>> gnubg_id_from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
'4HPwATDgc/ABMA:cIkKAAAAAAAA'
"""

from __future__ import annotations

import base64
import enum
import re
import string
from dataclasses import dataclass

from backgammon.board import InvalidPositionError, Position

__all__ = [
    "GameState",
    "InvalidMatchIdError",
    "InvalidXgidError",
    "MatchIdFields",
    "XgidFields",
    "decode_match_id",
    "encode_match_id",
    "format_xgid",
    "gnubg_id_from_xgid",
    "match_id_fields_from_xgid",
    "parse_xgid",
    "split_gnubg_id",
    "xgid_from_gnubg_id",
]

_MAX_SCORE = 64  # gnubg's MAXSCORE: longest match and highest score a Match ID may hold
_BASE64 = frozenset(string.ascii_letters + string.digits + "+/")  # gnubg's alphabet, no padding


class InvalidMatchIdError(ValueError):
    """A Match ID (or GNUbg ID) that is malformed or out of range."""


class InvalidXgidError(ValueError):
    """An XGID that is malformed or out of range."""


# ------------------------------------------------------------------------------ Match ID
class GameState(enum.IntEnum):
    """The game-state field of a Match ID (bits 8-10)."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


@dataclass(frozen=True)
class MatchIdFields:
    """The decoded fields of a Match ID.

    ``cube_owner`` is 0, 1 or None (centred); ``dice_owner`` is gnubg's ``fMove`` (the
    player holding the dice, from whose side the Position ID is written) and ``turn`` is
    ``fTurn`` (who must act now: the other player while a double or a resignation awaits
    an answer).  ``dice`` is () when not rolled, else (larger, smaller) as gnubg writes it.
    ``match_length`` 0 is a money game.  ``no_jacoby`` is bit 66 as written (gnubg writes 1
    except in a money game played with the Jacoby rule); :attr:`jacoby` reads it.
    """

    cube_value: int = 1
    cube_owner: int | None = None
    dice_owner: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, ...] = ()
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    no_jacoby: bool = True

    @property
    def jacoby(self) -> bool:
        """True when this is a money game played with the Jacoby rule (R31)."""
        return self.match_length == 0 and not self.no_jacoby


def _put(bits: int, start: int, width: int, value: int) -> int:
    if not 0 <= value < 1 << width:
        raise InvalidMatchIdError(f"value {value} does not fit {width} bits at bit {start}")
    return bits | value << start


def _get(bits: int, start: int, width: int) -> int:
    return bits >> start & ((1 << width) - 1)


def _shown(text: object, limit: int = 40) -> str:
    """``repr(text)`` cut to ``limit`` characters, for messages about any input."""
    out = repr(text)
    return out if len(out) <= limit else out[: limit - 3] + "..."


def encode_match_id(f: MatchIdFields) -> str:
    """The 12-character Match ID of ``f`` (the larger die is written first, as gnubg does)."""
    if f.cube_value < 1 or f.cube_value & (f.cube_value - 1):
        raise InvalidMatchIdError(f"cube value must be a power of two, got {f.cube_value}")
    if f.dice and len(f.dice) != 2:
        raise InvalidMatchIdError(f"dice must be () or a pair, got {f.dice!r}")
    hi, lo = (max(f.dice), min(f.dice)) if f.dice else (0, 0)
    owner = 3 if f.cube_owner is None else f.cube_owner
    bits = 0
    bits = _put(bits, 0, 4, f.cube_value.bit_length() - 1)
    bits = _put(bits, 4, 2, owner)
    bits = _put(bits, 6, 1, f.dice_owner)
    bits = _put(bits, 7, 1, int(f.crawford))
    bits = _put(bits, 8, 3, int(f.game_state))
    bits = _put(bits, 11, 1, f.turn)
    bits = _put(bits, 12, 1, int(f.doubled))
    bits = _put(bits, 13, 2, f.resigned)
    bits = _put(bits, 15, 3, hi)
    bits = _put(bits, 18, 3, lo)
    bits = _put(bits, 21, 15, f.match_length)
    bits = _put(bits, 36, 15, f.score[0])
    bits = _put(bits, 51, 15, f.score[1])
    bits = _put(bits, 66, 1, int(f.no_jacoby))
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match_id(text: str) -> MatchIdFields:
    """Read a Match ID, with gnubg's checks (dice 0-6, length <= 64, scores <= length in a
    match still being played, no Crawford flag in money play); raises
    :class:`InvalidMatchIdError`."""
    if not isinstance(text, str):
        raise InvalidMatchIdError(f"a Match ID is text, not {_shown(text)}")
    text = text.strip()
    if len(text) != 12:
        raise InvalidMatchIdError(f"a Match ID has 12 characters, got {len(text)}: {_shown(text)}")
    if not _BASE64.issuperset(text):
        raise InvalidMatchIdError(f"not a Match ID (bad characters): {text!r}")
    raw = base64.b64decode(text, validate=True)
    bits = int.from_bytes(raw, "little")
    owner = _get(bits, 4, 2)
    state = _get(bits, 8, 3)
    d1, d2 = _get(bits, 15, 3), _get(bits, 18, 3)
    length = _get(bits, 21, 15)
    s0, s1 = _get(bits, 36, 15), _get(bits, 51, 15)
    if d1 > 6 or d2 > 6 or (d1 == 0) != (d2 == 0):
        raise InvalidMatchIdError(f"Match ID {text!r}: impossible dice {d1}, {d2}")
    if state > 4:
        raise InvalidMatchIdError(f"Match ID {text!r}: unknown game state {state}")
    if length > _MAX_SCORE:
        raise InvalidMatchIdError(f"Match ID {text!r}: match length {length} is over 64")
    if length and (s0 > length or s1 > length) and state in (0, 1):
        # A finished match may pass its length (a gammon at 4-away in a 5-point match).
        raise InvalidMatchIdError(f"Match ID {text!r}: a score is over the match length")
    crawford = bool(_get(bits, 7, 1))
    if crawford and not length:
        raise InvalidMatchIdError(f"Match ID {text!r}: Crawford flag in a money game")
    return MatchIdFields(
        cube_value=1 << _get(bits, 0, 4),
        cube_owner=None if owner >= 2 else owner,
        dice_owner=_get(bits, 6, 1),
        crawford=crawford,
        game_state=GameState(state),
        turn=_get(bits, 11, 1),
        doubled=bool(_get(bits, 12, 1)),
        resigned=_get(bits, 13, 2),
        dice=(max(d1, d2), min(d1, d2)) if d1 else (),
        match_length=length,
        score=(s0, s1),
        no_jacoby=bool(_get(bits, 66, 1)),
    )


def split_gnubg_id(text: str) -> tuple[Position, MatchIdFields]:
    """Read a GNUbg ID ``PositionID:MatchID``; the position is from the dice owner's side.
    Raises :class:`InvalidMatchIdError` for anything else (a bad Position ID included)."""
    if not isinstance(text, str):
        raise InvalidMatchIdError(f"a GNUbg ID is text, not {_shown(text)}")
    text = text.strip()
    for prefix in ("GNUBGID=", "GNUbgID ", "GNUbgID=", "gnubgid "):
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
    parts = text.split(":")
    if len(parts) != 2:
        raise InvalidMatchIdError(f"a GNUbg ID is PositionID:MatchID, got {_shown(text)}")
    try:
        position = Position.from_position_id(parts[0])
    except InvalidPositionError as exc:
        raise InvalidMatchIdError(f"GNUbg ID position: {exc}") from exc
    return position, decode_match_id(parts[1])


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
        raise InvalidXgidError(f"XGID {what} field {_shown(text)} is not a number")
    return int(text)


def parse_xgid(text: str) -> XgidFields:
    """Read an XGID (the ``XGID=`` prefix is optional); raises :class:`InvalidXgidError`."""
    if not isinstance(text, str):
        raise InvalidXgidError(f"an XGID is text, not {_shown(text)}")
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
        position = Position.from_xgid(f"{pos_text}:0:0:{turn_n}")
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
        raise InvalidXgidError(f"XGID dice must be 00, two digits, D, B or R; got {_shown(dice)}")
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
    pos = x.position.xgid_position(bottom_on_roll=x.on_roll == 1)
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
    return f"{x.position.position_id()}:{encode_match_id(match_id_fields_from_xgid(x))}"


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
