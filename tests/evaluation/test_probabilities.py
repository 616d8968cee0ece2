"""The five probabilities: equity, flip and finished games, each written once."""

from __future__ import annotations

import numpy as np
from gnubg_reference import played_game_cases

from backgammon import Position
from backgammon.evaluation.encode import boards_array
from backgammon.evaluation.probabilities import (
    Probabilities,
    cubeless_equity,
    flip_probs,
    game_over_probs,
)


def test_equity_counts_each_win_and_loss_level() -> None:
    assert Probabilities(1.0, 0.0, 0.0, 0.0, 0.0).equity() == 1.0
    assert Probabilities(1.0, 1.0, 1.0, 0.0, 0.0).equity() == 3.0
    assert Probabilities(0.0, 0.0, 0.0, 1.0, 0.0).equity() == -2.0
    assert Probabilities(0.5, 0.0, 0.0, 0.0, 0.0).equity() == 0.0


def test_flip_is_the_other_side_for_one_row_and_a_batch() -> None:
    p = Probabilities(0.7, 0.3, 0.05, 0.1, 0.01)
    assert p.flip() == Probabilities(1.0 - 0.7, 0.1, 0.01, 0.3, 0.05)
    assert p.flip().flip() == p
    assert p.flip().equity() == -p.equity()
    batch = np.array([p, p.flip()])
    assert np.array_equal(flip_probs(batch), np.array([p.flip(), p]))
    assert np.allclose(cubeless_equity(batch), [p.equity(), -p.equity()])
    assert np.array_equal(np.asarray(p), p.array()) and Probabilities.of(p.array()) == p


def test_finished_games_match_the_rules_outcome() -> None:
    finished: list[Position] = []
    for pos, d1, d2 in played_game_cases(40, seed=5):
        for move in pos.legal_moves((d1, d2)):
            after = pos.play(move)
            if after.is_game_over():
                finished.extend([after, after.flip()])
    assert len(finished) >= 20
    done, probs = game_over_probs(boards_array(p.board for p in finished))
    assert done.all()
    for pos, p in zip(finished, probs, strict=True):
        outcome = pos.outcome()
        assert outcome is not None
        exact = Probabilities.of(p)
        won = outcome.winner_on_roll
        assert exact.win == float(won)
        assert exact.equity() == (outcome.points if won else -outcome.points)
    live, zeros = game_over_probs(boards_array([Position.initial().board]))
    assert not live.any() and not zeros.any()
