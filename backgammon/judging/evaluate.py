"""One position judged, as gnubg's ``eval`` judges it: the five cubeless probabilities of the
side on roll and its cubeless equity at a depth, and the cube (no double, double/take,
double/pass and the proper action in words) at the score and cube given.

The library side of ``backgammon eval`` and of the web's engine endpoint: both print or send
these numbers, so they always agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backgammon.core.position import Position
from backgammon.engine.base import proper_action
from backgammon.engine.bot import bot_evaluation
from backgammon.evaluation.cube import CubeState
from backgammon.evaluation.probabilities import Probabilities
from backgammon.players.base import RankedMove
from backgammon.players.neural import NeuralPlayer

__all__ = [
    "CubeNumbers",
    "Evaluation",
    "EvaluationError",
    "best_plays",
    "evaluate",
    "proper_action",
]


class EvaluationError(ValueError):
    """A position that cannot be judged (the game is over) or a depth we do not search."""


@dataclass(frozen=True)
class CubeNumbers:
    """The cube for the side on roll: its cubeful values in EMG (and MWC in a match) and
    the proper action in words; the double's values are None when it may not double."""

    no_double: float
    double_take: float | None
    double_pass: float | None
    proper: str
    mwc: tuple[float, float | None, float | None] | None = None


@dataclass(frozen=True)
class Evaluation:
    """A position judged at ``plies``."""

    plies: int
    probabilities: Probabilities
    equity: float
    cube: CubeNumbers

    def to_json(self) -> dict[str, Any]:
        """The numbers for programs: probabilities as fractions, values in EMG."""
        cube: dict[str, Any] = {
            "no_double": self.cube.no_double,
            "double_take": self.cube.double_take,
            "double_pass": self.cube.double_pass,
            "proper": self.cube.proper,
        }
        if self.cube.mwc is not None:
            names = ("no_double", "double_take", "double_pass")
            cube["mwc"] = dict(zip(names, self.cube.mwc, strict=True))
        return {
            "ply": self.plies,
            "probabilities": [float(x) for x in self.probabilities.array()],
            "equity": self.equity,
            "cube": cube,
        }


def evaluate(
    position: Position,
    cube: CubeState | None = None,
    plies: int = 0,
    player: NeuralPlayer | None = None,
) -> Evaluation:
    """``position`` judged for its side on roll before it rolls, at ``plies`` (0-2), with
    the cube and score of ``cube`` (a centred money cube by default)."""
    if plies not in (0, 1, 2):
        raise EvaluationError(f"the depth is 0, 1 or 2 plies, not {plies!r}")
    if position.is_game_over():
        raise EvaluationError("the game is over: there is nothing to judge")
    bot = player if player is not None else NeuralPlayer(plies)
    state = cube if cube is not None else CubeState()
    e, d = bot_evaluation(bot, position, state, plies)
    mwc = None
    if not state.is_money:
        may = e.double_take is not None
        mwc = (d.no_double, d.double_take if may else None, d.double_pass if may else None)
    numbers = CubeNumbers(e.no_double, e.double_take, e.double_pass, e.proper, mwc)
    return Evaluation(plies, e.probabilities, e.equity, numbers)


def best_plays(
    player: NeuralPlayer,
    position: Position,
    dice: Sequence[int],
    cube: CubeState | None = None,
    count: int = 5,
    plies: int | None = None,
) -> list[RankedMove]:
    """The best ``count`` plays of ``dice``, best first, every one judged at the same depth
    (``plies``, else the player's): the list ``backgammon hint`` prints and the web's hints
    and position editor show, cubeful at the score of ``cube``; [] when nothing is legal."""
    if not position.legal_moves(dice):
        return []
    ranked = player.ranked_moves(position, dice, cube, keep=count, plies=plies)
    return [r for r in ranked if r.plies == ranked[0].plies][:count]
