"""gnubg's marks of an error and the thresholds above which they are given, apart from
:mod:`~backgammon.judging.results` so that the command line can offer them without loading
the engine."""

from __future__ import annotations

__all__ = ["MARK_WORDS", "THRESHOLDS", "Thresholds"]

Thresholds = tuple[tuple[str, float], ...]
"""Marks and the errors (EMG) above which they are given, worst first."""

THRESHOLDS: Thresholds = (("very bad", 0.12), ("bad", 0.06), ("doubtful", 0.03))
"""gnubg 1.07's marks (``show analysis``): an error (EMG) above the threshold gets the word."""


MARK_WORDS = ("doubtful", "bad", "very bad")
"""The marks from the mildest."""
