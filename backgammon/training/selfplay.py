"""Games without a match around them: the opening roll, and greedy 0-ply self-play."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.encode import after_boards_many, boards_array
from backgammon.evaluation.probabilities import cubeless_equity
from backgammon.players.base import Player

__all__ = [
    "Choose",
    "ExploreError",
    "greedy_game",
    "greedy_games",
    "opening_roll",
    "player_chooser",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

Judge = Callable[[IntArray], FloatArray]
"""Probabilities of boards just played, for the side that played them."""
Visit = Callable[[IntArray, FloatArray, int], None]
"""Sees each choice: the boards after every play (opponent on roll), their equities, the
index chosen (and, on request, each lost turn: the one board after it)."""
Choose = Callable[[Position, tuple[int, int], list[Move], int], int]
"""Chooses a play in place of the judge's best: the position, the dice, the legal plays and
the index of the judge's best; returns the index played."""


class ExploreError(ValueError):
    """The share of turns played at random is not a probability."""


def player_chooser(player: Player) -> Choose:
    """A player's own choice as a :data:`Choose` (it ignores the judge's best)."""

    def choose(pos: Position, dice: tuple[int, int], moves: list[Move], best: int) -> int:
        move = player.choose_move(pos, dice)
        return best if move is None else moves.index(move)

    return choose


def opening_roll(rng: random.Random) -> tuple[int, int]:
    """The first roll of a game: both dice thrown until they differ (R3)."""
    while True:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        if d1 != d2:
            return d1, d2


def greedy_game(
    rng: random.Random,
    judge: Judge,
    visit: Visit | None = None,
    explore: float = 0.0,
    choose: Choose | None = None,
    opponent: Choose | None = None,
    dances: bool = False,
) -> tuple[list[tuple[int, ...]], FloatArray]:
    """One game from the opening, each side choosing the play of highest cubeless equity by
    ``judge`` (the first on ties), dice from ``rng``; with probability ``explore`` a turn
    plays a legal play drawn at random instead (``visit`` still sees the best as chosen), so
    that the games also meet positions the net's own choices avoid; ``choose`` (a deeper
    search, say) picks the plays in place of the judge's best; ``opponent`` plays one side
    of the game instead (which one is drawn from ``rng`` after the opening roll), so that
    the games meet the positions another player's style leads to; with ``dances`` ``visit``
    also sees each turn without a legal play, as the one board after it (the same position,
    the opponent on roll; mostly a checker left on the bar: a blitz's cube decision, which
    no play leads to).  Returns the boards met,
    each from its side on roll and the last one before the game ended, and the final
    ``judge`` output of the winning play (the winner's exact result when ``judge`` knows
    finished games)."""
    return greedy_games(rng, judge, 1, visit, explore, choose, opponent, dances)[0]


def greedy_games(
    rng: random.Random,
    judge: Judge,
    count: int,
    visit: Visit | None = None,
    explore: float = 0.0,
    choose: Choose | None = None,
    opponent: Choose | None = None,
    dances: bool = False,
) -> list[tuple[list[tuple[int, ...]], FloatArray]]:
    """``count`` games of :func:`greedy_game` played side by side, so that the candidate
    plays of all of them go through ``judge`` in one call (the dice, and the draws of
    ``explore``, come from ``rng`` game by game at each turn: one game is exactly
    :func:`greedy_game`)."""
    if not 0.0 <= explore <= 1.0:
        raise ExploreError(f"explore must be a probability from 0 to 1, got {explore!r}")
    positions = [Position.initial()] * count
    dice = [opening_roll(rng) for _ in range(count)]
    # the turn parity the opponent plays in each game (no draw without one: old dice stay)
    theirs = [rng.randrange(2) for _ in range(count)] if opponent is not None else [-1] * count
    met: list[list[tuple[int, ...]]] = [[p.board] for p in positions]
    results: list[FloatArray | None] = [None] * count
    active = list(range(count))
    while active:
        plays = [(g, positions[g].legal_moves(dice[g])) for g in active]
        moving = [(g, moves) for g, moves in plays if moves]
        best = {}
        if moving:
            after, counts = after_boards_many(
                [positions[g].board for g, _ in moving], [moves for _, moves in moving]
            )
            probs = judge(after)
            eq = cubeless_equity(probs)
            for (g, moves), lo in zip(moving, (np.cumsum(counts) - counts).tolist(), strict=True):
                hi = lo + len(moves)
                i = int(np.argmax(eq[lo:hi]))
                if (len(met[g]) - 1) % 2 == theirs[g]:  # one board met per turn played
                    assert opponent is not None
                    i = opponent(positions[g], dice[g], moves, i)
                elif choose is not None:
                    i = choose(positions[g], dice[g], moves, i)
                if visit is not None:
                    visit(after[lo:hi], eq[lo:hi], i)
                if explore and rng.random() < explore:
                    i = rng.randrange(len(moves))
                best[g] = (moves[i], probs[lo + i])
        stuck = [g for g, moves in plays if not moves] if dances else []
        if visit is not None and stuck:
            after = boards_array(positions[g].flip().board for g in stuck)
            eq = cubeless_equity(judge(after))
            for k in range(len(stuck)):
                visit(after[k : k + 1], eq[k : k + 1], 0)
        still = []
        for g in active:
            pos = positions[g]
            if g in best:
                move, p = best[g]
                pos = pos.play(move)
                if pos.is_game_over():
                    results[g] = p
                    continue
            else:
                pos = pos.flip()
            positions[g] = pos
            met[g].append(pos.board)
            dice[g] = (rng.randint(1, 6), rng.randint(1, 6))
            still.append(g)
        active = still
    return [(m, r) for m, r in zip(met, results, strict=True) if r is not None]
