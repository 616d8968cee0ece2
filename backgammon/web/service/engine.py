"""The engine's answers for any position named by XGID or gnubg ID: the best plays of a
rolled position or its cube decision (:func:`hint`), its evaluation (:func:`evaluation`),
thought in the shared engine worker (:func:`think`), off the event loop and the server's
interpreter lock, within a time limit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from backgammon.ids.gnubg import InvalidMatchIdError, MatchIdFields, encode_match_id
from backgammon.ids.xgid import InvalidXgidError
from backgammon.judging.evaluate import best_plays, evaluate
from backgammon.play.dice import FixedDice
from backgammon.play.match import Match, Phase
from backgammon.play.rules import RulesError
from backgammon.play.state import MatchError
from backgammon.players import CubeState
from backgammon.players.neural import NeuralPlayer
from backgammon.web.errors import ApiError
from backgammon.web.service.bots import STARTUP, bot
from backgammon.web.service.jobs import WorkerPool, shared
from backgammon.workers import WorkerTimeout, result_within

__all__ = [
    "MAX_PLAYS",
    "engine_pool",
    "evaluation",
    "hint",
    "match_in",
    "match_of",
    "think",
    "warm",
]

MAX_PLAYS = 20  # plays listed at most (a roll can have hundreds)
TIME_LIMIT = 30.0
"""Seconds a hint may take (a 1-ply hint takes well under one, a 2-ply one about one)."""


def _player(plies: int) -> NeuralPlayer:
    player = bot("neural", plies=plies)
    assert isinstance(player, NeuralPlayer)
    return player


def _warm_up() -> None:
    """In the engine's worker, as it starts: a hint made once (the network loaded, its
    compiled code too), a time :func:`think` does not count against the first hint."""
    hint(Match.from_gnubg_id("4HPwATDgc/ABMA:MIEFAAAAAAAA"), 0, 1)  # White to play 31


def engine_pool() -> WorkerPool:
    """The process's one engine worker, which warms up as it starts."""
    return shared("engine", 1, (_warm_up, ()))


def warm() -> None:
    """Start the engine's worker now (the served server, as it starts), not on the first
    hint: the warm-up is then done or under way when a player asks."""
    engine_pool().executor()


def hint(match: Match, plies: int = 0, count: int = MAX_PLAYS) -> dict[str, Any]:
    """The engine's advice for ``match`` as JSON-ready values: its best ``count`` plays
    when the dice are rolled (as ``backgammon hint`` lists them), else the cube decision
    (from the side on roll, the doubler)."""
    player = _player(plies)
    cube = CubeState.from_match(match)
    base: dict[str, Any] = {"gnubgid": match.gnubg_id(), "xgid": match.xgid(), "plies": plies}
    if match.phase is Phase.MOVE:
        assert match.dice is not None
        ranked = best_plays(player, match.position, match.dice, cube, count)
        plays = [
            {
                "move": str(r.move),
                "equity": round(r.equity, 6),
                "probabilities": [round(float(x), 6) for x in r.probabilities.array()],
                "plies": r.plies,
            }
            | ({} if r.mwc is None else {"mwc": round(r.mwc, 6)})
            for r in ranked
        ]
        return {**base, "kind": "plays", "dice": list(match.dice), "plays": plays}
    d = player.cube_decision(match.position, cube)
    return {
        **base,
        "kind": "cube",
        "cube": {
            "no_double": round(d.no_double, 6),
            "double_take": round(d.double_take, 6),
            "double_pass": round(d.double_pass, 6),
            "action": d.action.value,
            "response": d.response.value,
            "may_double": match.may_double(match.on_roll),
        },
    }


def evaluation(match: Match, plies: int = 0) -> dict[str, Any]:
    """The position of ``match`` judged for its side on roll, before the roll (as
    ``backgammon eval`` prints it), as JSON-ready values."""
    judged = evaluate(match.position, CubeState.from_match(match), plies, _player(plies))
    return {"gnubgid": match.gnubg_id(), "xgid": match.xgid(), **judged.to_json()}


def match_of(text: str) -> Match:
    """The match an XGID or a gnubg ID (``PositionID:MatchID``, or a bare Position ID: a
    money game, the side on roll to roll, as the terminal reads it) names; ApiError 400 for
    anything else."""
    text = text.strip()
    try:
        if text.startswith("XGID=") or len(text.split(":")[0]) == 26:
            return Match.from_xgid(text)
        if ":" not in text and len(text) == 14:
            text = f"{text}:{encode_match_id(MatchIdFields())}"
        return Match.from_gnubg_id(text)
    except (InvalidXgidError, InvalidMatchIdError, MatchError, RulesError, ValueError) as exc:
        raise ApiError(400, "invalid_position", str(exc)) from exc


async def think(
    work: Callable[..., dict[str, Any]], match: Match, plies: int, *extra: Any
) -> dict[str, Any]:
    """``work(match, plies, *extra)`` in the engine's worker, within :data:`TIME_LIMIT`;
    ApiError 503 when it gives no answer (its worker is then replaced)."""
    match.dice_source = FixedDice(())  # what the worker gets throws no dice
    pool = engine_pool()
    executor = pool.executor()
    try:
        if not all(f.done() for f in pool.warming):  # the warm-up is not the hint's time
            await asyncio.wait_for(asyncio.gather(*map(asyncio.wrap_future, pool.warming)), STARTUP)
        return await result_within(executor.submit(work, match, plies, *extra), TIME_LIMIT)
    except (TimeoutError, WorkerTimeout, BrokenProcessPool) as exc:
        pool.discard(executor)
        raise ApiError(503, "engine_unavailable", f"the engine gave no answer ({exc})") from exc


def match_in(xgid: str | None, gnubgid: str | None, phases: tuple[Phase, ...]) -> Match:
    """The match named by exactly one of ``xgid`` and ``gnubgid``, in one of ``phases``
    (ApiError 400 or 422 otherwise)."""
    if (xgid is None) == (gnubgid is None):
        raise ApiError(400, "invalid_request", "give one position: xgid or gnubgid")
    try:
        match = Match.from_xgid(xgid) if xgid is not None else Match.from_gnubg_id(str(gnubgid))
    except (InvalidXgidError, InvalidMatchIdError, MatchError, RulesError) as exc:
        raise ApiError(400, "invalid_position", str(exc)) from exc
    if match.phase not in phases:
        raise ApiError(422, "no_decision", f"nothing to decide in the phase {match.phase}")
    return match
