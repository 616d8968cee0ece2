"""Duplicate-dice duels: the seats swap on the same dice, and the shipped net is strong."""

from __future__ import annotations

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.players import get
from backgammon.training.duel import duplicate_pairs, mean_and_error, play_game


def test_a_player_against_itself_scores_zero_on_every_pair() -> None:
    bot = get("pubeval")
    pairs = duplicate_pairs(bot, bot, start=0, count=20)
    assert pairs == [0.0] * 20  # same dice, same choices: each seat wins the same


def test_game_points_are_single_gammon_or_backgammon() -> None:
    a, b = get("random", seed=1), get("random", seed=2)
    results = {play_game(a, b, seed) for seed in range(40)}
    assert results <= {-3, -2, -1, 1, 2, 3} and len(results) >= 3


def test_the_first_player_moves_first_with_a_non_double() -> None:
    seen: list[tuple[Position, tuple[int, int]]] = []

    class Spy:
        def choose_move(self, position: Position, dice: tuple[int, int]) -> Move | None:
            seen.append((position, dice))
            moves = position.legal_moves(dice)
            return moves[0] if moves else None

    play_game(Spy(), Spy(), seed=3)
    assert seen[0][0] == Position.initial() and seen[0][1][0] != seen[0][1][1]


def test_mean_and_error() -> None:
    mean, error = mean_and_error([1.0, -1.0, 1.0, -1.0])
    assert mean == 0.0 and abs(error - (4 / 3) ** 0.5 / 2) < 1e-12


def test_the_shipped_net_beats_pubeval() -> None:
    # 300 duplicate pairs; the full figure (10,000 games) is bench/strength.py's.
    pairs = duplicate_pairs(get("neural", plies=0), get("pubeval"), start=7_000_000, count=300)
    mean, error = mean_and_error(pairs)
    assert mean - 3 * error > 0.2, (mean, error)
