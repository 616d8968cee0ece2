"""What a bot is: the :class:`Player` protocol every bot follows, and the two things the
stronger ones also do (:class:`MoveRanker`, :class:`CubeAdviser`) for hints and analysis.

Conventions: ``position`` is always seen from the side on roll (as in the core);
``cube`` (a :class:`~backgammon.evaluation.cube.CubeState`) describes the match and cube from
that same side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.cube import CubeAction, CubeDecision, CubeState

if TYPE_CHECKING:
    from backgammon.evaluation.probabilities import Probabilities

__all__ = ["CubeAdviser", "MoveRanker", "Player", "RankedMove"]


@runtime_checkable
class Player(Protocol):
    """What every bot does."""

    name: str

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> Move | None:
        """One of ``position.legal_moves(dice)``, or None when there is no legal play."""
        ...

    def cube_action(self, position: Position, cube: CubeState, offered: bool = False) -> CubeAction:
        """With ``offered`` False the player is on roll and answers DOUBLE or NO_DOUBLE;
        with ``offered`` True the side on roll has doubled and the player (its opponent)
        answers TAKE, PASS or BEAVER."""
        ...

    def accept_resignation(
        self, position: Position, points: int, cube: CubeState | None = None
    ) -> bool:
        """The side on roll offers to resign ``points`` (1 single, 2 gammon, 3 backgammon)
        times the cube; True if the player (its opponent) accepts."""
        ...


@dataclass(frozen=True)
class RankedMove:
    """One play of a roll as a bot judges it.

    ``probabilities`` are the mover's after the play; ``equity`` is the value the
    ranking maximises: with a cube, the cubeful value as equity normalised to a money game
    (EMG: money equity per unit of the cube, or in a match the match winning chance ``mwc``
    mapped so that losing the cube's points is -1 and winning them +1); with no cube the
    cubeless money equity.  ``plies`` is the depth the judgement comes from (plays the
    lookahead filtered out are judged at 0-ply).
    """

    move: Move
    probabilities: Probabilities
    equity: float
    plies: int
    mwc: float | None = None


@runtime_checkable
class MoveRanker(Protocol):
    """A bot that can say how good each play of a roll is (for hints and analysis)."""

    def ranked_moves(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> list[RankedMove]:
        """Every legal play of ``dice``, best first (empty when there is none)."""
        ...


@runtime_checkable
class CubeAdviser(Protocol):
    """A bot that gives the cubeful equities behind its cube actions."""

    def cube_decision(self, position: Position, cube: CubeState) -> CubeDecision:
        """No double, double/take and double/pass for the side on roll, and the actions."""
        ...
