"""Tesauro's pubeval: the public-domain linear evaluator used as a benchmark opponent.

The weights are the ones Gerald Tesauro published (public domain).  A play is scored by a
dot product of 122 inputs describing the position after the play with one of two weight
vectors, chosen by whether the position *before* the play was a race.  All candidate plays
of a roll are scored in one numpy call.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["CONTACT_WEIGHTS", "RACE_WEIGHTS", "pubeval_inputs", "pubeval_scores"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CONTACT_WEIGHTS = np.array(
    [
        0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725, -1.06654,
        -0.92830, -1.99558, -1.10388, -0.80802, 0.09856, -0.62086, -1.27999, -0.59220,
        -0.73667, 0.89032, -0.38933, -1.59847, -1.50197, -0.60966, 1.56166, -0.47389,
        -1.80390, -0.83425, -0.97741, -1.41371, 0.24500, 0.10970, -1.36476, -1.05572,
        1.15420, 0.11069, -0.38319, -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
        -0.73169, -0.56074, 1.09792, 0.15977, 0.13786, -1.18435, -0.43363, 1.06169,
        -0.21329, 0.04798, -0.94373, -0.22982, 1.22737, -0.13099, -0.06295, -0.75882,
        -0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.23070, 0.40868,
        -0.21081, -0.64073, 0.31061, 1.59554, 0.65718, 0.25429, -0.80789, 0.08240,
        1.78964, 0.54304, 0.41174, -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
        -0.90750, 0.05941, 1.83120, 0.58722, 1.28777, -0.83711, -0.33248, 2.64983,
        0.52698, 0.82132, -0.58897, -1.18223, 3.35809, 0.62017, 0.57353, -0.07276,
        -0.36214, 4.37655, 0.45481, 0.21746, 0.10504, -0.61977, 3.54001, 0.04612,
        -0.18108, 0.63211, -0.87046, 2.47673, -0.48016, -1.27157, 0.86505, -1.11342,
        1.24612, -0.82385, -2.77082, 1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
        5.62596, -2.75800,
    ]
)  # fmt: skip
"""Tesauro's published contact weights (``wc``)."""

RACE_WEIGHTS = np.array(
    [
        0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375, -1.05121,
        0.07217, -0.01351, 0.00000, -1.29506, -2.16183, 0.13246, -1.03508, 0.00000,
        -2.29847, -2.34631, 0.17253, 0.08302, 0.00000, -1.27266, -2.87401, -0.07456,
        -0.34240, 0.00000, -1.34640, -2.46556, -0.13022, -0.01591, 0.00000, 0.27448,
        0.60015, 0.48302, 0.25236, 0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
        0.00000, 0.24855, -0.06844, -0.37646, 0.05685, 0.00000, 0.17405, 0.00430,
        0.74427, 0.00576, 0.00000, 0.12392, 0.31202, -0.91035, -0.16270, 0.00000,
        0.01418, -0.10839, -0.02781, -0.88035, 0.00000, 1.07274, 2.00366, 1.16242,
        0.22520, 0.00000, 0.85631, 1.06349, 1.49549, 0.18966, 0.00000, 0.37183,
        -0.50352, -0.14818, 0.12039, 0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
        0.00000, -0.22082, 0.20178, -0.06285, -0.52728, 0.00000, -0.13597, -0.19412,
        -0.09308, -1.26062, 0.00000, 3.05454, 5.16874, 1.50680, 5.35000, 0.00000,
        2.19605, 3.85390, 0.88296, 2.30052, 0.00000, 0.92321, 1.08744, -0.11696,
        -0.78560, 0.00000, -0.09795, -0.83050, -1.09167, -4.94251, 0.00000, -1.00316,
        -3.66465, -2.56906, -9.67677, 0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
        0.00000, 3.42040,
    ]
)  # fmt: skip
"""Tesauro's published race weights (``wr``)."""

# Five inputs per point for a signed count n (mover positive): n == -1, n == 1, n >= 2,
# n == 3, (n - 3) / 2 for n >= 4.  Indexed by n + 15.
_UNITS = np.array(
    [[n == -1, n == 1, n >= 2, n == 3, (n - 3) / 2 if n >= 4 else 0.0] for n in range(-15, 16)],
    dtype=np.float64,
)


def pubeval_inputs(after: IntArray) -> FloatArray:
    """The 122 inputs for boards seen by the player who has just moved.

    ``after`` is ``(N, 26)`` in the core's layout but from the point of view of the player
    who played (so *not* flipped: their checkers positive, point 25 their bar).
    """
    after = np.asarray(after, dtype=np.int64)
    n = len(after)
    x = np.empty((n, 122))
    # Input block j (0..23) describes point 24 - j.
    x[:, :120] = _UNITS[after[:, 24:0:-1] + 15].reshape(n, 120)
    x[:, 120] = -after[:, 0] / 2.0
    x[:, 121] = (15 - np.maximum(after, 0).sum(axis=1)) / 15.0
    return x


def pubeval_scores(after: IntArray, race: bool) -> FloatArray:
    """pubeval's score of each board (higher is better for the player who moved).

    ``race`` describes the position *before* the play, as in Tesauro's code.  A play that
    bears off the last checker scores 99999999, as in the original.
    """
    after = np.asarray(after, dtype=np.int64)
    weights = RACE_WEIGHTS if race else CONTACT_WEIGHTS
    scores = pubeval_inputs(after) @ weights
    finished = ~(after > 0).any(axis=1)
    return np.where(finished, 99999999.0, scores)
