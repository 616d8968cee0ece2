"""The one-sided bear-off database: indexing, hand-computed cases, gnubg agreement, and the
exact gammon chances of a bear-off built on it."""

from __future__ import annotations

import random
from math import comb

import gnubg_nn
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from backgammon import Position
from backgammon.evaluation import bearoff
from backgammon.evaluation.bearoff import N_POSITIONS, BearoffDatabase, BearoffError, position_index


@pytest.fixture(scope="module")
def db() -> BearoffDatabase:
    return BearoffDatabase.load(progress=False)


def test_there_are_54264_positions_indexed_densely() -> None:
    homes = list(bearoff.positions())
    assert len(homes) == N_POSITIONS == 54264
    assert [position_index(h) for h in homes] == list(range(N_POSITIONS))
    assert (bearoff.indices(np.array(homes)) == np.arange(N_POSITIONS)).all()


def _cap(raw: list[int]) -> list[int]:
    """Trim a draw of six counts to at most 15 checkers in all."""
    home: list[int] = []
    for c in raw:
        home.append(min(c, 15 - sum(home)))
    return home


@given(st.lists(st.integers(0, 15), min_size=6, max_size=6).map(_cap))
def test_fewer_checkers_come_first(home: list[int]) -> None:
    # Positions with at most n checkers are the first C(n + 6, 6) indices (used by build()).
    assert position_index(home) < comb(sum(home) + 6, 6)


def test_bad_positions_are_rejected() -> None:
    with pytest.raises(BearoffError):
        position_index((16, 0, 0, 0, 0, 0))
    with pytest.raises(BearoffError):
        position_index((1, 2, 3))


def test_hand_computed_cases(db: BearoffDatabase) -> None:
    assert db.distribution((0,) * 6)[0] == 1.0  # nothing to bear off
    assert db.distribution((2, 0, 0, 0, 0, 0))[1] == pytest.approx(1.0)  # any roll
    # One checker on the 6-point: off in one roll when the dice total 6 or more, or 2-2
    # (four twos); 26 + 1 of the 36 rolls.
    dist = db.distribution((0, 0, 0, 0, 0, 1))
    assert dist[1] == pytest.approx(27 / 36, abs=2e-5)
    assert dist[2] == pytest.approx(9 / 36, abs=2e-5)
    # Two checkers on the 6-point: only doubles of 3 or more take both off at once.
    assert db.distribution((0, 0, 0, 0, 0, 2))[1] == pytest.approx(4 / 36, abs=2e-5)


def test_small_rebuild_matches_the_shipped_table(db: BearoffDatabase) -> None:
    small = bearoff.build(max_checkers=4)
    assert small.shape == (comb(10, 6), bearoff.MAX_ROLLS)
    assert np.abs(small - db.table[: len(small)]).max() < 2e-5


def test_distributions_match_gnubg(db: BearoffDatabase) -> None:
    rng = random.Random(7)
    homes = list(bearoff.positions())
    for home in [*rng.sample(homes, 800), (0, 0, 0, 0, 0, 15), (3, 3, 3, 2, 2, 2)]:
        ref = np.array(gnubg_nn.bearoff_probabilities(home))  # ref[k]: off in k + 1 rolls
        ours = db.distribution(home)
        assert np.abs(ours[1 : len(ref) + 1] - ref).max() < 1e-3, home
        assert abs(db.expected_rolls(home) - ref @ np.arange(1, len(ref) + 1)) < 5e-4


def test_race_win_chances_match_gnubg(db: BearoffDatabase) -> None:
    rng = random.Random(3)
    for _ in range(150):
        b = [0] * 26
        for _ in range(rng.randint(1, 15)):
            b[rng.randint(1, 6)] += 1
        for _ in range(rng.randint(1, 15)):
            b[rng.randint(19, 24)] -= 1
        pos = Position(b)
        ref = gnubg_nn.probabilities([list(x) for x in pos.arrays()], 0)[0]
        ours = db.win_probabilities(np.array([b]))[0]
        assert abs(ours - ref) < 0.01, pos
        assert ours == pytest.approx(db.win_probability(b[1:7], [-x for x in b[24:18:-1]]))


def test_first_checker_off_by_hand(db: BearoffDatabase) -> None:
    first = np.diff(db.first_cumulative, prepend=0.0, axis=1)
    # All 15 on the 6-point: a 6, or dice that make 6 with one checker (5-1, 4-2, 3-3, 2-2).
    assert first[position_index((0, 0, 0, 0, 0, 15)), 1] == pytest.approx(17 / 36, abs=2e-5)
    assert first[position_index((15, 0, 0, 0, 0, 0)), 1] == pytest.approx(1.0)
    assert not db.first_cumulative[position_index((0, 0, 0, 0, 1, 13))].any()  # one is off


def _random_bearoff(rng: random.Random) -> list[int]:
    """A bear-off where one side (or both) has all 15 checkers left, as gammons need."""
    b = [0] * 26
    counts = [15, rng.randint(1, 15)] if rng.random() < 0.8 else [15, 15]
    rng.shuffle(counts)
    for _ in range(counts[0]):
        b[rng.randint(1, 6)] += 1
    for _ in range(counts[1]):
        b[rng.randint(19, 24)] -= 1
    return b


def test_gammon_chances_in_a_bearoff_match_gnubg(db: BearoffDatabase) -> None:
    # gnubg's 0-ply evaluation of a bear-off is its one-sided database's, gammons included.
    rng = random.Random(11)
    boards = [_random_bearoff(rng) for _ in range(600)]
    win, lose = db.gammon_probabilities(np.array(boards))
    for b, w, ll in zip(boards, win, lose, strict=True):
        ref = gnubg_nn.probabilities([list(x) for x in Position(b).arrays()], 0)
        assert abs(w - ref[1]) < 1e-4 and abs(ll - ref[3]) < 1e-4, Position(b)
    assert win.max() > 0.3 and lose.max() > 0.01  # gammons both ways were met


def test_the_evaluator_gives_a_bearoffs_exact_chances(db: BearoffDatabase) -> None:
    from backgammon.evaluation.evaluator import CompositeEvaluator
    from backgammon.evaluation.net import default_nets

    rng = random.Random(12)
    boards = np.array([_random_bearoff(rng) for _ in range(200)])
    p = CompositeEvaluator(default_nets(), db).evaluate(boards)
    win, lose = db.gammon_probabilities(boards)
    assert np.allclose(p[:, 0], db.win_probabilities(boards))
    assert np.allclose(p[:, 1], win) and np.allclose(p[:, 3], lose)
    assert not p[:, [2, 4]].any()  # no backgammon once every checker is home


def test_is_bearoff() -> None:
    assert not bearoff.is_bearoff(np.array([Position.initial().board]))[0]
    b = [0] * 26
    b[3], b[22] = 2, -4
    assert bearoff.is_bearoff(np.array([b]))[0]
