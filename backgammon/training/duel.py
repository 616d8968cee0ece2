"""Cubeless money games between two players with duplicate dice, to measure strength.

Each dice sequence is played twice with the seats swapped, so luck mostly cancels; a pair's
result is the mean of its two games, and the standard error is computed over pairs.
"""

from __future__ import annotations

import math
import random
from typing import Protocol

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.training.selfplay import opening_roll

__all__ = ["Chooser", "duplicate_pairs", "mean_and_error", "play_game"]


class Chooser(Protocol):
    """The one thing a duel needs of a player."""

    def choose_move(self, position: Position, dice: tuple[int, int]) -> Move | None: ...


def play_game(first: Chooser, second: Chooser, seed: int) -> int:
    """One cubeless game from the opening (``first`` moves first, the dice from ``seed``);
    the points won by ``first`` (negative if it lost)."""
    rng = random.Random(seed)
    d1, d2 = opening_roll(rng)
    pos = Position.initial()
    players = (first, second)
    turn = 0
    while True:
        move = players[turn].choose_move(pos, (d1, d2))
        pos = pos.flip() if move is None else pos.play(move)
        outcome = pos.outcome()
        if outcome is not None:
            return outcome.points if turn == 0 else -outcome.points
        turn ^= 1
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)


def duplicate_pairs(player: Chooser, opponent: Chooser, start: int, count: int) -> list[float]:
    """Points per game of ``player`` on each of ``count`` dice sequences from seed ``start``,
    each played once from each seat."""
    return [
        (play_game(player, opponent, seed) - play_game(opponent, player, seed)) / 2.0
        for seed in range(start, start + count)
    ]


def mean_and_error(pairs: list[float]) -> tuple[float, float]:
    """Mean points per game and its standard error over the pairs."""
    n = len(pairs)
    mean = sum(pairs) / n
    var = sum((x - mean) ** 2 for x in pairs) / max(1, n - 1)
    return mean, math.sqrt(var / n)
