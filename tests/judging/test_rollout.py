"""Rollouts: seeded dice, exactness in bear-offs, variance reduction, cube play, the same
numbers on any number of workers and on Ray, and the command line."""

from __future__ import annotations

import dataclasses
import io
import json
import random
from contextlib import redirect_stdout
from functools import cache
from typing import Any

import numpy as np
import pytest

from backgammon.cli.commands import main
from backgammon.core.position import Position
from backgammon.evaluation.bearoff2 import money_decision
from backgammon.evaluation.cube import (
    CubeAction,
    CubeState,
    cube_decision,
    cube_efficiency,
    decision_from_values,
)
from backgammon.evaluation.encode import boards_array
from backgammon.evaluation.probabilities import cubeless_equity, flip_probs
from backgammon.evaluation.search import roll_children
from backgammon.judging.evaluate import proper_action
from backgammon.judging.rollout import (
    CUBE_LABELS,
    Candidate,
    RolloutJob,
    RolloutSettings,
    RolloutSettingsError,
    play_trials,
    rollout,
)
from backgammon.judging.rollout.dice import roll_indices, to_dice
from backgammon.judging.rollout.engine import _Engine, evaluator_for
from backgammon.judging.rollout.local import InProcess, ProcessPool
from backgammon.play.match import Match

OPENING_31 = dict(dice=(3, 1), top=2)

# ------------------------------------------------------------------ dice


def test_quasi_random_first_roll_takes_each_value_once_per_36_trials() -> None:
    """gnubg's rotated dice: each aligned block of 36 trials opens with all 36 rolls."""
    rolls = roll_indices(7, np.arange(36 * 5), 1, quasi_random=True)[:, 0]
    for block in rolls.reshape(5, 36):
        assert sorted(block) == list(range(36))


def test_quasi_random_first_two_rolls_take_each_pair_once_per_1296_trials() -> None:
    rolls = roll_indices(7, np.arange(1296), 3, quasi_random=True)
    pairs = {(int(a), int(b)) for a, b in rolls[:, :2]}
    assert len(pairs) == 1296
    assert len({tuple(r) for r in rolls[:36, :3].tolist()}) == 36


def test_a_trials_dice_depend_on_the_seed_and_its_number_alone() -> None:
    for quasi in (True, False):
        alone = roll_indices(3, np.array([41]), 80, quasi)
        among = roll_indices(3, np.arange(30, 50), 80, quasi)
        assert (alone[0] == among[11]).all()
        assert (roll_indices(3, np.array([41]), 64, quasi)[0] == alone[0, :64]).all()
        assert not (roll_indices(4, np.array([41]), 80, quasi) == alone).all()
    assert to_dice(0) == (1, 1) and to_dice(6 * 2 + 4) == (5, 3) and to_dice(4 * 6 + 2) == (5, 3)


# ------------------------------------------------------------------ exact races


@cache
def _bot_win(pos: Position) -> float:
    """The exact chance that the side on roll wins a pure bear-off when both sides play the
    rollout bot's 0-ply choice (the bear-off database), by recursion over every roll."""
    kids, rolls = roll_children(pos)
    segments = [(start, end, w) for _a, _b, start, end, w in rolls]
    ev = evaluator_for(None, True)
    eq = cubeless_equity(flip_probs(ev.evaluate(boards_array(k.board for k in kids))))
    total = 0.0
    for start, end, w in segments:
        best = kids[start + int(np.argmax(eq[start:end]))]
        total += w * (1.0 if best.is_game_over() else 1.0 - _bot_win(best))
    return total / 36.0


@cache
def _races() -> tuple[tuple[Candidate, ...], np.ndarray]:
    """200 bear-offs of 1-3 checkers a side (no gammons) that are not foregone, and their
    exact equities."""
    rng = random.Random(5)
    cands: list[Candidate] = []
    exact: list[float] = []
    while len(cands) < 200:
        board = [0] * 26
        for sign, first in ((1, 1), (-1, 24)):
            for _ in range(rng.randint(1, 3)):
                board[first + sign * rng.randrange(6)] += sign
        e = 2.0 * _bot_win(Position(board)) - 1.0
        if abs(e) <= 0.8:
            cands.append(Candidate(str(len(cands)), tuple(board), False, CubeState()))
            exact.append(e)
    return tuple(cands), np.array(exact)


@pytest.mark.parametrize("vr", [False, True], ids=["plain", "variance-reduced"])
def test_bearoff_rollouts_agree_with_the_exact_equity(vr: bool) -> None:
    """On 200 races the rollout is within 3 standard errors of the exact equity (at most 2
    positions beyond, as chance allows for 200, none beyond 4)."""
    cands, exact = _races()
    job = RolloutJob(
        cands,
        RolloutSettings(trials=72, batch=72, variance_reduction=vr, bearoff_truncation=False),
    )
    values = play_trials(job, 0, 72).cubeful
    mean = values.mean(axis=1)
    se = values.std(axis=1, ddof=1) / np.sqrt(72)
    z = np.abs(mean - exact) / np.maximum(se, 1e-12)
    assert (z > 3).sum() <= 2, sorted(z)[-5:]
    assert z.max() < 4
    if vr:  # the database judges every roll's luck almost exactly
        assert se.mean() < 1e-3
    else:
        assert se.mean() > 0.05


def test_cubeless_trials_stop_at_a_bear_off_as_gnubgs_do() -> None:
    """gnubg's default: a cubeless trial that reaches a pure bear-off takes the databases'
    value there.  On the 200 bear-offs each trial then stops after one play, so without
    variance reduction only the first roll's luck is left, and the values stay exact."""
    cands, exact = _races()
    settings = RolloutSettings(trials=72, batch=72, variance_reduction=False)
    assert settings.bearoff_truncation
    stopped = play_trials(RolloutJob(cands, settings), 0, 72).cubeful
    played = play_trials(
        RolloutJob(cands, dataclasses.replace(settings, bearoff_truncation=False)), 0, 72
    ).cubeful
    se = stopped.std(axis=1, ddof=1) / np.sqrt(72)
    z = np.abs(stopped.mean(axis=1) - exact) / np.maximum(se, 1e-12)
    assert (z > 3).sum() <= 2 and z.max() < 4
    assert se.mean() < 0.8 * (played.std(axis=1, ddof=1) / np.sqrt(72)).mean()
    assert set(np.unique(np.abs(played))) <= {1.0, 2.0} and len(np.unique(stopped)) > 100


def _covered_race() -> Position:
    """A bear-off both sides play from the two-sided database, the side on roll behind: 4
    checkers on its 5 and 6 points against 3 on the other side's 1, 2 and 3 points."""
    board = [0] * 26
    board[5], board[6] = 2, 2
    board[22], board[23], board[24] = -1, -1, -1
    return Position(board)


def test_cubeful_money_trials_stop_at_the_two_sided_database_with_its_exact_values() -> None:
    """gnubg's default in cubeful money rollouts: once the two-sided database covers the
    position, its exact cubeful value (the side on roll's cube action included) ends the
    trial.  36 quasi-random trials roll each first roll once, so the rollout is exactly the
    average over the 36 rolls of the value after the bot's play."""
    pos = _covered_race()
    ev = evaluator_for(None, True)
    assert ev.two_sided is not None
    assert money_decision(ev.two_sided, pos.board, CubeState()).action is CubeAction.NO_DOUBLE
    kids, rolls = roll_children(pos)
    eq = cubeless_equity(flip_probs(ev.evaluate(boards_array(k.board for k in kids))))
    expected = 0.0
    for _a, _b, start, end, w in rolls:
        child = kids[start + int(np.argmax(eq[start:end]))]
        d = money_decision(ev.two_sided, child.board, CubeState())
        theirs = min(d.double_take, d.double_pass) if d.action is CubeAction.DOUBLE else d.no_double
        expected -= w * theirs / 36.0
    cand = (Candidate("", pos.board, False, CubeState()),)
    settings = RolloutSettings(trials=36, batch=36, cubeful=True, variance_reduction=False)
    values = play_trials(RolloutJob(cand, settings), 0, 36).cubeful[0]
    assert values.mean() == pytest.approx(expected, abs=1e-9)
    # In a match gnubg plays on (the database's cubeful values are money values): the
    # trials are those of a rollout that never stops early.
    board = [0] * 26
    for point in range(1, 7):
        board[point], board[25 - point] = 1, -1
    match = CubeState(match_length=7)
    games = [
        play_trials(
            RolloutJob(
                (Candidate("", tuple(board), False, match),),
                dataclasses.replace(settings, bearoff_truncation=stop),
                root=match,
            ),
            0,
            36,
        ).cubeful[0]
        for stop in (True, False)
    ]
    assert (games[0] == games[1]).all()


def test_variance_reduction_shrinks_the_standard_error() -> None:
    """The same trials with and without the luck subtracted: contact (the opening 3-1) and
    races the net judges (checkers still outside the home board)."""
    ratios = []
    for kw, settings in (
        (OPENING_31, RolloutSettings(trials=36, batch=36, truncate=6, seed=2)),
        ({}, RolloutSettings(trials=36, batch=36, seed=2)),
    ):
        pos = (
            Position.initial()
            if kw
            else Position.from_simple(
                [
                    0,
                    2,
                    2,
                    3,
                    2,
                    2,
                    0,
                    2,
                    1,
                    0,
                    0,
                    0,
                    1,
                    0,
                    0,
                    0,
                    -1,
                    0,
                    -2,
                    -3,
                    -3,
                    -2,
                    -2,
                    -2,
                    0,
                    0,
                ]
            )
        )
        se = {}
        for vr in (False, True):
            r = rollout(
                pos,
                settings=RolloutSettings(**{**_asdict(settings), "variance_reduction": vr}),
                **kw,
            )  # type: ignore[arg-type]
            se[vr] = np.mean([c.se for c in r.candidates])
        ratios.append(se[True] / se[False])
    print("SE with / without variance reduction:", [round(x, 3) for x in ratios])
    assert all(x < 0.5 for x in ratios)


@pytest.mark.parametrize("cubeful", [False, True])
def test_pruning_changes_the_luck_measured_not_the_games_played(
    monkeypatch: pytest.MonkeyPatch, cubeful: bool
) -> None:
    """With the pruning net the trials play the same games (the full net's choice among all
    plays): every game ends the same; only the luck subtracted differs, now measured on each
    roll's five plays the pruning net ranks best, with under half the boards judged."""
    ended: dict[int, list[tuple[int, int, float]]] = {}
    judged: dict[int, int] = {}
    finish, judge = _Engine.finish, _Engine.evaluate_boards
    for keep in (0, 5):
        ends: list[tuple[int, int, float]] = []
        boards = [0]

        def spy_finish(
            self: _Engine, g: Any, i: int, p: Any, v: float, root: bool, ends: Any = ends
        ) -> None:
            ends.append((int(g.trial[i]), int(g.cand[i]), round(float(v), 9)))
            finish(self, g, i, p, v, root)

        def spy_judge(self: _Engine, b: Any, boards: Any = boards) -> Any:
            boards[0] += len(b)
            return judge(self, b)

        monkeypatch.setattr(_Engine, "finish", spy_finish)
        monkeypatch.setattr(_Engine, "evaluate_boards", spy_judge)
        settings = RolloutSettings(trials=24, batch=24, truncate=12, cubeful=cubeful, prune=keep)
        rollout(Position.initial(), settings=settings, **OPENING_31)  # type: ignore[arg-type]
        ended[keep], judged[keep] = sorted(ends), boards[0]
    assert len(ended[0]) == 48
    assert ended[5] == ended[0]
    assert judged[5] < 0.5 * judged[0]


def test_cubeful_variance_reduction_measures_the_luck_in_cubeful_values() -> None:
    """Cubeful rollouts of the opening 3-1's plays: the luck judged by each roll's 0-ply
    cubeful value (as gnubg's variance reduction does) leaves an eighth of the plain
    rollouts' error, where the cubeless equity left a third; both agree with the plain
    rollouts' values (the luck is zero on average, whatever judges it)."""
    found = {}
    for vr in (False, True):
        settings = RolloutSettings(
            trials=72, batch=72, truncate=6, seed=2, cubeful=True, variance_reduction=vr
        )
        found[vr] = rollout(Position.initial(), **OPENING_31, settings=settings).candidates
    plain, reduced = found[False], found[True]
    assert np.mean([c.se for c in reduced]) < 0.2 * np.mean([c.se for c in plain])
    for a, b in zip(plain, reduced, strict=True):
        assert a.play == b.play
        assert abs(a.equity - b.equity) < 3 * np.hypot(a.se, b.se)


def _asdict(s: RolloutSettings) -> dict[str, object]:
    return {k: getattr(s, k) for k in s.__dataclass_fields__}


# ------------------------------------------------------------------ cube and match


def test_a_position_worth_a_cash_is_doubled_and_passed_in_every_trial() -> None:
    """Cubeful: the side on roll doubles before its first roll and the taker passes (the
    bot's own cube decision says so), so every trial is worth exactly one cube."""
    board = [0] * 26
    board[2], board[3] = 2, 2  # on roll: 4 checkers, borne off 11
    for p in (19, 20, 21, 22, 23, 24, 24, 23):
        board[p] -= 1  # opponent: 8 checkers spread, borne off 7: no gammons
    pos = Position(board)
    state = CubeState(cube_value=2, cube_owner=1)
    p = evaluator_for(None, True).evaluate(boards_array([pos.board]))[0]
    d = cube_decision(p.tolist(), state, cube_efficiency(True, pos.pip_counts()[0]))
    assert (d.action, d.response) == (CubeAction.DOUBLE, CubeAction.PASS)
    r = rollout(pos, state, settings=RolloutSettings(trials=20, batch=10, cubeful=True))
    assert r.candidates[0].equity == 1.0 and r.candidates[0].se == 0.0
    cube = rollout(pos, state, cube=True, settings=RolloutSettings(trials=20, cubeful=True))
    assert [c.play for c in cube.candidates] == list(CUBE_LABELS)
    nd, dt, dp = cube.candidates
    # Cashing is right: taking would give more, playing on no more (within the rollout's
    # error, which variance reduction makes a few ten-thousandths here).
    assert dp.equity == 1.0 and dt.equity > 1.0
    assert nd.equity < 1.0 + 3 * nd.se and nd.se < 1e-3


def test_a_one_point_match_is_worth_the_winning_chance() -> None:
    """At double match point gammons do not count: MWC is the winning chance and the
    normalised equity is 2 MWC - 1."""
    state = CubeState(match_length=1)
    r = rollout(
        Position.initial(),
        state,
        dice=(6, 5),
        moves=["24/13"],
        settings=RolloutSettings(trials=24, batch=12, truncate=4),
    )
    (c,) = r.candidates
    assert c.mwc is not None and c.mwc_se is not None
    assert c.mwc == pytest.approx(c.probabilities[0], abs=1e-12)
    assert c.equity == pytest.approx(2 * c.mwc - 1, abs=1e-12)
    assert c.se == pytest.approx(2 * c.mwc_se, abs=1e-12)


def test_a_target_standard_error_stops_after_a_whole_batch() -> None:
    settings = RolloutSettings(trials=400, batch=20, min_trials=40, truncate=2, target_se=0.05)
    r = rollout(Position.initial(), settings=settings, **OPENING_31)  # type: ignore[arg-type]
    assert 40 <= r.trials < 400 and r.trials % 20 == 0
    assert max(c.se for c in r.candidates) <= 0.05


def test_settings_and_requests_a_rollout_cannot_take_are_refused() -> None:
    with pytest.raises(RolloutSettingsError):
        RolloutSettings(trials=0)
    with pytest.raises(RolloutSettingsError):
        RolloutSettings(plies=3)
    with pytest.raises(RolloutSettingsError, match="prune"):
        RolloutSettings(prune=-1)
    with pytest.raises(ValueError, match="cubeful"):
        rollout(Position.initial(), cube=True)
    with pytest.raises(ValueError, match="dice or cube"):
        rollout(Position.initial(), dice=(3, 1), cube=True, settings=RolloutSettings(cubeful=True))
    with pytest.raises(ValueError, match="cannot double"):
        rollout(
            Position.initial(),
            CubeState(cube_value=2, cube_owner=-1),
            cube=True,
            settings=RolloutSettings(cubeful=True),
        )


# ------------------------------------------------------------------ reproducible


def _small_cubeful() -> dict[str, object]:
    return dict(
        dice=(3, 1),
        top=2,
        settings=RolloutSettings(trials=24, batch=6, truncate=5, cubeful=True, seed=11),
    )


def test_one_two_and_four_workers_give_identical_numbers() -> None:
    pos = Position.initial()
    kw = _small_cubeful()
    one = rollout(pos, workers=1, **kw)  # type: ignore[arg-type]
    assert rollout(pos, workers=2, **kw) == one  # type: ignore[arg-type]
    assert rollout(pos, workers=4, **kw) == one  # type: ignore[arg-type]
    assert rollout(pos, backend=InProcess(), **kw) == one  # type: ignore[arg-type]


def test_lookahead_bots_play_a_ply_of_all_games_together_and_the_same_on_any_worker() -> None:
    """1-ply bots (cubeful: their cube actions at 1 ply too) choose the plays of all the
    games of a ply in shared batches: the numbers are the same on one and two workers, and
    each candidate is judged at 1 ply (not the 0-ply rollout's numbers)."""
    pos = Position.initial()
    settings = RolloutSettings(trials=12, batch=6, truncate=3, cubeful=True, seed=5, plies=1)
    one = rollout(pos, dice=(3, 1), top=2, settings=settings, workers=1)
    assert rollout(pos, dice=(3, 1), top=2, settings=settings, workers=2) == one
    flat = rollout(pos, dice=(3, 1), top=2, settings=dataclasses.replace(settings, plies=0))
    assert [c.equity for c in one.candidates] != [c.equity for c in flat.candidates]


@pytest.mark.slow
def test_ray_gives_the_numbers_of_the_local_pool() -> None:
    """A local Ray instance (two CPUs) runs the same batches as the process pool."""
    import ray

    from backgammon.judging.rollout.ray_backend import RayBackend

    pos = Position.initial()
    kw = _small_cubeful()
    local = rollout(pos, backend=ProcessPool(2), **kw)  # type: ignore[arg-type]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert rollout(pos, backend=RayBackend(), **kw) == local  # type: ignore[arg-type]
    finally:
        ray.shutdown()


# ------------------------------------------------------------------ command line


def _cli_json(*args: str) -> dict[str, object]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["rollout", *args, "--json", "-"]) == 0
    data: dict[str, object] = json.loads(out.getvalue())
    return data


def test_the_command_writes_the_json_shape_best_first() -> None:
    data = _cli_json(
        "4HPwATDgc/ABMA",
        "--dice",
        "31",
        "--top",
        "3",
        "--trials",
        "12",
        "--truncate",
        "2",
        "--workers",
        "1",
        "--seed",
        "4",
    )
    assert data["trials"] == 12
    cands = data["candidates"]
    assert isinstance(cands, list) and len(cands) == 3
    assert {"play", "probabilities", "equity", "se"} <= set(cands[0])
    assert all(len(c["probabilities"]) == 5 for c in cands)
    eqs = [c["equity"] for c in cands]
    assert eqs == sorted(eqs, reverse=True)
    pos = Position.initial()
    for c in cands:
        pos.parse_move(c["play"], (3, 1))
    cube = _cli_json(
        "4HPwATDgc/ABMA", "--cube", "--trials", "6", "--truncate", "1", "--workers", "1"
    )
    assert [c["play"] for c in cube["candidates"]] == list(CUBE_LABELS)  # type: ignore[union-attr]
    assert cube["settings"]["cubeful"] is True  # type: ignore[index]
    assert cube["settings"]["prune"] == 5  # type: ignore[index]


def test_the_command_prints_a_table_and_reports_bad_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(["rollout", "4HPwATDgc/ABMA", "--trials", "4", "--truncate", "1", "--workers", "1"])
        == 0
    )
    out = capsys.readouterr().out
    assert "Rollout: 4 trials" in out and "(position)" in out
    assert main(["rollout", "4HPwATDgc/ABMA", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:  # argparse's own refusal of a count
        main(["rollout", "4HPwATDgc/ABMA", "--trials", "0"])
    assert refused.value.code == 2 and "--trials: must be from 1" in capsys.readouterr().err
    assert main(["rollout", "4HPwATDgc/ABMA", "--dice", "77"]) == 2
    assert main(["rollout", "4HPwATDgc/ABMA", "--prune", "-1"]) == 2
    assert "prune must be >= 0" in capsys.readouterr().err


def test_the_command_takes_the_roll_and_match_from_an_xgid() -> None:
    """An XGID's dice are rolled out when no --dice or --cube is given; a match score gives
    MWC beside the normalised equity."""
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"
    data = _cli_json(xgid, "--top", "2", "--trials", "6", "--truncate", "1", "--workers", "1")
    pos = Position.from_xgid(xgid)
    for c in data["candidates"]:  # type: ignore[union-attr]
        pos.parse_move(c["play"], (5, 2))
        assert "mwc" not in c
    match = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:1:2:0:5:10"
    data = _cli_json(match, "--top", "1", "--trials", "6", "--truncate", "1", "--workers", "1")
    (c,) = data["candidates"]  # type: ignore[misc]
    assert 0.0 < c["mwc"] < 1.0 and c["mwc_se"] >= 0.0


def test_a_match_cube_rollout_is_in_match_winning_chances() -> None:
    """5-point match at 2-2 (3-away each): double/pass is worth the MET's 2-away/3-away
    to the doubler; no double and double/take are chances between 0 and 1 whose normalised
    equity puts a won game at +1 and a lost one at -1 for the cube at 1."""
    from backgammon.evaluation.met import KAZAROSS_XG2

    state = CubeState(match_length=5, score=(2, 2))
    r = rollout(
        Position.initial(),
        state,
        cube=True,
        settings=RolloutSettings(trials=12, batch=6, truncate=3, cubeful=True),
    )
    nd, dt, dp = r.candidates
    assert dp.mwc == KAZAROSS_XG2.equity(2, 3) and dp.equity == 1.0
    win, lose = KAZAROSS_XG2.equity(2, 3), KAZAROSS_XG2.equity(3, 2)
    for c in (nd, dt):
        assert c.mwc is not None and 0.0 < c.mwc < 1.0
        assert c.equity == pytest.approx(2 * (c.mwc - lose) / (win - lose) - 1)


def test_trials_are_summed_batch_by_batch_not_kept() -> None:
    """The mean and standard error built batch by batch (memory: one row per candidate,
    whatever ``--trials``) equal numpy's over all the trials at once; the batches are made
    as they are needed, so ten million trials plan nothing up front."""
    from backgammon.judging.rollout.run import _Moments, batches

    rng = np.random.default_rng(21)
    x = rng.normal(size=(3, 1000))
    moments = _Moments()
    for first in range(0, 1000, 37):
        moments.add(x[:, first : first + 37])
    assert moments.n == 1000
    assert np.allclose(moments.mean, x.mean(axis=1), rtol=0, atol=1e-12)
    expected = x.std(axis=1, ddof=1) / np.sqrt(1000)
    assert np.allclose(moments.se(), expected, rtol=1e-10, atol=0)
    plan = batches(RolloutSettings(trials=10_000_000, batch=36))
    assert next(plan) == (0, 36) and next(plan) == (36, 36)


def test_a_cube_rollout_prints_the_proper_action(capsys: pytest.CaptureFixture[str]) -> None:
    """A cube rollout says its proper action (gnubg's words, from the three rolled-out
    values, as ``eval`` decides from evaluated ones); double/pass plays no game, so its row
    shows no chances; a match shows EMG beside MWC."""
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:1:2:0:5:10"
    args = ["rollout", xgid, "--cube", "--trials", "36", "--truncate", "2", "--workers", "1"]
    assert main([*args, "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    nd, dt, dp = (c["mwc"] for c in data["candidates"])
    state = CubeState.from_match(Match.from_xgid(xgid))
    expected = proper_action(decision_from_values(nd, dt, dp, state), state)
    assert data["proper"] == expected
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"Proper cube action: {expected}" in out and "EMG" in out and "MWC" in out
    passed = next(line for line in out.splitlines() if "double/pass" in line)
    assert passed.count("—") == 5
