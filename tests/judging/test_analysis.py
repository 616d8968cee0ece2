"""Cubeful evaluation, hints at the real score, and match analysis (issue 11).

The cube decisions are checked against Debian's gnubg (its 0-ply probabilities through our
cube logic must give its proper action); hints and analysis against laws of the match
equity table and gnubg's definitions.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import NamedTuple

import gnubg_nn
import numpy as np
import pytest
from clihelp import run_cli
from gnubg_reference import GnubgCube, ask_gnubg_cube, played_game_cases, to_gnubg

from backgammon import Position
from backgammon.cli.advice import hint_lines
from backgammon.cli.analyse import html_report
from backgammon.evaluation.cube import (
    CubeAction,
    CubeState,
    cube_decision,
    cube_values,
    cubeful,
    emg_to_mwc,
    to_emg,
)
from backgammon.evaluation.encode import boards_array
from backgammon.evaluation.met import KAZAROSS_XG2
from backgammon.evaluation.search import cube_lives
from backgammon.judging.analysis import (
    PLAY_ROLLOUT,
    RECHECK_ROLLOUT,
    _Judge,
    analyse,
)
from backgammon.judging.evaluate import best_plays
from backgammon.judging.results import THRESHOLDS, Analysis, Judged, MarkError, review_json
from backgammon.play.match import Match
from backgammon.play.record import GameStart, MatchRecord
from backgammon.players.neural import NeuralPlayer
from backgammon.records import mat
from backgammon.records.walk import walk

SAMPLE = Path(__file__).parent.parent / "data" / "samples" / "gnubg107_5pt_match.mat"


@pytest.fixture(scope="module")
def net() -> NeuralPlayer:
    return NeuralPlayer(0)


def _x(pos: Position) -> float:
    return float(cube_lives(boards_array([pos.board]))[0])


# Positions from gnubg's self-play (gnubg_reference.played_game_cases, seed 5) whose proper
# cube action changes with the score: money, 7-away/7-away, 2-away/2-away (R29: the cube
# is dead for both after a double), and 4-away trailing 1-away after the Crawford game
# (R28: the leader cannot double, a gammon wins the match for the trailer).
FLIPPING = ("bNYSAiVibwcDEA", "hk/wAQY2O8EBIg")
SCORES = (CubeState(), CubeState(7, (0, 0)), CubeState(5, (3, 3)), CubeState(5, (1, 4)))


@pytest.mark.parametrize("position_id", FLIPPING)
def test_cube_decisions_that_flip_with_the_score_agree_with_gnubg(position_id: str) -> None:
    pos = Position.from_position_id(position_id)
    cases = [GnubgCube(pos, state) for state in SCORES]
    ask_gnubg_cube(cases)
    seen = set()
    for case in cases:
        ours = cube_decision(list(case.probs), case.state, _x(pos))
        assert (ours.action is CubeAction.DOUBLE) == case.doubles, case.state
        assert (ours.response is not CubeAction.PASS) == case.takes, case.state
        seen.add((case.doubles, case.takes))
    assert len(seen) >= 2  # gnubg's own answer changes with the score
    # The Crawford game (R28) and a dead cube (2-away owning a 2-cube, R29): no double,
    # whatever the chances; gnubg itself refuses ("You cannot double").
    for state in (CubeState(5, (3, 4), crawford=True), CubeState(5, (3, 1), 2, 1)):
        assert not state.may_double()
        assert cube_decision(list(cases[0].probs), state, _x(pos)).action is CubeAction.NO_DOUBLE


def test_cube_logic_agrees_with_gnubg_on_random_cube_states() -> None:
    # R22-R33: gnubg's own probabilities through our cube logic against its proper cube
    # action on positions from its self-play, money (Jacoby or not, centred or owned cube)
    # and match scores (centred or owned, post-Crawford); bench/cube_agreement.py at scale.
    positions = [
        pos
        for pos, _, _ in played_game_cases(200, seed=4)
        if not pos.is_game_over() and 0.55 <= gnubg_nn.probabilities(to_gnubg(pos), 0)[0] <= 0.92
    ][:60]
    states = [
        CubeState(),
        CubeState(jacoby=True),
        CubeState(0, (0, 0), 2, 1),
        CubeState(7, (2, 3)),
        CubeState(9, (2, 5), 2, 1),
        CubeState(5, (1, 4)),
    ]
    cases = [GnubgCube(pos, states[i % len(states)]) for i, pos in enumerate(positions)]
    ask_gnubg_cube(cases)
    agree = 0
    for c in cases:
        ours = cube_decision(list(c.probs), c.state, _x(c.position))
        agree += (ours.action is CubeAction.DOUBLE) == c.doubles and (
            ours.response is not CubeAction.PASS
        ) == c.takes
    assert agree >= len(cases) - 1, agree  # one borderline case allowed (5-digit rounding)


def test_emg_maps_the_cube_points_to_plus_and_minus_one() -> None:
    # gnubg's mwc2eq: winning the cube's points is +1, losing them -1, and it inverts.
    state = CubeState(7, (2, 4), 2, -1)
    win, lose = KAZAROSS_XG2.equity(3, 3), KAZAROSS_XG2.equity(5, 1)
    assert to_emg(win, state) == pytest.approx(1.0) and to_emg(lose, state) == pytest.approx(-1.0)
    assert emg_to_mwc(to_emg(0.4, state), state) == pytest.approx(0.4)
    assert to_emg(0.3, CubeState()) == pytest.approx(0.3)  # money: already per unit cube


def test_dead_cube_value_is_the_cubeless_one() -> None:
    # With no cube life (x = 0) the cubeful value is the dead-cube one: money equity (R20)
    # or the MWC of the outcomes through the table (R27).
    p = np.array([0.6, 0.2, 0.02, 0.1, 0.01])
    assert cubeful(p, CubeState(), 0.0)[0] == pytest.approx(2 * 0.6 - 1 + 0.2 - 0.1 + 0.02 - 0.01)
    state = CubeState(5, (1, 2))
    a, b = state.away
    m = KAZAROSS_XG2.equity
    dead = (
        0.4 * m(a - 1, b)
        + 0.18 * m(a - 2, b)
        + 0.02 * m(a - 3, b)
        + 0.3 * m(a, b - 1)
        + 0.09 * m(a, b - 2)
        + 0.01 * m(a, b - 3)
    )
    assert cubeful(p, state, 0.0)[0] == pytest.approx(dead)
    # In the Crawford game the cube is dead whatever the cube life.
    crawford = CubeState(5, (3, 4), crawford=True)
    assert cubeful(p, crawford, 0.68)[0] == pytest.approx(cubeful(p, crawford, 0.0)[0])
    nd, _, dp = cube_values(p, crawford)
    assert cube_decision(tuple(p), crawford).action is CubeAction.NO_DOUBLE and nd[0] < dp


def _crawford_mwc(p: np.ndarray) -> float:
    """2-away against 1-away in the Crawford game (R28): a single win leaves 1-away/1-away
    (0.5), a gammon or backgammon wins the match, any loss loses it."""
    return 0.5 * (p[0] - p[1]) + 1.0 * p[1]


def test_crawford_hint_differs_from_the_money_hint(net: NeuralPlayer) -> None:
    # At 2-away/1-away Crawford the plays are ranked by the MWC law above (gammons count
    # double, losing a gammon costs nothing more), which is not the money order.
    state = CubeState(5, (3, 4), crawford=True)
    found = False
    pos = Position.initial()
    rng = np.random.default_rng(3)
    for _ in range(60):
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        crawford = net.ranked_moves(pos, dice, state)
        money = best_plays(net, pos, dice)  # the money hint's order: cubeful, centred cube
        if len(crawford) > 1:
            laws = [_crawford_mwc(r.probabilities.array()) for r in crawford]
            assert [r.mwc for r in crawford] == pytest.approx(laws)
            assert laws == sorted(laws, reverse=True)
            if crawford[0].move != money[0].move:
                found = True
                lines = hint_lines(net, pos, dice, cube=state)
                money_lines = hint_lines(net, pos, dice)
                assert str(crawford[0].move) in lines[0] and "MWC" in lines[0]
                assert str(money[0].move) in money_lines[0] and "MWC" not in money_lines[0]
                break
        move = (crawford or money)[0].move if (crawford or money) else None
        pos = pos.play(move).flip() if move is not None else pos.flip()
        if pos.is_game_over():
            pos = Position.initial()
    assert found


def _first_games(n: int) -> MatchRecord:
    record = mat.read_record(SAMPLE.read_text())  # the games, then the next one begun
    return dataclasses.replace(record, games=(*record.games[:n], record.games[n][:1]))


def test_analysis_of_a_match_counts_unforced_plays_and_luck(net: NeuralPlayer) -> None:
    record = _first_games(1)
    a = analyse(record, net, plies=0)
    # Luck sums to zero over both players' MWC, and the luck-adjusted results too (R27).
    assert a.players[0].luck_result + a.players[1].luck_result == pytest.approx(0.0)
    assert a.players[0].result + a.players[1].result == pytest.approx(0.0)
    assert sum(p.unforced for p in a.players) == sum(1 for d in a.decisions if d.kind == "checker")
    # The same match analysed from the Match it replays to gives the same judgement.
    b = analyse(walk(record), net, plies=0, names=record.players)
    assert [d.error_emg for d in b.decisions] == pytest.approx([d.error_emg for d in a.decisions])


def test_hints_are_off_between_two_people_until_the_match_ends(tmp_path: Path) -> None:
    r = run_cli("play", "--vs", "human", "--seed", "3", stdin="hint\nquit\n", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Hints are off in a match between two people until it ends." in r.stdout
    assert "EMG" not in r.stdout


def _tutored(tmp_path: Path, script: str) -> tuple[str, str]:
    """Seed 3 against the random bot with the tutor: it opens, we roll 21 (Enter), then
    ``script``; the output and the saved match."""
    r = run_cli(
        "play",
        "--seed",
        "3",
        "--bot",
        "random",
        "--tutor",
        "--out",
        "t.mat",
        stdin="\n" + script,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout, (tmp_path / "t.mat").read_text()


def test_the_tutor_warns_before_a_bad_play_and_lets_it_be_reconsidered(tmp_path: Path) -> None:
    # We may hit with 21; 8/7 8/6 leaves the blot standing and loses far more than gnubg's
    # "bad" threshold (0.06 EMG): the tutor asks, we say no, the play is taken back.
    out, saved = _tutored(tmp_path, "8/7 8/6\nn\nquit\n")
    assert "Tutor: 8/7 8/6 loses" in out and "Go ahead anyway? (y/n) > n" in out
    assert "8/7 8/6" not in saved
    # The best play passes without a word.
    out, saved = _tutored(tmp_path, "24/22*/21\nquit\n")
    assert "Tutor:" not in out and "21: 24/22* 22/21" in saved


def _bot_match(length: int, seed: int) -> MatchRecord:
    """A whole match between two pubeval bots on seeded dice, as its .mat file reads."""
    from backgammon.play.dice import SeededDice
    from backgammon.play.match import Match
    from backgammon.players import decide, get

    bot = get("pubeval")
    m = Match(length=length, dice=SeededDice(seed))
    while not m.is_over:
        m.apply(decide(bot, m))
    return mat.read_record(mat.write(m, ("Left", "Right")))


class Seven(NamedTuple):
    """A record, its analysis, the Matches the analysis made and those its report made."""

    record: MatchRecord
    analysis: Analysis
    walked: list[str]
    drawn: list[str]
    page: str


@pytest.fixture(scope="module")
def seven(net: NeuralPlayer) -> Seven:
    """A 7-point match of two pubeval bots, analysed at 0-ply once for the tests below, with
    the Matches the analysis made.  Without rollouts: the walk and the record's score are
    what these tests judge, and rolling out the pubeval bots' many very bad plays (twice,
    with the tail's analysis) was the longest part of CI (test_a_contact_play_is_rolled_
    out_only_when_marked_very_bad and the review's tests roll plays out)."""
    record = _bot_match(7, seed=11)
    made: list[str] = []
    init, resume = Match.__init__, Match._resume.__func__  # type: ignore[attr-defined]

    def counted_init(self: Match, *args: object, **kwargs: object) -> None:
        made.append("new")
        init(self, *args, **kwargs)  # type: ignore[arg-type]

    def counted_resume(cls: type[Match], *args: object) -> Match:
        made.append("resumed")
        return resume(cls, *args)  # type: ignore[no-any-return]

    walked_record = record  # read: what a reader gives
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Match, "__init__", counted_init)
        patch.setattr(Match, "_resume", classmethod(counted_resume))
        analysis = analyse(walked_record, net, plies=0, rollouts=False)
        walked = list(made)
        page = html_report(analysis, "seven")
    return Seven(record, analysis, walked, made[len(walked) :], page)


def test_analysis_walks_a_7_point_match_with_one_match(seven: Seven) -> None:
    a = seven.analysis
    assert len(seven.record.games) > 1
    assert seven.walked == ["new"]  # the record is walked once, by one Match
    assert seven.drawn == ["resumed"] * len(a.errors("bad"))  # a board per error shown
    assert seven.page.count("<svg") == len(a.errors("bad")) + 1  # and the graph


def test_analysis_of_a_record_starts_at_its_first_games_score(
    seven: Seven, net: NeuralPlayer
) -> None:
    record, whole = seven.record, seven.analysis
    tail = mat.read_record(mat.write_record(dataclasses.replace(record, games=record.games[1:])))
    first = tail.games[0][0]
    assert isinstance(first, GameStart) and first.score != (0, 0)
    late = analyse(tail, net, plies=0, rollouts=False)  # as the whole was
    # The same decisions (gnubg IDs: positions, scores, cubes) get the same judgement.
    assert late.decisions == [d for d in whole.decisions if d.game > 1]
    assert late.decisions[0].state is not None
    assert late.decisions[0].state.score == first.score


def test_every_checker_decision_carries_its_review(net: NeuralPlayer) -> None:
    """The review's data: each unforced play has its dice, the plays gnubg's move filter
    keeps (at least five where the roll has as many), all valued the same way and ranked by
    that value, with the played one among them, the luck of its roll; each cube decision its
    three values and the proper action."""
    from backgammon.judging.results import REVIEW_FILTER

    a = analyse(_first_games(2), net, 0)
    checker = [d for d in a.decisions if d.kind == "checker"]
    cube = [d for d in a.decisions if d.kind != "checker"]
    assert checker and cube
    for d in checker:
        assert d.dice is not None and d.state is not None and d.state.dice == d.dice
        values = [c.equity for c in d.candidates]
        assert values == sorted(values, reverse=True)
        # One kind of figure a list: all searched at one depth, or all rolled out alike.
        assert len({(c.plies, c.rollout_trials) for c in d.candidates}) == 1
        legal = len(d.state.position.legal_moves(d.dice))
        assert len(d.candidates) >= min(REVIEW_FILTER.least, legal)
        assert any(c.move == d.played for c in d.candidates)
        assert d.candidates[0].move == d.best
        played = next(c for c in d.candidates if c.move == d.played)
        assert d.error_emg == pytest.approx(max(0.0, d.candidates[0].equity - played.equity))
        # In a match the same loss in match winning chance: the best's MWC less the played's.
        assert d.error_mwc is not None and played.mwc is not None
        assert d.error_mwc == pytest.approx(max(0.0, (d.candidates[0].mwc or 0.0) - played.mwc))
        assert all(len(c.probabilities) == 5 and 0 <= c.probabilities[0] <= 1 for c in d.candidates)
    assert sum(d.luck is not None for d in checker) > len(checker) // 2
    for d in cube:
        assert d.cube is not None and d.cube.double_pass == pytest.approx(1.0)
        assert d.cube.proper.split(", ")[1] in ("take", "pass", "beaver")
        # The same three values in MWC: one rises with the other (EMG maps MWC linearly).
        emg, mwc = (d.cube.no_double, d.cube.double_take, d.cube.double_pass), d.cube.mwc
        assert mwc is not None and sorted(range(3), key=emg.__getitem__) == sorted(
            range(3), key=mwc.__getitem__
        )
    data = a.to_json()["decisions"]
    assert all("candidates" in x and "dice" in x for x in data if x["kind"] == "checker")
    assert all("cube" in x for x in data if x["kind"] != "checker")


def test_the_issues_race_play_is_judged_right(net: NeuralPlayer) -> None:
    """The issue's race (gnubg: 4/off 1/off and 4/off 2/1 equal, 34% gammons each, rollouts
    35-37%): the race net alone put 48% gammons after 4/off 1/off and 31% after 4/off 2/1;
    with the leader's exact bear-off and the trailer net both leave the same gammons."""
    m = Match.from_gnubg_id("w741BADvCQAAAA:EQGnAAAAAAAE")
    played = m.position.parse_move("4/off 2/1", (6, 1))
    judge = _Judge(net, 1, ("a", "b"), THRESHOLDS, rollouts=False)
    judge.checker(m, 1, 1, 0, played)
    judged = judge.decisions[0]
    assert judged.mark == "" and judged.error_emg < 0.005
    gammons = {c.move: c.probabilities[1] for c in judged.candidates}
    assert gammons["4/off 1/off"] == pytest.approx(gammons["4/off 2/1"], abs=0.005)
    assert 0.30 < gammons["4/off 2/1"] < 0.45


def test_a_race_play_the_net_misjudges_is_cleared_by_rollouts() -> None:
    """The same race judged by the race net alone (no trailer net): it marks gnubg's
    4/off 2/1 very bad; the race check rolls both out to the end and finds them equal
    within their noise, so no mark."""
    alone = NeuralPlayer(0)
    alone.evaluator.trailer = None
    m = Match.from_gnubg_id("w741BADvCQAAAA:EQGnAAAAAAAE")
    assert m.dice == (6, 1)
    played = m.position.parse_move("4/off 2/1", (6, 1))
    judged = {}
    for check in (False, True):
        judge = _Judge(alone, 1, ("a", "b"), THRESHOLDS, rollouts=check)
        judge.checker(m, 1, 1, 0, played)
        judged[check] = judge.decisions[0]
    assert judged[False].mark == "very bad" and judged[False].best == "4/off 1/off"
    after = judged[True]
    assert after.mark == "" and after.error_emg < 0.03
    rolled = {c.move: c for c in after.candidates if c.rollout_trials == RECHECK_ROLLOUT.trials}
    # Every shown play is rolled out, so the list is ranked by one kind of figure.
    assert {"4/off 1/off", "4/off 2/1"} <= set(rolled) == {c.move for c in after.candidates}
    for c in rolled.values():  # gnubg's 2-ply: 34.2% and 34.3% gammons
        assert 0.30 < c.probabilities[1] < 0.42
    # What the review shows says where the figures come from.
    assert f'"rollout_trials": {RECHECK_ROLLOUT.trials}' in json.dumps(review_json(after))


def test_a_contact_play_is_rolled_out_only_when_marked_very_bad(net: NeuralPlayer) -> None:
    """The race check is for races the database does not cover: a contact play marked bad
    keeps its search figures; one marked very bad (24/23 24/21 with the opening 31, 0.27
    at 0 ply) is rolled out, 7 plies (:data:`PLAY_ROLLOUT`), and stays very bad."""
    for dice, text, word in (((3, 2), "13/8", "bad"), ((3, 1), "24/21 24/23", "very bad")):
        m = Match(length=5)
        m.roll(dice)
        judge = _Judge(net, 0, ("a", "b"), THRESHOLDS)
        judge.checker(m, 1, 1, 0, m.position.parse_move(text, dice))
        d = judge.decisions[0]
        assert d.mark == word
        rolled = {c.move for c in d.candidates if c.rollout_trials == PLAY_ROLLOUT.trials}
        shown = {c.move for c in d.candidates}
        assert rolled == (set() if word == "bad" else shown)
        assert d.played in shown and len(shown) >= 5
        assert word == "bad" or d.best == "8/5 6/5"


def test_a_cube_decision_the_search_calls_very_bad_is_rolled_out(net: NeuralPlayer) -> None:
    """A double and pass gnubg's 2-ply rates right (double, pass: no double 0.949, double/take
    1.008), met in a match gnubg played against itself at its best: our 2-ply calls the
    pass wrong by some 0.11 EMG, very bad on a reviewer's stricter line (0.09; gnubg's own
    is 0.12, which stage 20's 2-ply crossed); rolled out (the default), the pass is not
    marked, and the double is never very bad."""
    strict = (("very bad", 0.09), ("bad", 0.06), ("doubtful", 0.03))
    judged = {}
    for rollouts in (False, True):
        m = Match.from_gnubg_id("bG6DAQNmbhMHAA:cAlgAAAACAAE")
        judge = _Judge(net, 2, ("a", "b"), strict, rollouts=rollouts)
        doubler = m.turn
        assert doubler is not None
        judge.double(m, 1, 9, doubler)
        m.double(player=doubler)
        judge.answer(m, 1, 9, 1 - doubler, took=False)
        judged[rollouts] = judge.decisions
    assert [d.mark for d in judged[False]][1] == "very bad"
    after = judged[True]
    assert all(d.mark != "very bad" for d in after)
    assert (after[1].played, after[1].best, after[1].mark) == ("Pass", "Pass", "")
    assert after[1].cube is not None and after[1].cube.rollout_trials == RECHECK_ROLLOUT.trials
    assert f'"rollout_trials": {RECHECK_ROLLOUT.trials}' in json.dumps(review_json(after[1]))


def test_verify_rolls_out_a_checker_play_the_search_marks(net: NeuralPlayer) -> None:
    """gnubg's 2-ply plays 13/9 11/9 with 42 here; our 2-ply marks it (bad, against
    18/16* 13/9, one of the eight plays the review judges at 2 ply).  A contact play marked
    below very bad keeps its search figures by default; ``verify`` at its mark rolls out the
    shown plays to the end and takes the error from the rollouts."""

    def judged(rollouts: bool, verify: str | None) -> Judged:
        m = Match.from_gnubg_id("DWcJgDlmbiODAA:QQlqAAAAAAAE")
        played = m.position.parse_move("13/9 11/9", (4, 2))
        judge = _Judge(net, 2, ("a", "b"), THRESHOLDS, rollouts=rollouts, verify=verify)
        judge.checker(m, 1, 12, m.turn or 0, played)
        return judge.decisions[0]

    alone = judged(False, None)
    assert alone.mark in ("doubtful", "bad") and alone.best != "13/9 11/9"
    assert judged(True, None) == alone
    assert all(c.rollout_trials == 0 for c in alone.candidates)
    after = judged(True, alone.mark)
    rolled = {c.move: c for c in after.candidates if c.rollout_trials}
    assert {"13/9 11/9", alone.best} <= set(rolled) == {c.move for c in after.candidates}
    best = max(rolled.values(), key=lambda c: c.equity)
    assert after.best == best.move
    assert after.error_emg == pytest.approx(best.equity - rolled["13/9 11/9"].equity, abs=1e-9)
    assert after.error_emg != pytest.approx(alone.error_emg, abs=1e-3)


def test_verify_takes_only_a_mark() -> None:
    with pytest.raises(MarkError, match="doubtful, bad, very bad"):
        analyse(Match(length=3), verify="awful")


def _tied_and_rejected() -> Match:
    """A 3-point match of random actions on seeded dice with a tied opening throw and a
    rejected resignation (seed 2 has both: a file holds neither)."""
    import random

    from backgammon.play.dice import SeededDice
    from backgammon.play.match import OpeningRoll, Reject
    from tests.matchhelp import act

    rng = random.Random(2)
    m = Match(length=3, dice=SeededDice(2))
    while not m.is_over:
        act(m, rng)
    acts = list(m.record.actions())
    assert any(isinstance(a, OpeningRoll) and a.die0 == a.die1 for a in acts)
    assert any(isinstance(a, Reject) for a in acts)
    return m


def test_a_live_match_is_walked_as_its_file_is(
    net: NeuralPlayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The analysis walks a live match's own record (tied openings and rejected resignations
    in it) and numbers its rows, games and luck as the .mat file written of it says."""
    from backgammon.records.convert import read_record_text

    monkeypatch.setattr(_Judge, "_recheck", lambda *_a, **_k: None)  # the walk under test
    m = _tied_and_rejected()
    live = analyse(m, net, plies=0, names=("Ann", "Bob"))
    filed = analyse(read_record_text(mat.write(m, ("Ann", "Bob")), "mat"), net, plies=0)
    assert live.decisions == filed.decisions and live.decisions
    assert [p.luck_emg for p in live.players] == [p.luck_emg for p in filed.players]
    assert [p.result for p in live.players] == [p.result for p in filed.players]
    # The rows are the file's: every judged play stands on a row of its game.
    record = mat.read_record(mat.write(m, ("Ann", "Bob")))
    rows = {g[0].game: {r for _, r in mat.rows(g)} for g in record.games if mat.rows(g)}
    assert all(d.move in rows[d.game] for d in live.decisions)
