"""The composite evaluator's fast paths judge every board as the plain computation does."""

from __future__ import annotations

import numpy as np
import pytest
from gnubg_reference import bearoff_cases, played_game_cases

from backgammon import Position
from backgammon.evaluation.bearoff import BearoffDatabase
from backgammon.evaluation.encode import after_boards, boards_array, is_race
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.net import NetPair, default_nets
from backgammon.evaluation.probabilities import game_over_probs
from backgammon.evaluation.search import Searcher
from backgammon.training.nets import random_pair


@pytest.fixture(scope="module")
def database() -> BearoffDatabase:
    return BearoffDatabase.load(progress=False)


def _candidate_batches(games: int, seed: int) -> list[np.ndarray]:
    """The boards after every play of each roll of played games: one batch per roll."""
    out = []
    for pos, d1, d2 in played_game_cases(games, seed=seed):
        moves = pos.legal_moves((d1, d2))
        if len(moves) > 1:
            out.append(after_boards(pos.board, moves))
    return out


def test_first_layer_without_the_inputs_no_candidate_has() -> None:
    # A roll's candidates leave most inputs zero in every row: the product without them
    # is the full product (up to float32 rounding), one row alone or in its batch.
    nets = default_nets()
    for b in _candidate_batches(4, seed=21):
        x = nets.encode(b)[0]
        assert 2 * (x != 0).any(axis=0).sum() < x.shape[1]  # the shortened product is used
        full = nets.contact.forward(x)[1]
        assert np.allclose(nets.contact(x), full, rtol=0, atol=1e-6)
        assert np.allclose(nets.contact(x[:1]), full[:1], rtol=0, atol=1e-6)
    dense = np.random.default_rng(5).random(
        (7, nets.contact.w1.shape[0])
    )  # every input used: the full product
    assert np.allclose(nets.contact(dense), nets.contact.forward(dense)[1], rtol=0, atol=1e-6)


class _OnlyEvaluate:
    """The nets behind the bare Evaluator protocol (no race flags given back)."""

    def __init__(self, nets: NetPair) -> None:
        self.nets = nets

    def evaluate(self, boards: np.ndarray) -> np.ndarray:
        return self.nets.evaluate(boards)


def test_bear_offs_are_looked_up_in_any_batch(database: BearoffDatabase) -> None:
    # Mixed batches (contact and pure bear-offs), contact-only batches and the bare
    # protocol all give each board what it gets alone (to float32 rounding: the nets
    # play in float32, whose products depend a little on the batch).
    fast = CompositeEvaluator(default_nets(), database)
    bare = CompositeEvaluator(_OnlyEvaluate(default_nets()), database)
    contact = _candidate_batches(2, seed=22)
    bearoffs = boards_array(pos.board for pos, _, _ in bearoff_cases(40, seed=3))
    mixed = np.concatenate([contact[0], bearoffs])
    assert is_race(mixed).any() and not is_race(mixed).all()
    for batch in [mixed, bearoffs, *contact[:20]]:
        alone = np.concatenate([fast.evaluate(row[None, :]) for row in batch])
        assert np.allclose(fast.evaluate(batch), alone, rtol=0, atol=1e-6)
        assert np.allclose(bare.evaluate(batch), alone, rtol=0, atol=1e-6)


def test_race_flags_come_from_the_nets_own_layout() -> None:
    b = np.concatenate(_candidate_batches(1, seed=23))
    for layout in (1, 2):
        nets = random_pair(np.random.default_rng(layout), hidden=8, race_hidden=4, inputs=layout)
        probs, race = nets.evaluate_with_race(b)
        assert np.array_equal(probs, nets.evaluate(b))
        assert np.array_equal(race, is_race(b))


def test_the_plays_given_are_the_plays_judged(database: BearoffDatabase) -> None:
    searcher = Searcher(CompositeEvaluator(default_nets(), database))
    for pos, d1, d2 in played_game_cases(2, seed=24):
        moves = pos.legal_moves((d1, d2))
        chosen = searcher.best_move(pos, (d1, d2))
        assert searcher.best_move(pos, (d1, d2), moves=moves) == chosen
    assert searcher.best_move(Position.initial(), (6, 6), moves=[]) is None


def _finished(on_bar: int, lost: bool) -> list[int]:
    """A finished game (R18-R19): the side on roll has borne everything off (or, ``lost``,
    the other side has), the loser with ``on_bar`` checkers on the bar."""
    b = [0] * 26
    if lost:
        b[25], b[3] = on_bar, 15 - on_bar
    else:
        b[0], b[20] = -on_bar, -(15 - on_bar)
    return b


def test_finished_games_are_exact_in_any_batch(database: BearoffDatabase) -> None:
    ev = CompositeEvaluator(default_nets(), database)
    contact = _candidate_batches(1, seed=25)[0]
    race = boards_array(pos.board for pos, _, _ in bearoff_cases(5, seed=4))
    over = boards_array([_finished(1, True), _finished(0, True), _finished(2, False)])
    for batch in (np.concatenate([contact, over[1:2]]), np.concatenate([contact, race, over])):
        done, exact = game_over_probs(batch)
        assert done.sum() in (1, 3)
        got = ev.evaluate(batch)
        assert np.array_equal(got[done], exact[done])
        alone = np.concatenate([ev.evaluate(row[None, :]) for row in batch])
        assert np.allclose(got, alone, rtol=0, atol=1e-6)
