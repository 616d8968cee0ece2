"""Gammons of races with a side all home: the leader's exact bear-off times the trailer
net's survival, in the evaluator; the trailer's labels and fit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gnubg_reference import board_from_points, played_game_cases
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon import Position
from backgammon.evaluation.bearoff import MAX_ROLLS, BearoffDatabase, indices
from backgammon.evaluation.encode import boards_array, is_race
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.evaluation.net import default_nets
from backgammon.evaluation.trailer import TrailerNet, race_gammons, trailer_keys, trailers
from backgammon.training.trailer import (
    TrailerGames,
    fit_trailer,
    load_labels,
    survival_targets,
)

ROOT = Path(__file__).resolve().parents[2]
LABELS = sorted((ROOT / "labels" / "trailer" / "round2").glob("trailer-*.npz"))


@pytest.fixture(scope="module")
def database() -> BearoffDatabase:
    return BearoffDatabase.load(progress=False)


@pytest.fixture(scope="module")
def evaluator(database: BearoffDatabase) -> CompositeEvaluator:
    return CompositeEvaluator(default_nets(), database, trailer=TrailerNet.load())


# The leader (on roll) bears its last checker off this roll; the trailer has 15 checkers.
FAST_LEADER = {1: 1}
TRAILER_BACK = {2: 5, 3: 5, 4: 3, 13: 1, 20: 1}  # one checker in the leader's home
TRAILER_OUT = {2: 5, 3: 5, 4: 3, 13: 1, 9: 1}  # none there


def test_a_leader_who_finishes_on_this_roll_wins_a_gammon_and_a_backgammon_exactly(
    evaluator: CompositeEvaluator,
) -> None:
    # Rules: a gammon when the loser has borne nothing off, a backgammon when it also has
    # a checker in the winner's home board.  Here both are certain, whatever the net says.
    p = evaluator.evaluate(np.array([board_from_points(FAST_LEADER, TRAILER_BACK)]))[0]
    assert p[0] == pytest.approx(1.0, abs=1e-3)
    # (The database's chances are stored to about 1e-5.)
    assert p[1] == pytest.approx(p[0], abs=1e-4) and p[2] == pytest.approx(p[0], abs=1e-4)
    p = evaluator.evaluate(np.array([board_from_points(FAST_LEADER, TRAILER_OUT)]))[0]
    assert p[1] == pytest.approx(p[0], abs=1e-4) and p[2] == 0.0


def test_the_trailer_on_roll_saves_the_gammon_only_by_bearing_off_at_once(
    evaluator: CompositeEvaluator, database: BearoffDatabase
) -> None:
    # The trailer on roll, the leader done next roll: the gammon is lost unless the
    # trailer bears a checker off now, which needs every checker home after the roll.
    near = {1: 8, 2: 6, 7: 1}  # any roll brings the 7 in and bears a checker off
    far = {1: 8, 2: 6, 12: 1}  # saved by 61, 62 and the doubles but 11: 9 rolls in 36
    p_near = evaluator.evaluate(np.array([board_from_points(near, FAST_LEADER)]))[0]
    p_far = evaluator.evaluate(np.array([board_from_points(far, FAST_LEADER)]))[0]
    assert p_near[3] == pytest.approx(0.0, abs=0.05)  # the net within 5 points
    assert p_far[3] == pytest.approx(27 / 36, abs=0.05)
    assert p_far[4] == 0.0  # no checker in the leader's home


def test_outside_the_class_the_nets_answer_unchanged(database: BearoffDatabase) -> None:
    with_trailer = CompositeEvaluator(default_nets(), database, trailer=TrailerNet.load())
    without = CompositeEvaluator(default_nets(), database)
    boards = boards_array([pos.board for pos, _d1, _d2 in played_game_cases(60, seed=33)])
    leads, trails = trailers(boards)
    other = ~((leads | trails) & is_race(boards))
    assert other.sum() > 1000 and (~other).sum() > 10
    p, q = with_trailer.evaluate(boards), without.evaluate(boards)
    assert np.array_equal(p[other], q[other])
    assert not np.allclose(p[~other][:, [1, 3]], q[~other][:, [1, 3]])
    # Consistent where it changed: a backgammon is a gammon, a gammon a win.
    assert (p[:, 2] <= p[:, 1] + 1e-12).all() and (p[:, 1] <= p[:, 0] + 1e-12).all()
    assert (p[:, 4] <= p[:, 3] + 1e-12).all() and (p[:, 3] <= 1 - p[:, 0] + 1e-12).all()


def test_the_formula_matches_its_definition(database: BearoffDatabase) -> None:
    # Leader on roll: it finishes on its k-th roll after the trailer's k - 1.
    net = TrailerNet.load()
    leader = {1: 3, 2: 2, 4: 2}
    trailer_pts = {1: 3, 3: 3, 5: 4, 8: 2, 11: 2, 14: 1}
    b = board_from_points(leader, trailer_pts)
    p = np.array([[0.99, 0.5, 0.1, 0.0, 0.0]])
    race_gammons(b[None], p, database, net)
    counts = np.zeros((1, 24), dtype=np.int64)
    for point, n in trailer_pts.items():
        counts[0, point - 1] = n
    s, _ = net.survival(counts)
    lead = database.table[indices(np.array([[3, 2, 0, 2, 0, 0]]))[0]]
    expected = sum(lead[k] * s[0, k - 1] for k in range(1, MAX_ROLLS))
    assert p[0, 1] == pytest.approx(min(expected, 0.99))
    assert p[0, 2] == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 23), min_size=15, max_size=15), st.integers(0, 5))
def test_survival_curves_are_curves(points: list[int], _k: int) -> None:
    counts = np.zeros((1, 24), dtype=np.int64)
    for point in points:
        counts[0, point - 1] += 1
    s, e = TrailerNet.load().survival(counts)
    assert s[0, 0] == 1.0
    assert (np.diff(s[0]) <= 0).all() and (np.diff(e[0]) <= 0).all()
    assert ((s >= 0) & (s <= 1) & (e >= 0) & (e <= 1)).all()
    if counts[0, 18:].sum() == 0:
        assert (e == 0).all()


@pytest.mark.parametrize("mine", [{1: 14, 7: 1}, {1: 10, 3: 3, 9: 2}, {2: 5, 4: 5, 8: 5}])
def test_the_trailer_bears_a_checker_off_whenever_it_can(
    database: BearoffDatabase, mine: dict[int, int]
) -> None:
    # Bearing a checker off saves the gammon at once: the player takes it whenever a legal
    # play does (R: no bearing off while a checker is outside the home board).
    board = tuple(board_from_points(mine, {1: 15}).tolist())
    pos = Position(board)
    games = TrailerGames(database, 1, TrailerNet.load())
    for a in range(1, 7):
        for b in range(a, 7):
            can = any(
                sum(max(x, 0) for x in pos.apply_steps(m).board) < 15
                for m in pos.legal_moves((a, b))
            )
            after = games.play(board, (a, b))
            assert (sum(max(x, 0) for x in after) < 15) == can, (a, b)
    first, escaped = games.times(pos, 400)
    assert (escaped == 0).all() and (first >= 1).all()
    saved = sum(
        any(sum(max(x, 0) for x in pos.apply_steps(m).board) < 15 for m in pos.legal_moves(d))
        * (1 if d[0] == d[1] else 2)
        for d in ((a, b) for a in range(1, 7) for b in range(a, 7))
    )
    assert (first == 1).mean() == pytest.approx(saved / 36, abs=0.07)


def test_a_trailer_runs_from_the_leaders_home_first(database: BearoffDatabase) -> None:
    # 61: 20/14/13 or 20/14 9/8 (out of the leader's home, against a backgammon), not
    # 9/3 20/19, which brings more home and saves more pips.
    board = tuple(board_from_points({1: 5, 2: 5, 3: 3, 9: 1, 20: 1}, {1: 15}).tolist())
    after = TrailerGames(database, 1, TrailerNet.load()).play(board, (6, 1))
    assert max(after[19:25]) == 0


_placements = st.lists(st.integers(1, 24), min_size=0, max_size=15)


def _counts(placements: list[list[int]]) -> np.ndarray:
    counts = np.zeros((len(placements), 24), dtype=np.int64)
    for row, points in enumerate(placements):
        for point in points:
            counts[row, point - 1] += 1
    return counts


@settings(max_examples=200, deadline=None)
@given(st.lists(_placements, min_size=2, max_size=30))
def test_trailer_keys_are_equal_only_for_equal_trailers(placements: list[list[int]]) -> None:
    counts = _counts(placements)
    keys = trailer_keys(counts)
    same_rows = (counts[:, None, :] == counts[None, :, :]).all(axis=2)
    assert np.array_equal(keys[:, None] == keys[None, :], same_rows)


def test_a_batch_with_repeated_trailers_gives_each_one_its_own_curves() -> None:
    # Over 64 trailers with repeats the net sees each distinct trailer once.
    rng = np.random.default_rng(3)
    distinct = _counts([list(rng.integers(1, 24, size=15)) for _ in range(20)])
    counts = distinct[rng.integers(0, 20, size=300)]
    net = TrailerNet.load()
    s, e = net.survival(counts)
    alone = [net.survival(row[None]) for row in counts]
    assert np.allclose(s, np.concatenate([a for a, _ in alone]), atol=1e-6)
    assert np.allclose(e, np.concatenate([b for _, b in alone]), atol=1e-6)


def test_the_class_is_a_side_all_home_against_fifteen_with_one_outside() -> None:
    boards = boards_array([pos.board for pos, _d1, _d2 in played_game_cases(60, seed=34)])
    boards = boards[is_race(boards)]
    mine, theirs = np.maximum(boards, 0), np.maximum(-boards, 0)
    mine_home, theirs_home = mine[:, 7:].sum(axis=1) == 0, theirs[:, :19].sum(axis=1) == 0
    leads, trails = trailers(boards)
    assert leads.sum() > 20 and trails.sum() > 20
    assert np.array_equal(
        leads, mine_home & ~theirs_home & (theirs.sum(axis=1) == 15) & (mine.sum(axis=1) > 0)
    )
    assert np.array_equal(
        trails, theirs_home & ~mine_home & (mine.sum(axis=1) == 15) & (theirs.sum(axis=1) > 0)
    )


def test_targets_are_the_shares_of_games_still_going() -> None:
    first = np.zeros((1, MAX_ROLLS + 1), dtype=np.int64)
    first[0, [2, 3, MAX_ROLLS]] = [1, 2, 1]  # 4 games: off after 2, 3, 3 rolls and never
    escaped = np.zeros_like(first)
    escaped[0, [0, 1]] = [3, 1]
    t = survival_targets(first, escaped)
    assert t[0, :5].tolist() == [1.0, 1.0, 0.75, 0.25, 0.25]
    assert t[0, MAX_ROLLS - 1] == 0.25
    assert t[0, MAX_ROLLS : MAX_ROLLS + 3].tolist() == [0.25, 0.0, 0.0]


def test_the_shipped_net_fits_its_labels() -> None:
    # The weights are the fit of the committed labels (labels/trailer/round2).
    counts, targets = load_labels(LABELS[-1:])
    s, e = TrailerNet.load().survival(counts)
    assert np.sqrt(((s - targets[:, :MAX_ROLLS]) ** 2).mean()) < 0.02
    assert np.sqrt(((e - targets[:, MAX_ROLLS:]) ** 2).mean()) < 0.02


def test_fitting_learns_the_curves() -> None:
    counts, targets = load_labels(LABELS[:1])
    counts, targets = counts[:600], targets[:600]
    net = fit_trailer(counts, targets, hidden=16, epochs=40, seed=2)
    s, _ = net.survival(counts)
    before = np.sqrt(((targets[:, :MAX_ROLLS] - targets[:, :MAX_ROLLS].mean(0)) ** 2).mean())
    after = np.sqrt(((s - targets[:, :MAX_ROLLS]) ** 2).mean())
    assert after < 0.6 * before
