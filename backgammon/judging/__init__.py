"""Judging play: analysis of a match (:mod:`~backgammon.judging.analysis`, one walk over its
record) and rollouts (:mod:`~backgammon.judging.rollout`: the lockstep engine, a local
process pool, a Ray backend).
"""
