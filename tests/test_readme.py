"""The README's examples run as written."""

import doctest
from pathlib import Path

import pytest


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


def test_every_install_command_in_the_docs_installs_the_checkout() -> None:
    """Issue 68, item 16: the docs said ``pip install 'backgammon[rl]'``, which fails (the
    package is not on an index: it is installed from its checkout).  Every ``pip install``
    of the package in the README and docs/ installs the checkout (``.``), with extras that
    pyproject.toml defines."""
    import re
    import tomllib

    root = Path(__file__).parent.parent
    extras = set(
        tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    )
    others = {"open_spiel"}  # a peer some benches compare with, not ours
    found = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for command in re.findall(r"pip install ([^`\n]+)", page.read_text("utf-8")):
            target = command.split("&&")[0].split()[-1].strip("'\"")
            found.append(target)
            if target in others:
                continue
            assert re.fullmatch(r"\.(\[[a-z,]+\])?", target), f"{page.name}: pip install {command}"
            for extra in re.findall(r"[a-z]+", target):
                assert extra in extras, f"{page.name}: no extra {extra!r} in pyproject.toml"
    assert ".[rl]" in found and ".[cluster]" in found


def test_the_label_counts_in_labels_readme_are_the_files() -> None:
    """labels/README.md's table of rolled-out positions counts the files as they are."""
    import re

    import numpy as np

    labels = Path(__file__).parent.parent / "labels"
    table = (labels / "README.md").read_text("utf-8")
    rows = re.findall(
        r"^\| (\*\*)?([\w-]+ ?\w*)(\*\*)? \| (\*\*)?([\d,]+)(\*\*)? \| (\*\*)?([\d,]+)", table, re.M
    )
    counted = {
        name: (int(files.replace(",", "")), int(n.replace(",", "")))
        for _, name, _, _, files, _, _, n in rows
    }
    assert "broad" in counted and len(counted) >= 9
    total_files = total = 0
    for name, (files, n) in counted.items():
        if name == "rolled out":
            continue
        paths = sorted((labels / name).glob("*.npz"))
        sizes = [len(np.load(f)["boards"]) for f in paths]
        assert (len(paths), sum(sizes)) == (files, n), name
        total_files, total = total_files + files, total + n
    assert counted["rolled out"] == (total_files, total)


ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"

# Every figure the README's prose states, and the test that keeps it true: one of this
# file's, or another file's (path::name, whose source names the figure).  Code blocks are
# not prose: their examples run as doctests above and their commands are not figures.
FIGURES = {
    "R1-R33": "test_the_rules_are_r1_to_r33",
    "R13": "test_the_rules_are_r1_to_r33",
    "1,900": "test_the_test_count_is_what_the_readme_says",
    "11": "test_the_ci_time_is_the_last_measured_one",
    "2": "test_the_ci_time_is_the_last_measured_one test_two_bot_processes_per_server",
    "5-point": "test_the_terminal_match_is_five_points",
    "80x24": "cli/test_cli_outputs.py::test_everything_printed_fits_80_columns",
    "SHA-256": "test_the_dice_commitment_is_sha256_of_the_seed",
    "1-24": "test_points_bar_and_off_are_numbered_as_gnubg_numbers_them",
    "25": "test_points_bar_and_off_are_numbered_as_gnubg_numbers_them",
    "0": "test_points_bar_and_off_are_numbered_as_gnubg_numbers_them",
    "1.07": "test_the_gnubg_we_check_against_is_1_07",
    "0-2": "test_the_neural_bot_looks_0_to_2_plies_ahead",
    "Kazaross-XG2": "test_the_analysis_judges_as_the_readme_says",
    "0.03/0.06/0.12": "test_the_analysis_judges_as_the_readme_says",
    "7": "test_the_analysis_judges_as_the_readme_says",
    "36": "test_the_analysis_judges_as_the_readme_says",
    "0.3": "test_the_analysis_judges_as_the_readme_says",
}


def _prose_figures(text: str) -> set[str]:
    """The tokens with a digit in the README's prose (not code, inline code or link targets)."""
    import re

    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    tokens = re.findall(r"\S*\d\S*", text)
    return {re.sub(r"^[(\"]+|[),.;:\"']+$|'s$", "", t) for t in tokens}


def test_every_figure_in_the_readme_has_a_test() -> None:
    """A figure added to the README without a test that checks it fails here; every test
    named for a figure exists, and one in another file names the figure in its source."""
    import inspect

    assert _prose_figures(README.read_text("utf-8")) == set(FIGURES)
    here = globals()
    for figure, names in FIGURES.items():
        for name in names.split():
            if "::" not in name:
                assert callable(here.get(name)), name
                continue
            path, function = name.split("::")
            source = (Path(__file__).parent / path).read_text("utf-8")
            start = source.index(f"def {function}(")
            end = source.find("\ndef ", start + 1)
            assert figure in source[start : end if end > 0 else None], name
    assert inspect.isfunction(here["test_the_rules_are_r1_to_r33"])


def _stated(pattern: str) -> tuple[str, ...]:
    """The groups of ``pattern`` where the README states it."""
    import re

    found = re.search(pattern, README.read_text("utf-8"), re.S)
    assert found is not None, pattern
    return found.groups()


def test_the_rules_are_r1_to_r33() -> None:
    import re

    rules = (ROOT / "docs" / "rules.md").read_text("utf-8")
    numbers = [int(n) for n in re.findall(r"^\*\*R(\d+) - ", rules, re.M)]
    (last,) = (int(n) for n in _stated(r"\(R1-R(\d+), cited as"))
    assert numbers == list(range(1, last + 1))
    assert "R13" in README.read_text("utf-8")


def _collected(session: pytest.Session) -> int:
    """The number of tests in the suite: this session's when it collected every test file
    (as CI's workers do), else a collection of its own."""
    import re
    import subprocess
    import sys

    files = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")}
    seen = {item.nodeid.split("::")[0] for item in session.items}
    if files <= seen:
        return len(session.items)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-o",
            "addopts=",
            "-p",
            "no:cacheprovider",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = re.search(r"^(\d+) tests collected", run.stdout, re.M)
    assert found is not None, run.stdout[-2000:] + run.stderr[-2000:]
    return int(found.group(1))


def test_the_test_count_is_what_the_readme_says(request: pytest.FixtureRequest) -> None:
    """ "About 1,900 tests": within 5% of the tests there are."""
    stated = int(_stated(r"about ([\d,]+) tests")[0].replace(",", ""))
    count = _collected(request.session)
    assert abs(count - stated) <= 0.05 * stated, (count, stated)


def test_the_ci_time_is_the_last_measured_one() -> None:
    """The README's minutes are the last CI run recorded in docs/performance.md (with the
    command that measured it), on as many cores as the README says."""
    import re

    minutes, cores = (int(n) for n in _stated(r"some (\d+) minutes on (\d+) cores"))
    docs = (ROOT / "docs" / "performance.md").read_text("utf-8")
    section = docs[docs.index("## The test suite in CI") :]
    rows = re.findall(
        r"^\| (.*idle (\d+) cores.*) \| (\d+) min (\d+) s \| `(.+)` \|$", section, re.M
    )
    assert rows, "no measured CI run in docs/performance.md"
    _, docs_cores, m, s, command = rows[-1]
    assert command == "bash .ci/run"
    assert (minutes, cores) == (round(int(m) + int(s) / 60), int(docs_cores))


def test_two_bot_processes_per_server() -> None:
    """ "Bots think in worker processes (``--bot-processes``, 2 per server)"."""
    import inspect

    from backgammon.cli.parser import build_parser
    from backgammon.web import create_app

    stated = int(_stated(r"\(`--bot-processes`, (\d+) per server\)")[0])
    serve = build_parser().parse_args(["serve"])
    assert serve.bot_processes == stated
    assert inspect.signature(create_app).parameters["bot_processes"].default == stated


def test_the_terminal_match_is_five_points() -> None:
    from backgammon.cli.parser import DEFAULT_LENGTH

    assert int(_stated(r"starts a (\d+)-point match")[0]) == DEFAULT_LENGTH


def test_the_dice_commitment_is_sha256_of_the_seed() -> None:
    """``--auditable`` "publishes the SHA-256 of a secret dice seed first"."""
    import hashlib

    from backgammon.play.dice import AuditableDice

    dice = AuditableDice()
    dice.roll()
    assert dice.commitment == hashlib.sha256(bytes.fromhex(dice.reveal())).hexdigest()


def test_points_bar_and_off_are_numbered_as_gnubg_numbers_them() -> None:
    """ "points 1-24, bar 25, off 0": the steps of a play from the bar and of a bear-off."""
    from backgammon import BAR, OFF, Position

    first, last, bar, off = (int(n) for n in _stated(r"points (\d+)-(\d+), bar (\d+), off (\d+)"))
    assert (first, last, bar, off) == (1, 24, BAR, OFF)
    board = [0] * 26  # gnubg's simple form: the mover's bar, points 1-24, the other's bar
    board[0], board[6], board[1], board[24] = 1, 13, 1, -15
    entering = Position.from_simple(board).parse_move("bar/22", (2, 1))
    assert [step[:2] for step in entering.steps] == [(bar, 23), (23, 22)]
    board[0], board[6], board[1] = 0, 0, 15
    bearing_off = Position.from_simple(board).parse_move("1/off(2)", (1, 2))
    assert [step[:2] for step in bearing_off.steps] == [(first, off), (first, off)]


def test_the_gnubg_we_check_against_is_1_07() -> None:
    """The files are what gnubg 1.07 writes: the gnubg the differential tests run is 1.07."""
    import subprocess

    version = _stated(r"what gnubg (\d\.\d+) writes")[0]
    out = subprocess.run(["/usr/games/gnubg", "--version"], capture_output=True, text=True)
    assert out.stdout.startswith(f"GNU Backgammon {version}.")


def test_the_neural_bot_looks_0_to_2_plies_ahead() -> None:
    from backgammon.players import get

    low, high = (int(n) for n in _stated(r"at (\d)-(\d) ply: our own nets"))
    assert [get("neural", plies=p).plies for p in range(low, high + 1)] == [0, 1, 2]
    with pytest.raises(ValueError):
        get("neural", plies=high + 1)


def test_the_analysis_judges_as_the_readme_says() -> None:
    """gnubg 1.07's marks, the Kazaross-XG2 table, very bad plays rolled out 7 plies (not
    those 0.3 or more behind) and cube decisions to the end, 36 trials."""
    from backgammon.evaluation.met import KAZAROSS_XG2
    from backgammon.judging.analysis import PLAY_ROLLOUT, PLAY_ROLLOUT_BELOW, RECHECK_ROLLOUT
    from backgammon.judging.marks import THRESHOLDS

    doubtful, bad, very_bad = (
        float(x) for x in _stated(r"thresholds\s+\(([\d.]+)/([\d.]+)/([\d.]+)")
    )
    assert dict(THRESHOLDS) == {"doubtful": doubtful, "bad": bad, "very bad": very_bad}
    assert _stated(r"the (\S+) match-equity table")[0] == KAZAROSS_XG2.name
    plies, trials, below = _stated(
        r"\(a play (\d+) plies, a cube decision to the end; (\d+) trials, and not a play the"
        r"\s+search\s+puts ([\d.]+) or more behind\)"
    )
    assert int(plies) == PLAY_ROLLOUT.truncate
    assert int(trials) == PLAY_ROLLOUT.trials == RECHECK_ROLLOUT.trials
    assert float(below) == PLAY_ROLLOUT_BELOW
    assert RECHECK_ROLLOUT.truncate == 0  # 0: no truncation, to the end
