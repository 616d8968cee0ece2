"""GNU Backgammon's IDs, both ways: the Match ID and the "GNUbg ID" that joins it to a
Position ID (formats.md §2); the Position ID itself (formats.md §1) is the core's
(:func:`backgammon.core.position.encode_position_id`).

This layer reads and writes fields only; :mod:`backgammon.play.ids` turns them into a match
state and back.

>>> f = decode_match_id("QYkqASAAIAAA")
>>> f.cube_value, f.cube_owner, f.dice, f.match_length, f.score
(2, 0, (5, 2), 9, (2, 4))
>>> encode_match_id(f)
'QYkqASAAIAAA'
>>> position, fields = split_gnubg_id("4HPwATDgc/ABMA:QYkqASAAIAAA")
>>> position.pip_counts(), fields == f
((167, 167), True)
"""

from __future__ import annotations

import base64
import enum
import string
from dataclasses import dataclass

from backgammon.core.position import Position, decode_position_id
from backgammon.core.values import InvalidPositionError, short_repr

__all__ = [
    "GameState",
    "InvalidMatchIdError",
    "MatchIdFields",
    "decode_match_id",
    "encode_match_id",
    "split_gnubg_id",
]

_MAX_SCORE = 64  # gnubg's MAXSCORE: longest match and highest score a Match ID may hold
_BASE64 = frozenset(string.ascii_letters + string.digits + "+/")  # gnubg's alphabet, no padding


class InvalidMatchIdError(ValueError):
    """A Match ID (or GNUbg ID) that is malformed or out of range."""


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
        raise InvalidMatchIdError(f"a Match ID is text, not {short_repr(text)}")
    text = text.strip()
    if len(text) != 12:
        raise InvalidMatchIdError(
            f"a Match ID has 12 characters, got {len(text)}: {short_repr(text)}"
        )
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
        raise InvalidMatchIdError(f"a GNUbg ID is text, not {short_repr(text)}")
    text = text.strip()
    for prefix in ("GNUBGID=", "GNUbgID ", "GNUbgID=", "gnubgid "):
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
    parts = text.split(":")
    if len(parts) != 2:
        raise InvalidMatchIdError(f"a GNUbg ID is PositionID:MatchID, got {short_repr(text)}")
    try:
        position = decode_position_id(parts[0])
    except InvalidPositionError as exc:
        raise InvalidMatchIdError(f"GNUbg ID position: {exc}") from exc
    return position, decode_match_id(parts[1])
