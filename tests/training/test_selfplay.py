"""Greedy self-play: the opening roll, turns played at random and plays picked by a chooser
on request."""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np
import pytest

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.probabilities import flip_probs
from backgammon.training.nets import random_pair
from backgammon.training.selfplay import (
    Choose,
    ExploreError,
    greedy_game,
    greedy_games,
    opening_roll,
    player_chooser,
)

RAW = CompositeEvaluator(random_pair(np.random.default_rng(3), 8, 4), consistent=False)


def judge(boards: np.ndarray) -> np.ndarray:
    return flip_probs(RAW.evaluate(boards))


def chosen_and_best(
    seed: int, explore: float, choose: Choose | None = None
) -> list[tuple[int, int, int]]:
    """Per turn with a choice: (index played, index of the best play, number of plays)."""
    visits: list[tuple[list[tuple[int, ...]], int]] = []

    def visit(after: np.ndarray, eq: np.ndarray, best: int) -> None:
        assert best == int(np.argmax(eq)) or choose is not None
        visits.append(([tuple(row) for row in after.tolist()], best))

    states, _ = greedy_game(random.Random(seed), judge, visit, explore, choose)
    out = []
    k = 0
    for state in states[1:]:  # each state met after the opening is played into or a lost turn
        if k < len(visits) and state in visits[k][0]:
            afters, best = visits[k]
            out.append((afters.index(state), best, len(afters)))
            k += 1
    assert k >= len(visits) - 1  # the game's last play leads to no state met
    return out


def test_the_opening_roll_is_never_a_double() -> None:
    """R3: the first roll is thrown until the dice differ."""
    rng = random.Random(1)
    assert all(a != b for a, b in (opening_roll(rng) for _ in range(500)))


def test_without_exploring_every_turn_plays_the_best_play() -> None:
    turns = chosen_and_best(4, 0.0)
    assert len(turns) > 20
    assert all(played == best for played, best, _ in turns)


def test_exploring_plays_random_plays_in_about_that_share_of_turns() -> None:
    """With explore p a turn of n plays leaves the best one with chance p (n - 1) / n."""
    turns = [t for seed in range(6) for t in chosen_and_best(seed, 0.5)]
    other = sum(played != best for played, best, _ in turns)
    expected = sum(0.5 * (n - 1) / n for _, _, n in turns)
    assert abs(other - expected) < 4 * np.sqrt(expected)
    always = chosen_and_best(4, 1.0)
    assert sum(played != best for played, best, _ in always) > len(always) / 2


def test_exploring_is_reproducible_and_plays_other_games() -> None:
    a = greedy_games(random.Random(7), judge, 3, explore=0.2)
    b = greedy_games(random.Random(7), judge, 3, explore=0.2)
    plain = greedy_games(random.Random(7), judge, 3)
    assert [s for s, _ in a] == [s for s, _ in b]
    assert [s for s, _ in a] != [s for s, _ in plain]


def test_a_chooser_plays_in_place_of_the_judge() -> None:
    """``choose`` gets the position, dice, plays and the judge's best, and its pick is played
    and shown to ``visit``: here always the last legal play."""
    asked: list[tuple[Position, tuple[int, int], int]] = []

    def last(pos: Position, dice: tuple[int, int], moves: list[Move], best: int) -> int:
        assert moves == pos.legal_moves(dice) and 0 <= best < len(moves)
        asked.append((pos, dice, len(moves)))
        return len(moves) - 1

    turns = chosen_and_best(4, 0.0, last)
    assert len(turns) > 20 and len(asked) >= len(turns)
    assert all(played == best == n - 1 for played, best, n in turns)


def asking(who: str, asked: list[tuple[str, Position]]) -> Choose:
    """A chooser that logs who was asked at which position: "them" play their last play."""

    def choose(pos: Position, dice: tuple[int, int], moves: list[Move], best: int) -> int:
        asked.append((who, pos))
        return len(moves) - 1 if who == "them" else best

    return choose


def test_an_opponent_plays_every_turn_of_one_side_and_no_other() -> None:
    """Turns alternate between the sides (a turn without a legal play counts too): each turn
    with a play is asked of the opponent or of ``choose``, the opponent's all of one parity
    and the others' all of the other; which side it plays is drawn game by game."""
    sides = set()
    for seed in range(8):
        asked: list[tuple[str, Position]] = []
        us, them = asking("us", asked), asking("them", asked)
        states, _ = greedy_game(random.Random(seed), judge, choose=us, opponent=them)
        turns: dict[str, set[int]] = {"us": set(), "them": set()}
        t = 0
        for who, pos in asked:  # each asked position is a later state of the game
            while states[t] != pos.board:
                t += 1
            turns[who].add(t % 2)
            t += 1
        assert len(turns["us"]) == len(turns["them"]) == 1 and turns["us"] != turns["them"]
        sides |= turns["them"]
    assert sides == {0, 1}


def test_a_player_is_a_chooser_and_no_opponent_keeps_the_old_games() -> None:
    """``player_chooser`` plays the player's own choice; no opponent is the default, and with
    one the same seed plays other games."""
    played: list[Move | None] = []

    class First:
        def choose_move(self, pos: Position, dice: tuple[int, int]) -> Move | None:
            moves = pos.legal_moves(dice)
            played.append(moves[0] if moves else None)
            return played[-1]

    choose = player_chooser(First())  # type: ignore[arg-type]
    pos = Position.initial()
    moves = pos.legal_moves((3, 1))
    assert choose(pos, (3, 1), moves, 5) == 0 and played == [moves[0]]
    a = greedy_games(random.Random(5), judge, 2)
    b = greedy_games(random.Random(5), judge, 2, opponent=None)
    c = greedy_games(random.Random(5), judge, 2, opponent=choose)
    assert [s for s, _ in a] == [s for s, _ in b] != [s for s, _ in c]


@pytest.mark.parametrize("explore", [-0.1, 1.5, float("nan")])
def test_a_share_that_is_not_a_probability_is_refused_before_any_dice(explore: float) -> None:
    rng = random.Random(2)
    before = rng.getstate()
    with pytest.raises(ExploreError):
        greedy_games(rng, judge, 2, explore=explore)
    assert rng.getstate() == before


def test_dances_show_each_lost_turn_and_leave_the_games_as_they_were() -> None:
    """With ``dances`` each turn without a legal play is shown to ``visit`` as the one board
    after it: the same position, the other side on roll (and, mostly, the dancer's checker
    still on the bar).  The games (dice and plays) are those played without it."""

    def visit(
        after: np.ndarray, eq: np.ndarray, best: int, into: list[list[tuple[int, ...]]]
    ) -> None:
        assert len(after) == len(eq) and 0 <= best < len(after)
        into.append([tuple(row) for row in after.tolist()])

    dances = on_bar = 0
    for seed in range(8):
        seen: dict[bool, list[list[tuple[int, ...]]]] = {True: [], False: []}
        games = {}
        for on in (True, False):
            games[on], _ = greedy_game(
                random.Random(seed), judge, functools.partial(visit, into=seen[on]), 0.3, dances=on
            )
        assert games[True] == games[False]
        states = games[True]
        lost = [b for a, b in itertools.pairwise(states) if Position(a).flip().board == b]
        extra = [v for v in seen[True] if v not in seen[False]]
        assert len(seen[True]) == len(seen[False]) + len(lost)
        assert extra == [[b] for b in lost]
        dances += len(lost)
        on_bar += sum(b[0] < 0 for b in lost)
    assert dances >= 3 and on_bar >= dances / 2
