"""Numba's kernels compiled once into the checkout's cache while mypy runs, so the tests'
many processes load them instead of compiling them each at once."""

from pathlib import Path

import numpy as np

from backgammon.env.batch import BatchEnv
from backgammon.env.observation import OBSERVATIONS
from backgammon.judging.analysis import analyse
from backgammon.records.convert import read_record_text

SAMPLE = Path(__file__).parent.parent / "tests" / "data" / "samples" / "gnubg107_5pt_match.mat"

analyse(read_record_text(SAMPLE.read_text(), "mat"), plies=1)
rng = np.random.default_rng(0)
for opponent in (None, "random", "pubeval"):
    for observation in OBSERVATIONS:
        for cube, length in ((False, None), (True, None), (True, 5)):
            env = BatchEnv(
                opponent=opponent, cube=cube, match_length=length, observation=observation
            )
            env.reset(4, seed=0)
            for _ in range(40):
                env.step(env.sample(rng))
