"""The record of a match: one frozen value per action, the automatic ones included (a game's
start and end, an empty play, a pass), game by game (rules R3-R4, R10, R13, R18-R33).

:meth:`backgammon.play.match.Match.replay` rebuilds a match from a :class:`MatchRecord` and
:meth:`~backgammon.play.match.Match.extend` plays entries onto one; the match-file readers and
writers translate these entries.

>>> MatchRecord(Rules(match_length=3), ((GameStart(1, (0, 0), False), OpeningRoll(3, 1)),)).rolls()
((3, 1),)
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from backgammon.core.values import GameResult, Move
from backgammon.play.rules import Rules

if TYPE_CHECKING:  # the state holds the record; the record names the state it resumed from
    from backgammon.play.state import MatchState

__all__ = [
    "Accept",
    "Action",
    "Beaver",
    "Double",
    "Drop",
    "EndReason",
    "GameEnd",
    "GameStart",
    "MatchRecord",
    "OpeningRoll",
    "Pass",
    "Play",
    "Raccoon",
    "Reject",
    "Resign",
    "Roll",
    "Take",
]


class EndReason(enum.StrEnum):
    """How a game ended."""

    PLAYED = "played"  # the last checker was borne off (R18)
    DROPPED = "dropped"  # a double was passed (R24)
    RESIGNED = "resigned"  # a resignation was accepted (R21)


@dataclass(frozen=True)
class GameStart:
    """A game begins (recorded automatically): its number from 1, the score before it, and
    whether it is the Crawford game (R28)."""

    game: int
    score: tuple[int, int]
    crawford: bool


@dataclass(frozen=True)
class OpeningRoll:
    """One throw of the opening roll (R3): player 0's die and player 1's die.  A tie is
    recorded too and thrown again (in money play it may double the cube, R33)."""

    die0: int
    die1: int

    @property
    def dice(self) -> tuple[int, int]:
        """The two dice as the winner of the opening plays them, larger first (R3).

        >>> OpeningRoll(2, 5).dice
        (5, 2)
        """
        return max(self.die0, self.die1), min(self.die0, self.die1)


@dataclass(frozen=True)
class Roll:
    """The player on roll throws both dice (R4)."""

    player: int
    dice: tuple[int, int]


@dataclass(frozen=True)
class Play:
    """A play of the last roll, steps from the player's own side; empty when no play was
    possible (R10, recorded automatically)."""

    player: int
    move: Move


@dataclass(frozen=True)
class Pass:
    """The player is on the bar against a closed board: the turn passes without a roll
    (R13, recorded automatically unless the player could double first).  ``dice`` are
    those a match file shows thrown for the dance (gnubg writes them); the Match throws none,
    and a pass equals a pass whatever its dice."""

    player: int
    dice: tuple[int, int] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Double:
    """The player offers the cube at ``value`` (R23)."""

    player: int
    value: int


@dataclass(frozen=True)
class Take:
    """The player accepts the offer; the cube is now at ``value`` (R24)."""

    player: int
    value: int


@dataclass(frozen=True)
class Drop:
    """The player passes the offer and loses the value before it (R24)."""

    player: int


@dataclass(frozen=True)
class Beaver:
    """The doubled player redoubles at once keeping the cube (money only, R32); ``value`` is
    the cube if the doubler takes."""

    player: int
    value: int


@dataclass(frozen=True)
class Raccoon:
    """The doubler answers a beaver by redoubling again (money only, R32)."""

    player: int
    value: int


@dataclass(frozen=True)
class Resign:
    """The player offers to resign a single, gammon or backgammon (R21)."""

    player: int
    level: GameResult


@dataclass(frozen=True)
class Accept:
    """The player accepts the opponent's resignation."""

    player: int


@dataclass(frozen=True)
class Reject:
    """The player rejects the opponent's resignation; play goes on."""

    player: int


@dataclass(frozen=True)
class GameEnd:
    """A game is over (recorded automatically): the winner, the points scored (R20, R24,
    R31), the kind of win and how it came about."""

    winner: int
    points: int
    result: GameResult
    reason: EndReason


Action = (
    GameStart
    | OpeningRoll
    | Roll
    | Play
    | Pass
    | Double
    | Take
    | Drop
    | Beaver
    | Raccoon
    | Resign
    | Accept
    | Reject
    | GameEnd
)
"""One entry of a match record."""


@dataclass(frozen=True)
class MatchRecord:
    """What happened in a match: the rules, the actions of each game and, for a match
    resumed from an ID, the state it started from.  :meth:`Match.replay` rebuilds it.

    A match file's header rides along (python-chess's game headers): the players' names,
    ``info`` as ``(tag, value)`` pairs named as in .mat headers (``Site``, ``Event``,
    ``Round``, ``EventDate`` as ``yyyy.mm.dd``, ``Transcriber`` ...), the match ``comment``
    and the ``application`` that wrote it; a Match's own record has the defaults.
    """

    rules: Rules
    games: tuple[tuple[Action, ...], ...]
    start: MatchState | None = None
    players: tuple[str, str] = ("Player 0", "Player 1")
    info: tuple[tuple[str, str], ...] = ()
    comment: str = ""
    application: str = ""

    def tag(self, name: str) -> str | None:
        """The value of a header tag, or None."""
        return next((value for key, value in self.info if key == name), None)

    def actions(self) -> Iterator[Action]:
        """Every action of every game, in order."""
        for game in self.games:
            yield from game

    def rolls(self) -> tuple[tuple[int, int], ...]:
        """Every throw in order (opening throws as (die0, die1), ties included)."""
        out: list[tuple[int, int]] = []
        for a in self.actions():
            if isinstance(a, OpeningRoll):
                out.append((a.die0, a.die1))
            elif isinstance(a, Roll):
                out.append(a.dice)
        return tuple(out)
