"""The two-sided bear-off database: agreement with gnubg's own (every position, all four
equities) and with gnubg's evaluation, the laws any exact table obeys, and its use by the
evaluator and the cube decisions.  The table is built once per session (conftest)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import gnubg_nn
import numpy as np
import pytest
from gnubg_reference import (
    ask_gnubg_money_hints,
    board_of,
    gnubg_two_sided_table,
    to_gnubg,
)

from backgammon import Position
from backgammon.core.values import iter_weighted_rolls
from backgammon.evaluation import bearoff2
from backgammon.evaluation.bearoff import BearoffDatabase, position_index
from backgammon.evaluation.bearoff2 import (
    CENTRED,
    CUBELESS,
    OPPONENT_OWNS,
    OWNED,
    TwoSidedDatabase,
)
from backgammon.evaluation.cube import CubeAction, CubeState
from backgammon.evaluation.evaluator import CompositeEvaluator
from backgammon.judging.rollout import RolloutSettings, rollout
from backgammon.players.neural import NeuralPlayer

HOMES = [tuple(h) for h in bearoff2._homes()]
STEP = 2.0 / 65535 + 1e-12
"""One unit of the stored 16-bit values: equal equities computed along different paths can
round to neighbouring units."""


def test_every_position_agrees_with_gnubgs_database(two_sided: TwoSidedDatabase) -> None:
    # All 853,776 positions, the four equities each.  gnubg's table is made in 16-bit
    # integers, each level rounded towards zero, so it drifts from the exact values by a
    # few units of 1/32767.
    gnubg = gnubg_two_sided_table()
    live = np.s_[1:, 1:]  # gnubg's rows with a side already off are placeholders
    for column in (CUBELESS, OWNED, CENTRED, OPPONENT_OWNS):
        diff = np.abs(two_sided.table[live][..., column] - gnubg[live][..., column])
        assert diff.max() < 1.5e-4, column
        assert diff.mean() < 5e-5, column


def test_win_chances_agree_with_gnubgs_evaluation(two_sided: TwoSidedDatabase) -> None:
    # gnubg's 0-ply evaluation of 3000 random positions of the range (it reads its database).
    rng = random.Random(36)
    boards = []
    for _ in range(3000):
        boards.append(board_of(*(rng.choice(HOMES[1:]) for _ in range(2))))
    ours = two_sided.win_probabilities(np.array(boards))
    theirs = np.array([gnubg_nn.probabilities(to_gnubg(Position(b)), 0) for b in boards])
    assert np.abs(ours - theirs[:, 0]).max() < 1e-4
    assert (theirs[:, 1:] == 0.0).all()  # no gammons in the range


def test_equities_are_in_range_and_the_finished_games_are_won_or_lost(
    two_sided: TwoSidedDatabase,
) -> None:
    t = two_sided.table
    assert t.min() >= -1.0 and t.max() <= 1.0
    assert (t[0, :, :] == 1.0).all()  # nothing left to bear off: won
    assert (t[1:, 0, :] == -1.0).all()  # the opponent has nothing left: lost
    # Two checkers on the ace, or one anywhere low enough, come off with any roll.
    for home in [(2, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0), (0, 0, 1, 0, 0, 0)]:
        assert (two_sided.table[position_index(home), 1:] >= 1.0 - 1e-9).all()


def test_one_checker_each_on_the_six_point(two_sided: TwoSidedDatabase) -> None:
    # 27 of the 36 rolls bear a lone checker off the 6-point (totals of 6 or more, 2-2);
    # any roll does it from lower.  Cubeless: 27/36 + 9/36 x 9/36 to win.
    six = (0, 0, 0, 0, 0, 1)
    eq = two_sided.lookup(six, six)
    p = 27 / 36 + (9 / 36) ** 2
    assert eq[CUBELESS] == pytest.approx(2 * p - 1, abs=2e-5)
    # Owning the cube changes nothing (the opponent never gets to double); centred, the
    # opponent doubles a 27/36 shot when it comes round and we pass: 27/36 - 9/36 x 1.
    assert eq[OWNED] == pytest.approx(2 * p - 1, abs=2e-5)
    assert eq[CENTRED] == pytest.approx(27 / 36 - 9 / 36, abs=2e-5)


def test_fewer_checkers_of_the_side_on_roll_never_lower_its_equity(
    two_sided: TwoSidedDatabase,
) -> None:
    # Taking a checker off the board (any point) of either side: never worse for it.
    t = two_sided.table
    for i, home in enumerate(HOMES):
        for p in range(6):
            if not home[p]:
                continue
            fewer = list(home)
            fewer[p] -= 1
            k = position_index(fewer)
            assert (t[k, 1:] >= t[i, 1:] - STEP).all(), (home, p)  # ours off
            assert (t[1:, k] <= t[1:, i] + STEP).all(), (home, p)  # theirs off


def test_the_cube_is_worth_most_to_its_owner(two_sided: TwoSidedDatabase) -> None:
    t = two_sided.table
    assert (t[..., OWNED] >= t[..., CENTRED] - STEP).all()
    assert (t[..., CENTRED] >= t[..., OPPONENT_OWNS] - STEP).all()
    # An option is never worth less than nothing: owning the cube beats no cube, facing it
    # is worse than no cube.
    assert (t[..., OWNED] >= t[..., CUBELESS] - STEP).all()
    assert (t[..., OPPONENT_OWNS] <= t[..., CUBELESS] + STEP).all()


def _cube(nd: float, opp: float) -> float:
    """The value with the cube action taken: no double, or the better answer to a double."""
    return max(nd, min(2.0 * opp, 1.0))


def test_each_entry_is_the_average_of_the_best_plays_of_the_rolls(
    two_sided: TwoSidedDatabase,
) -> None:
    # The recursion again, entry by entry, with the rules core's plays and no numpy.
    t = two_sided.table
    rng = random.Random(7)
    for _ in range(60):
        mine, theirs = rng.choice(HOMES[1:]), rng.choice(HOMES[1:])
        pos = Position(board_of(mine, theirs))
        total = np.zeros(4)
        for a, b, w in iter_weighted_rolls():
            best = np.full(4, -np.inf)
            for move in pos.legal_moves((a, b)):
                after = pos.play(move)  # the opponent on roll
                them = after.board[1:7]
                left = tuple(-x for x in after.board[24:18:-1])
                e = t[position_index(them), position_index(left)]
                child = [
                    e[CUBELESS],
                    e[OPPONENT_OWNS],  # we own the cube: they can't double
                    _cube(e[CENTRED], e[OPPONENT_OWNS]),
                    _cube(e[OWNED], e[OPPONENT_OWNS]),
                ]
                best = np.maximum(best, -np.array(child))
            total += w * best
        assert np.allclose(total / 36.0, t[position_index(mine), position_index(theirs)], atol=3e-5)


def test_the_file_round_trips_to_16_bits(two_sided: TwoSidedDatabase, tmp_path: Path) -> None:
    path = tmp_path / "t.npz"
    bearoff2.write_table(two_sided.table, path)
    again = bearoff2.read_table(path)
    assert np.abs(again - two_sided.table).max() < 1e-12  # already 16-bit values
    assert path.stat().st_size < 8e6


def test_the_table_is_read_at_its_first_use(two_sided: TwoSidedDatabase, tmp_path: Path) -> None:
    path = tmp_path / "lazy.npz"
    db = TwoSidedDatabase(path=path)
    assert not path.exists()  # nothing read nor built yet
    bearoff2.write_table(two_sided.table, path)
    assert db.lookup((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1))[CUBELESS] == 1.0


def test_covers_exactly_the_range() -> None:
    inside = board_of((2, 0, 0, 0, 0, 4), (0, 1, 1, 1, 1, 1))
    seven = board_of((2, 0, 0, 0, 0, 5), (1, 0, 0, 0, 0, 0))
    outside = list(inside)
    outside[6] -= 1
    outside[7] = 1  # one checker still outside the home board
    bar = list(board_of((1, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)))
    bar[25] = 1
    boards = [inside, seven, outside, bar, [-x for x in reversed(seven)]]
    want = [True, False, False, False, False]
    assert TwoSidedDatabase.covers(np.array(boards)).tolist() == want
    assert [TwoSidedDatabase.covers_board(b) for b in boards] == want


@pytest.fixture(scope="module")
def evaluator(two_sided: TwoSidedDatabase) -> CompositeEvaluator:
    player = NeuralPlayer(0, bearoff=False)
    return CompositeEvaluator(player.nets, BearoffDatabase.load(progress=False), True, two_sided)


def test_the_evaluator_routes_the_range_to_the_table(
    evaluator: CompositeEvaluator, two_sided: TwoSidedDatabase
) -> None:
    rng = random.Random(3)
    covered = [board_of(rng.choice(HOMES[1:]), rng.choice(HOMES[1:])) for _ in range(50)]
    seven = [board_of((1, 1, 1, 1, 1, 1, 1)[:6], (0,) * 5 + (7,))]  # 7 of theirs: one-sided
    boards = np.array(covered + seven + [Position.initial().board], dtype=np.int64)
    p = evaluator.evaluate(boards)
    assert np.allclose(p[:50, 0], two_sided.win_probabilities(boards[:50]))
    assert (p[:50, 1:] == 0.0).all()
    one_sided = evaluator.bearoff
    assert one_sided is not None
    assert p[50, 0] == pytest.approx(one_sided.win_probabilities(boards[50:51])[0])
    assert 0.3 < p[51, 0] < 0.7  # the nets still judge the rest


def test_money_cube_decisions_use_the_table(two_sided: TwoSidedDatabase) -> None:
    player = NeuralPlayer(0)
    player.evaluator.two_sided = two_sided
    rng = random.Random(11)
    seen = set()
    for _ in range(40):
        mine, theirs = rng.choice(HOMES[1:]), rng.choice(HOMES[1:])
        pos = Position(board_of(mine, theirs))
        e = two_sided.lookup(mine, theirs)
        for plies in (0, 1):
            d = player.cube_decision(pos, CubeState(), plies)
            assert d.no_double == pytest.approx(e[CENTRED])
            assert d.double_take == pytest.approx(2 * e[OPPONENT_OWNS])
            assert d.double_pass == 1.0
            double = min(2 * e[OPPONENT_OWNS], 1.0) >= e[CENTRED]
            assert (d.action is CubeAction.DOUBLE) == double
            seen.add(d.action)
        owned = player.cube_decision(pos, CubeState(cube_value=2, cube_owner=1))
        assert owned.no_double == pytest.approx(e[OWNED])
    assert seen == {CubeAction.DOUBLE, CubeAction.NO_DOUBLE}


def test_money_cube_decisions_agree_with_gnubg(two_sided: TwoSidedDatabase) -> None:
    # Debian gnubg's cube analysis of 1000 random positions of the range: the same cubeless
    # and cubeful equities (5 digits printed), and the same action wherever it is not a tie.
    player = NeuralPlayer(0)
    player.evaluator.two_sided = two_sided
    rng = random.Random(5)
    positions = [
        Position(board_of(rng.choice(HOMES[1:]), rng.choice(HOMES[1:]))) for _ in range(1000)
    ]
    actions = 0
    for pos, (cubeless, values, action) in zip(
        positions, ask_gnubg_money_hints(positions), strict=True
    ):
        d = player.cube_decision(pos, CubeState())
        equity = player.probabilities(pos).equity()
        assert abs(equity - cubeless) < 1.5e-4
        assert abs(d.no_double - values["No double"]) < 1.5e-4
        assert abs(d.double_take - values["Double take"]) < 3e-4
        assert values["Double pass"] == d.double_pass == 1.0
        if abs(min(d.double_take, 1.0) - d.no_double) > 1e-3 and abs(d.double_take - 1.0) > 1e-3:
            actions += 1
            doubles = action.startswith(("Double", "Redouble"))
            assert doubles == (d.action is CubeAction.DOUBLE), (pos, action, d)
            if doubles:
                assert ("pass" in action) == (d.response is CubeAction.PASS), (pos, action, d)
    assert actions > 900


def test_cubeful_money_rollouts_agree_with_the_table(two_sided: TwoSidedDatabase) -> None:
    # The rollout's bots double, take and pass by the table (and play by its chances): their
    # cubeful rollouts of no double and double/take land on its values (within 4 standard
    # errors, and 0.01 for the plays: the bots pick them by cubeless equity, the table by
    # each cube position's own).
    rng = random.Random(4)
    settings = RolloutSettings(trials=72, batch=72, cubeful=True)
    for _ in range(6):
        mine, theirs = rng.choice(HOMES[1:]), rng.choice(HOMES[1:])
        e = two_sided.lookup(mine, theirs)
        r = rollout(Position(board_of(mine, theirs)), CubeState(), cube=True, settings=settings)
        nd, dt, dp = r.candidates
        assert abs(nd.equity - e[CENTRED]) < 4 * nd.se + 0.01
        assert abs(dt.equity - 2 * e[OPPONENT_OWNS]) < 4 * dt.se + 0.01
        assert dp.equity == 1.0


def test_the_command_and_the_first_use_build_with_a_progress_line(
    two_sided: TwoSidedDatabase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The build itself is the session's (conftest); here what is around it.
    def build(progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        for done in range(71):
            if progress:
                progress(done + 1, 71)
        return two_sided.table

    monkeypatch.setattr(bearoff2, "build", build)
    assert bearoff2.main([str(tmp_path / "cmd.npz")]) == 0
    out, err = capsys.readouterr()
    assert "924 x 924 positions" in out and "71/71" in err
    assert np.array_equal(bearoff2.read_table(tmp_path / "cmd.npz"), two_sided.table)
    lazy = TwoSidedDatabase(path=tmp_path / "first-use.npz")
    assert lazy.covers(np.array([board_of((1,) + (0,) * 5, (0,) * 5 + (1,))])).all()
    assert capsys.readouterr().err == ""  # nothing built before a look-up needs it
    assert lazy.win_probabilities(np.array([board_of((1,) + (0,) * 5, (0,) * 5 + (1,))]))[0] == 1
    assert "building two-sided bear-off database" in capsys.readouterr().err
    assert (tmp_path / "first-use.npz").exists()
