"""Another engine named on the command line (``--engine gnubg``, ``gnubg:2``, ``ubgi:CMD``,
``play --bot gnubg``): started for the command, its answers put in the terminal's words,
and a clear line where the engine cannot answer what the command asks."""

from __future__ import annotations

from typing import Any

from backgammon.cli.errors import UsageError
from backgammon.core.position import Position
from backgammon.engine import Limit, SimpleEngine, open_engine
from backgammon.engine.base import EnginePlayer
from backgammon.engine.base import Evaluation as EngineEvaluation
from backgammon.evaluation.cube import CubeState
from backgammon.judging.evaluate import CubeNumbers, Evaluation
from backgammon.players.base import RankedMove

__all__ = [
    "EXTERNAL",
    "as_evaluation",
    "cannot",
    "engine_from",
    "engine_player",
    "is_external",
    "limit_of",
    "our_plies",
    "top_candidates",
]

EXTERNAL = ("gnubg", "ubgi")
"""The engines that are programs of their own (``play --bot`` starts them as engines)."""


def is_external(name: str | None) -> bool:
    """Whether ``name`` names a program of its own rather than one of our bots."""
    return name is not None and name.strip().lower().partition(":")[0] in EXTERNAL


def limit_of(ply: int | None) -> Limit:
    """The engine's limit for a ``--ply`` option (None: the engine's own depth)."""
    if ply is not None and not 0 <= ply <= 7:
        raise UsageError(f"--ply is 0-7 for an engine, not {ply}")
    return Limit(plies=ply)


def engine_player(name: str, ply: int | None = None) -> EnginePlayer:
    """A seat played by the engine ``name`` (closed when the program exits)."""
    return EnginePlayer(open_engine(name), limit_of(ply))


def as_evaluation(e: EngineEvaluation, plies: int) -> Evaluation:
    """An engine's evaluation as ``backgammon eval`` prints it (in EMG; no MWC column)."""
    return Evaluation(
        e.plies if e.plies is not None else plies,
        e.probabilities,
        e.equity,
        CubeNumbers(e.no_double, e.double_take, e.double_pass, e.proper),
    )


def top_candidates(
    engine: SimpleEngine,
    position: Position,
    dice: tuple[int, int],
    cube: CubeState,
    count: int,
    ply: int | None,
) -> list[RankedMove]:
    """The engine's best ``count`` plays, those judged at its deepest look (as ours)."""
    ranked = engine.candidates(position, dice, cube, limit_of(ply))
    return [r for r in ranked if r.plies == ranked[0].plies][:count] if ranked else []


def cannot(command: str, name: str, why: str) -> UsageError:
    """The one-line refusal where an engine cannot do what the command asks."""
    return UsageError(f"{command} --engine {name}: {why}")


def our_plies(command: str, name: str, why: str) -> int | None:
    """The plies of our neural bot named as an engine (``neural``, ``neural:2``; None: its
    default), for a command only our nets can run; any other engine is refused with ``why``."""
    kind, sep, rest = name.strip().lower().partition(":")
    if is_external(name):
        raise cannot(command, name, why)
    if kind not in ("neural", "net", "nn", "expert", "strong", "world"):
        raise cannot(command, name, "only our neural bot can do this")
    if sep and not (rest.isdigit() and int(rest) <= 2):
        raise cannot(command, name, "our bot looks 0, 1 or 2 plies ahead")
    return int(rest) if sep else {"strong": 1, "world": 2}.get(kind)


def engine_from(args: Any) -> SimpleEngine | None:
    """The engine ``args.engine`` names, started (None when not given)."""
    return open_engine(args.engine) if args.engine else None
