"""Rollout dice: trial ``i``'s rolls depend on the seed and ``i`` alone, so trials can be
played in any batch, on any worker, and give the same numbers.

Quasi-random dice (gnubg's "rotate" option) stratify the early rolls: over each block of 36
trials the first roll takes every one of the 36 values once; over each block of 1296 the first
two rolls take every one of the 1296 pairs once, and so on for up to six rolls.  The value of
roll ``t`` of trial ``i`` is built digit by digit from ``i`` written in base 36, each digit
passed through a seeded permutation of the 36 rolls (one per digit and turn) and added to the
value so far, so a block's trials differ in the early rolls in every possible way while later
rolls still look random.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["GENERATIONS", "QUASI_TURNS", "roll_indices", "to_dice"]

IntArray = npt.NDArray[np.int64]

GENERATIONS = 6
"""Base-36 digits of the trial number used by the quasi-random dice (36**6 > 2**31 trials)."""
QUASI_TURNS = 128
"""Rolls of a game that are quasi-random; later ones are pseudo-random."""

_STREAM = 0x524F4C4C  # separates the dice streams from the permutations' stream


def _permutations(seed: int) -> IntArray:
    """``(GENERATIONS, QUASI_TURNS, 36)`` seeded permutations of the 36 rolls."""
    rng = np.random.default_rng([seed, _STREAM, 1])
    base = np.tile(np.arange(36, dtype=np.int64), (GENERATIONS, QUASI_TURNS, 1))
    return np.asarray(rng.permuted(base, axis=2))


_PERM_CACHE: dict[int, IntArray] = {}


def roll_indices(seed: int, trials: IntArray, turns: int, quasi_random: bool) -> IntArray:
    """Rolls ``(len(trials), turns)`` as indices 0-35 (``6 * (die1 - 1) + die2 - 1``)."""
    trials = np.asarray(trials, dtype=np.int64)
    out = np.empty((len(trials), turns), dtype=np.int64)
    for row, i in enumerate(trials):
        rng = np.random.default_rng([seed, _STREAM, 0, int(i)])
        out[row] = rng.integers(0, 36, size=turns)
    if quasi_random:
        perms = _PERM_CACHE.get(seed)
        if perms is None:
            perms = _PERM_CACHE[seed] = _permutations(seed)
        for t in range(min(turns, QUASI_TURNS)):
            value = np.zeros(len(trials), dtype=np.int64)
            for g in range(min(GENERATIONS, t + 1)):
                digit = (trials // 36**g) % 36
                value = perms[g, t, (digit + value) % 36]
            out[:, t] = value
    return out


def to_dice(index: int) -> tuple[int, int]:
    """The two dice of a roll index, larger first."""
    a, b = divmod(int(index), 6)
    return (a + 1, b + 1) if a >= b else (b + 1, a + 1)
