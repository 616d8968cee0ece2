"""The FIBS rating formula: how a rated match of length N changes both players' ratings.

As FIBS documents it (``help formula``; the FIBS glossary "Ratings" page and Kevin Bastian's
"The FIBS Rating System"): every player starts at 1500 with no experience; with
``D = |r1 - r2|`` the underdog wins with probability
``P_upset = 1 / (10 ** (D * sqrt(N) / 2000) + 1)``; the winner gains and the loser loses
``4 * K * sqrt(N) * P``, where ``P`` is the probability that the winner would *not* have won
(``P_upset`` if the favourite won, ``1 - P_upset`` if the underdog did) and each player's
own ``K = max(1, 5 - experience / 100)`` speeds up the ratings of players under 400
experience points; a player's experience grows by N with every finished match.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "ESTABLISHED",
    "PAIR_PER_DAY",
    "START",
    "Change",
    "experience_factor",
    "fibs_change",
    "win_probability",
]

START = 1500.0
"""Every player's first rating."""
ESTABLISHED = 5
"""An account is established once this many rated matches have moved its rating (a bot
always is): a match against an account that is not does not move an established rating."""
PAIR_PER_DAY = 3
"""Only the first this many rated matches of one pair in 24 hours move their ratings."""


@dataclass(frozen=True)
class Change:
    """What one rated match does to its two players: the new ratings and experiences."""

    winner_rating: float
    loser_rating: float
    winner_experience: int
    loser_experience: int


def win_probability(rating: float, opponent: float, length: int) -> float:
    """The chance FIBS gives a player rated ``rating`` of winning a ``length``-point match."""
    upset = 1.0 / (math.pow(10.0, abs(rating - opponent) * math.sqrt(length) / 2000.0) + 1.0)
    return 1.0 - upset if rating >= opponent else upset


def experience_factor(experience: int) -> float:
    """FIBS's K: 5 for a new player, falling to 1 at 400 experience points."""
    return max(1.0, 5.0 - experience / 100.0)


def fibs_change(
    winner: float, loser: float, length: int, winner_experience: int, loser_experience: int
) -> Change:
    """The ratings and experiences after a ``length``-point match won by the player rated
    ``winner`` against the one rated ``loser``."""
    base = 4.0 * math.sqrt(length) * (1.0 - win_probability(winner, loser, length))
    return Change(
        winner_rating=winner + base * experience_factor(winner_experience),
        loser_rating=loser - base * experience_factor(loser_experience),
        winner_experience=winner_experience + length,
        loser_experience=loser_experience + length,
    )
