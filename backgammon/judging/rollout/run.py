"""Rolling out a position, the candidate plays of a roll, or a cube decision.

:func:`rollout` builds the candidates, splits the trials into fixed batches (the same
whatever runs them), hands them to a backend (this process, a process pool or Ray), and
averages the results in trial order, stopping early once every candidate's standard error
is below the target.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from backgammon.core.position import Position
from backgammon.evaluation.cube import CubeState, dead_cube_weights
from backgammon.evaluation.met import KAZAROSS_XG2, MatchEquityTable
from backgammon.evaluation.search import Searcher
from backgammon.judging.rollout.engine import (
    Candidate,
    RolloutJob,
    RolloutSettings,
    doubled,
    evaluator_for,
)
from backgammon.judging.rollout.local import Backend, local_backend

__all__ = ["CUBE_LABELS", "CandidateResult", "RolloutResult", "backend_for", "rollout"]

FloatArray = npt.NDArray[np.float64]
Probs5 = tuple[float, float, float, float, float]

CUBE_LABELS = ("no double", "double/take", "double/pass")
"""The candidates of a cube rollout, in the order they are shown."""


@dataclass(frozen=True)
class CandidateResult:
    """One candidate's rolled-out figures, for the root side (on roll before the play).

    ``equity`` is money equity per root cube (cubeful or cubeless), or in a match the
    normalised equity (EMG) of ``mwc``; ``se`` and ``mwc_se`` are their standard errors.
    """

    play: str
    probabilities: Probs5
    probabilities_se: Probs5
    equity: float
    se: float
    mwc: float | None = None
    mwc_se: float | None = None


@dataclass(frozen=True)
class RolloutResult:
    """What a rollout found: trials played per candidate and the candidates (plays best
    first; a cube rollout's in the order no double, double/take, double/pass)."""

    trials: int
    candidates: tuple[CandidateResult, ...]
    settings: RolloutSettings
    interrupted: bool = False
    """Stopped by Ctrl-C (with ``partial=True``): the figures are of the trials played."""

    def to_json(self) -> dict[str, Any]:
        """The JSON form (see the README): trials, settings and candidates."""
        return {
            "trials": self.trials,
            **({"interrupted": True} if self.interrupted else {}),
            "settings": asdict(self.settings),
            "candidates": [
                {k: v for k, v in asdict(c).items() if v is not None or k not in ("mwc", "mwc_se")}
                for c in self.candidates
            ],
        }


def candidates_for(
    position: Position,
    state: CubeState,
    dice: tuple[int, int] | None = None,
    cube: bool = False,
    moves: Sequence[str] | None = None,
    top: int = 5,
    weights: str | None = None,
    bearoff: bool = True,
    met: MatchEquityTable = KAZAROSS_XG2,
) -> tuple[Candidate, ...]:
    """What to roll out: the position itself, the plays of ``dice`` (``moves``, or the best
    ``top`` at 0 ply), or the two rolled-out cube actions (no double, double/take)."""
    if position.is_game_over():
        raise ValueError("the game is over: nothing to roll out")
    if cube and dice is not None:
        raise ValueError("a cube decision is made before the roll: give dice or cube, not both")
    if cube:
        if not state.may_double():
            raise ValueError("the side on roll cannot double here")
        return (
            Candidate(CUBE_LABELS[0], position.board, False, state, cube_first=False),
            Candidate(CUBE_LABELS[1], position.board, False, doubled(state), cube_first=False),
        )
    if dice is None:
        return (Candidate("", position.board, False, state),)
    legal = position.legal_moves(dice)
    if not legal:
        after = [("", position.flip())]
    elif moves:
        chosen = [position.parse_move(text, dice) for text in moves]
        after = [(str(m), position.play(m)) for m in chosen]
    else:
        w = dead_cube_weights(state, met)
        ranked = Searcher(evaluator_for(weights, bearoff), w).rank_moves(position, dice, 0)
        after = [(str(m), position.play(m)) for m, _ in ranked[: max(1, top)]]
    return tuple(Candidate(text, pos.board, True, state.flip()) for text, pos in after)


class _Moments:
    """Mean and standard error of the mean along the trials axis (axis 1), batch by batch
    (Chan's parallel update): memory stays one row per candidate whatever the trials."""

    def __init__(self) -> None:
        self.n = 0
        self.mean: FloatArray = np.zeros(0)
        self.m2: FloatArray = np.zeros(0)

    def add(self, x: FloatArray) -> None:
        k = x.shape[1]
        mean = x.mean(axis=1)
        m2 = ((x - mean[:, None]) ** 2).sum(axis=1)
        if self.n == 0:
            self.n, self.mean, self.m2 = k, mean, m2
            return
        n = self.n + k
        delta = mean - self.mean
        self.mean = self.mean + delta * (k / n)
        self.m2 = self.m2 + m2 + delta**2 * (self.n * k / n)
        self.n = n

    def se(self) -> FloatArray:
        if self.n < 2:
            return np.zeros_like(self.mean)
        return np.sqrt(self.m2 / (self.n - 1)) / math.sqrt(self.n)


def batches(settings: RolloutSettings) -> Iterator[tuple[int, int]]:
    """The fixed batches ``(first, count)`` the trials are played in, made as they are
    needed."""
    b = settings.batch
    return ((f, min(b, settings.trials - f)) for f in range(0, settings.trials, b))


def backend_for(workers: int | None = 1, ray_address: str | None = None) -> Backend:
    """Where trial batches run: Ray at ``ray_address`` (``local``: a Ray started in this
    process), else ``workers`` local processes (None: one per core; 1: in this process)."""
    if ray_address is not None:
        from backgammon.judging.rollout.ray_backend import RayBackend

        return RayBackend(None if ray_address == "local" else ray_address)
    return local_backend(workers)


def rollout(
    position: Position,
    state: CubeState | None = None,
    *,
    dice: tuple[int, int] | None = None,
    cube: bool = False,
    moves: Sequence[str] | None = None,
    top: int = 5,
    settings: RolloutSettings | None = None,
    workers: int | None = 1,
    ray_address: str | None = None,
    backend: Backend | None = None,
    progress: Callable[[int, int], None] | None = None,
    weights: str | None = None,
    bearoff: bool = True,
    met: MatchEquityTable = KAZAROSS_XG2,
    partial: bool = False,
) -> RolloutResult:
    """Roll out ``position`` (the side on roll's view, cube and score in ``state``): the
    position, the plays of ``dice`` or the cube decision (``cube``, which is cubeful).

    Runs on ``backend``, else Ray at ``ray_address``, else ``workers`` local processes
    (None: one per core).  ``progress(done, total)`` is called after each batch.  With
    ``partial``, Ctrl-C after some trials returns what they found (``interrupted``).
    """
    state = state or CubeState()
    settings = settings or RolloutSettings()
    if cube and not settings.cubeful:
        raise ValueError("a cube decision is rolled out cubeful: set cubeful")
    cands = candidates_for(position, state, dice, cube, moves, top, weights, bearoff, met)
    job = RolloutJob(cands, settings, state, weights, bearoff, met)
    if backend is None:
        backend = backend_for(workers, ray_address)
    probs, values = _Moments(), _Moments()
    try:
        for part in backend.run(job, batches(settings)):
            probs.add(part.probs.transpose(0, 2, 1).reshape(-1, part.probs.shape[1]))
            values.add(part.cubeful)
            if progress is not None:
                progress(values.n, settings.trials)
            target = settings.target_se
            enough = target is not None and values.n >= settings.min_trials
            if enough and values.se().max() <= (target or 0.0):
                break
    except KeyboardInterrupt:
        if not partial or values.n == 0:
            raise
        return replace(_result(job, probs, values, cube), interrupted=True)
    return _result(job, probs, values, cube)


def _emg(state: CubeState, met: MatchEquityTable) -> tuple[float, float]:
    """``(scale, offset)`` turning MWC into normalised equity: winning a game of the cube
    is +1, losing one is -1."""
    a, b = state.away
    v = state.cube_value
    post = state.crawford or state.post_crawford
    win, lose = met.equity(a - v, b, post), met.equity(a, b - v, post)
    return 2.0 / (win - lose), -1.0 - 2.0 * lose / (win - lose)


def _result(job: RolloutJob, probs: _Moments, values: _Moments, cube: bool) -> RolloutResult:
    state, met = job.root, job.met
    p_mean = probs.mean.reshape(len(job.candidates), 5)
    p_se = probs.se().reshape(len(job.candidates), 5)
    v_mean, v_se = values.mean, values.se()
    out: list[CandidateResult] = []
    for k, cand in enumerate(job.candidates):
        pm = tuple(float(x) for x in p_mean[k])
        ps = tuple(float(x) for x in p_se[k])
        pm5: Probs5 = (pm[0], pm[1], pm[2], pm[3], pm[4])
        ps5: Probs5 = (ps[0], ps[1], ps[2], ps[3], ps[4])
        if state.is_money:
            out.append(CandidateResult(cand.label, pm5, ps5, float(v_mean[k]), float(v_se[k])))
        else:
            scale, offset = _emg(state, met)
            out.append(
                CandidateResult(
                    cand.label,
                    pm5,
                    ps5,
                    float(v_mean[k] * scale + offset),
                    float(v_se[k] * scale),
                    float(v_mean[k]),
                    float(v_se[k]),
                )
            )
    if cube:
        zero: Probs5 = (0.0, 0.0, 0.0, 0.0, 0.0)
        nd = out[0].probabilities
        if state.is_money:
            out.append(CandidateResult(CUBE_LABELS[2], nd, zero, 1.0, 0.0))
        else:
            a, b = state.away
            post = state.crawford or state.post_crawford
            dp = met.equity(a - state.cube_value, b, post)
            out.append(CandidateResult(CUBE_LABELS[2], nd, zero, 1.0, 0.0, dp, 0.0))
    else:
        out.sort(key=lambda c: -c.equity)
    return RolloutResult(values.n, tuple(out), job.settings)
