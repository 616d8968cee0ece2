"""Rollouts: a position, the plays of a roll or a cube decision played out many times by
the bot and averaged, cubeless or cubeful, with variance reduction and quasi-random dice,
reproducible whatever runs the trials (this process, a process pool, or a Ray cluster).

    >>> from backgammon import Position
    >>> from backgammon.judging.rollout import RolloutSettings, rollout
    >>> r = rollout(Position.initial(), dice=(3, 1), top=2,
    ...             settings=RolloutSettings(trials=36, truncate=2))
    >>> r.trials, sorted(c.play for c in r.candidates)
    (36, ['24/20', '8/5 6/5'])
"""

from __future__ import annotations

from backgammon.judging.rollout.engine import (
    Candidate,
    RolloutJob,
    RolloutSettings,
    RolloutSettingsError,
    TrialResults,
    play_trials,
)
from backgammon.judging.rollout.run import CUBE_LABELS, CandidateResult, RolloutResult, rollout

__all__ = [
    "CUBE_LABELS",
    "Candidate",
    "CandidateResult",
    "RolloutJob",
    "RolloutResult",
    "RolloutSettings",
    "RolloutSettingsError",
    "TrialResults",
    "play_trials",
    "rollout",
]
