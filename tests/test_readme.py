"""The README's examples run as written."""

import doctest
from pathlib import Path


def test_readme_examples() -> None:
    result = doctest.testfile(
        str(Path(__file__).parent.parent / "README.md"), module_relative=False
    )
    assert result.attempted > 0
    assert result.failed == 0


def test_package_docstring_examples() -> None:
    import backgammon

    result = doctest.testmod(backgammon)
    assert result.attempted >= 3
    assert result.failed == 0


def test_the_readme_eval_example_agrees_with_gnubg_and_the_rollout() -> None:
    """The README's ``eval`` example is judged as gnubg's 2-ply and our rollout judge it
    (double, take; 65.4% to win by a 72-trial rollout to the end in labels/gnubg-cube), so a
    reader who takes it for the truth is not misled."""
    import re
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from gnubg_reference import GnubgCube, ask_gnubg_cube

    from backgammon.core.position import Position
    from backgammon.evaluation.cube import CubeState
    from backgammon.judging.evaluate import proper_action
    from backgammon.players.neural import NeuralPlayer

    readme = (Path(__file__).parent.parent / "README.md").read_text("utf-8")
    found = re.search(r'backgammon eval "(\S+)" --ply 1', readme)
    assert found is not None
    pos, state = Position.from_position_id(found.group(1)), CubeState()
    ours = NeuralPlayer(1)
    case = GnubgCube(pos, state)
    ask_gnubg_cube([case], plies=2)
    assert (case.doubles, case.takes) == (True, True)
    assert proper_action(ours.cube_decision(pos, state), state) == "double, take"
    win = ours.probabilities(pos).win
    assert abs(win - case.probs[0]) < 0.02 and abs(win - 0.654) < 0.02
