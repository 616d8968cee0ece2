"""One position judged (``backgammon eval``): the probabilities and equity of the side on
roll at a depth, the cube numbers and the proper action in gnubg's words, as text and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import run_cli

from backgammon import Match, Position
from backgammon.evaluation.cube import CubeAction, CubeDecision, CubeState
from backgammon.judging.evaluate import EvaluationError, evaluate, proper_action
from backgammon.players.neural import NeuralPlayer

ND, DT, DP = CubeAction.NO_DOUBLE, CubeAction.TAKE, CubeAction.PASS


@pytest.mark.parametrize(
    ("values", "action", "response", "owner", "words"),
    [
        ((0.3, 0.1, 1.0), ND, DT, 0, "no double, take"),
        ((0.8, 0.9, 1.0), CubeAction.DOUBLE, DT, 0, "double, take"),
        ((0.9, 1.3, 1.0), CubeAction.DOUBLE, DP, 0, "double, pass"),
        ((1.2, 1.4, 1.0), ND, DP, 0, "too good to double, pass"),  # gammons: play on
        ((0.9, 1.3, 1.0), CubeAction.DOUBLE, DP, 1, "redouble, pass"),  # R24: owner redoubles
        ((0.1, -0.3, 1.0), ND, CubeAction.BEAVER, 0, "no double, beaver"),  # R32
    ],
)
def test_the_proper_action_in_gnubgs_words(
    values: tuple[float, float, float],
    action: CubeAction,
    response: CubeAction,
    owner: int,
    words: str,
) -> None:
    cube = CubeState(cube_value=2 if owner else 1, cube_owner=owner, beavers=True)
    assert proper_action(CubeDecision(*values, action, response), cube) == words


def test_evaluation_is_the_players_judgement_at_that_depth() -> None:
    m = Match.from_gnubg_id("w24bAEI2uxMACg:MAGgAAAAAAAE")  # 5-point match, 1-0
    cube = CubeState.from_match(m)
    for plies in (0, 1):
        e = evaluate(m.position, cube, plies)
        bot = NeuralPlayer(plies)
        assert e.plies == plies
        assert e.probabilities == bot.probabilities(m.position, plies)
        assert e.equity == pytest.approx(e.probabilities.equity())
        d = bot.cube_decision(m.position, cube)
        assert e.cube.proper == proper_action(d, cube)
        assert e.cube.mwc is not None and e.cube.mwc[0] == pytest.approx(d.no_double)
    data = e.to_json()
    assert set(data) == {"ply", "probabilities", "equity", "cube"}
    assert len(data["probabilities"]) == 5 and 0 < data["probabilities"][0] < 1
    assert set(data["cube"]) >= {"no_double", "double_take", "double_pass", "proper"}


def test_an_unavailable_cube_is_said_so() -> None:
    # The opponent owns the cube: the side on roll cannot double (R24).
    e = evaluate(Position.initial(), CubeState(cube_value=2, cube_owner=-1))
    assert e.cube.double_take is None and e.cube.double_pass is None
    assert "not available" in e.cube.proper


def test_what_cannot_be_judged_is_refused() -> None:
    with pytest.raises(EvaluationError, match="0, 1 or 2"):
        evaluate(Position.initial(), plies=3)
    over = Position([0] * 25 + [0])
    with pytest.raises(EvaluationError, match="over"):
        evaluate(over)


def test_the_command_prints_and_writes_json(tmp_path: Path) -> None:
    r = run_cli("eval", "w24bAEI2uxMACg:MAGgAAAAAAAE")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Evaluation at 0-ply") and "5-point match" in lines[0]
    assert any(line.strip().startswith("proper cube action: ") for line in lines)
    assert all(len(line) <= 80 for line in lines)
    r = run_cli("eval", "4HPwATDgc/ABMA", "--json", "-")
    data = json.loads(r.stdout)
    assert data["ply"] == 0 and data["cube"]["proper"] == "no double, take"
    out = tmp_path / "e.json"
    r = run_cli("eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10", "--json", str(out))
    assert r.returncode == 0 and json.loads(out.read_text())["ply"] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval", "4HPwATDgc/ABMA", "--ply", "5"], "--ply is 0, 1 or 2"),
        (["eval", "not an id"], "backgammon eval:"),
        (["eval", "4HPwATDgc/ABMA", "--json", "/nonexistent/e.json"], "no folder"),
    ],
)
def test_the_command_refuses_bad_input_in_a_line(args: list[str], message: str) -> None:
    r = run_cli(*args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_eval_answers_with_a_double_pending_as_before_the_double() -> None:
    """Issue 68, item 17: ``eval`` refused an ID with a double pending ("nothing to
    evaluate") where ``hint`` and gnubg's ``eval`` answer: it judges the doubler's position
    before its roll, the numbers of the same ID before the double."""
    m = Match(length=5)
    m.roll((3, 1))
    m.move(m.legal_moves()[0])
    before = m.gnubg_id()
    m.double()
    runs = [run_cli("eval", gnubg_id, "--json", "-") for gnubg_id in (before, m.gnubg_id())]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr
    judged = [json.loads(r.stdout) for r in runs]
    assert judged[1]["probabilities"] == judged[0]["probabilities"]
    assert judged[1]["cube"] == judged[0]["cube"]
