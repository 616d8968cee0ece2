"""What new users met at the terminal: ``-`` is standard output everywhere, output paths are
checked before the work, counts and ports are bounded, and Ctrl-C stops in one line."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clihelp import Terminal, last_line, run_cli

from backgammon.cli import evaluate
from backgammon.cli.commands import main
from backgammon.evaluation.bearoff2 import TwoSidedDatabase
from backgammon.judging.analysis import PLAY_ROLLOUT
from backgammon.judging.results import mark
from backgammon.records import mat

SAMPLE = Path(__file__).parent.parent / "data" / "samples" / "gnubg107_5pt_match.mat"
Analysed = tuple[subprocess.CompletedProcess[str], Path]
"""One run of ``analyse``: its result and the folder it wrote its files in."""


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory, two_sided: TwoSidedDatabase) -> Analysed:
    """The sample match analysed once at 0-ply by the command line in an 80-column terminal,
    every output asked for: the JSON on standard output (so the tables go to standard
    error), the HTML report and the move-by-move review to files.  The tests that read an
    analysis's outputs share this one run (each analysis rolls its very bad plays out).
    The two-sided bear-off database is built first, so standard error holds the tables alone."""
    folder = tmp_path_factory.mktemp("analysed")
    r = run_cli(
        "analyse", str(SAMPLE), "--ply", "0", "--quiet", "--json", "-",
        "--html", str(folder / "r.html"), "--text", str(folder / "review.txt"),
        cwd=folder, timeout=600, env=NARROW,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return r, folder


def test_a_dash_means_standard_output_for_analyse(
    analysed: Analysed,
) -> None:
    r, folder = analysed
    data = json.loads(r.stdout)  # only the JSON on standard output; the tables on stderr
    assert data["plies"] == 0 and "Analysis at 0-ply" in r.stderr
    assert not (folder / "-").exists()


def test_the_summary_title_is_whole_and_results_have_their_unit(analysed: Analysed) -> None:
    """Issue 68 item 20: in 80 columns the title is one line, and a match's results are
    match winning chances with a % (gnubg's "+50.00%"), not bare numbers."""
    r, _ = analysed
    title = "Analysis at 0-ply (errors in mEMG per decision; PR = 500 x EMG)"
    assert any(line.strip() == title for line in r.stderr.splitlines()), r.stderr[:600]
    rows = [line for line in r.stderr.splitlines() if "esult (MWC)" in line]
    assert len(rows) == 2, r.stderr  # the result and the luck-adjusted one
    assert all(re.search(r"[+-]\d+\.\d%.*[+-]\d+\.\d%", line) for line in rows), rows


@pytest.mark.parametrize(
    "args",
    [
        ["analyse", str(SAMPLE), "--json", "/nonexistent/a.json"],
        ["analyse", str(SAMPLE), "--html", "/nonexistent/a.html"],
        ["analyse", str(SAMPLE), "--text", "/nonexistent/a.txt"],
        ["rollout", "4HPwATDgc/ABMA", "--dice", "31", "--json", "/nonexistent/r.json"],
        ["eval", "4HPwATDgc/ABMA", "--json", "/nonexistent/e.json"],
        ["convert", str(SAMPLE), "/nonexistent/x.sgf"],
    ],
)
def test_a_bad_output_path_is_named_before_any_work(args: list[str]) -> None:
    start = time.monotonic()
    r = run_cli(*args)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "cannot write /nonexistent/" in r.stderr and "no folder /nonexistent" in r.stderr
    assert "cannot read" not in r.stderr
    assert time.monotonic() - start < 20  # refused at once, not after the analysis


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["selfplay", "--games", "-2"], "--games: must be from 1"),
        (["rollout", "4HPwATDgc/ABMA", "--dice", "31", "--top", "0"], "--top: must be from 1"),
        (["rollout", "4HPwATDgc/ABMA", "--trials", "1000000000000"], "--trials: must be from 1"),
        (["external", "--port", "99999"], "--port: a port is 0-65535"),
    ],
)
def test_counts_and_ports_are_bounded(args: list[str], message: str) -> None:
    r = run_cli(*args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_selfplay_into_a_file_is_refused_clearly(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("mine")
    r = run_cli("selfplay", "--games", "1", "--out", str(target))
    assert r.returncode == 2 and "is a file" in r.stderr and "Errno" not in r.stderr
    assert target.read_text() == "mine"


def test_ctrl_c_stops_the_analysis_in_one_line(tmp_path: Path) -> None:
    args = ["analyse", str(SAMPLE), "--ply", "2", "--quiet", "--verify", "doubtful"]
    # A 0-ply analysis first: in a fresh checkout the run below would spend its first
    # seconds compiling (numba's cache), where LLVM's callbacks can swallow a Ctrl-C; this
    # one compiles the same kernels in a tenth of the time of the whole run.
    assert run_cli("analyse", str(SAMPLE), "--ply", "0", "--quiet", timeout=300).returncode == 0
    proc = subprocess.Popen(
        # some 17 s of CPU with the rollouts of every doubtful mark
        [sys.executable, "-m", "backgammon", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=_interruptible,
    )
    # Well into the analysis (starting takes about 2 s of CPU, the analysis with its rollouts
    # some 15 s more), however busy the machine is.
    try:
        deadline = time.monotonic() + 300
        while _cpu_seconds(proc.pid) < 6.0:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        start = time.monotonic()
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert time.monotonic() - start < 5
    assert proc.returncode == 130 and err.strip() == "backgammon analyse: interrupted", err[-1500:]


def _interruptible() -> None:
    """In the child before it runs: Ctrl-C does what it does in a terminal, even when these
    tests run in a shell's background job (which starts its commands with SIGINT ignored,
    and a Python started so never raises KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (Linux: /proc/PID/stat, user and system ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("interrupt", [True, False])
def test_an_error_after_a_swallowed_ctrl_c_reports_the_interrupt(
    interrupt: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """numba's compiler (llvmlite's ctypes callbacks) can swallow Ctrl-C's KeyboardInterrupt
    and fail later with another error: the command still ends in one line and 130, and an
    error with no Ctrl-C before it is not taken for one."""

    def compiling(args: object) -> int:
        if interrupt:
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)  # the handler raises here, at once
            except KeyboardInterrupt:
                pass  # as the callback does
        raise RuntimeError("no compiled object yet")

    monkeypatch.setattr(evaluate, "eval_command", compiling)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        if interrupt:
            assert main(["eval", "4HPwATDgc/ABMA"]) == 130
            assert capsys.readouterr().err.strip() == "backgammon eval: interrupted"
        else:
            with pytest.raises(RuntimeError, match="no compiled object"):
                main(["eval", "4HPwATDgc/ABMA"])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


def _tree_cpu_seconds(pid: int) -> float:
    """The CPU time a process and its live descendants have used (its workers included)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    tree, total = {pid}, 0.0
    grew = True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in tree and child not in tree:
                tree.add(child)
                grew = True
    for member in tree:
        try:
            total += _cpu_seconds(member)
        except OSError:
            continue
    return total


def test_ctrl_c_stops_a_rollout_on_worker_processes_at_once() -> None:
    """Ctrl-C stops the workers at once and prints the rollout of the trials played."""
    args = ["rollout", "4HPwATDgc/ABMA", "--dice", "31", "--workers", "2", "--truncate", "5"]
    # A short rollout first, so that the workers below roll out at once: in a fresh checkout
    # each worker would otherwise spend its first seconds compiling (numba's cache).
    assert run_cli(*args, "--trials", "36", timeout=300).returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "backgammon", *args, "--trials", "1000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_interruptible,
    )
    try:
        deadline = time.monotonic() + 300
        # Measured in CPU time, not wall time, so that a busy machine waits as long: about
        # eight seconds of both workers rolling out, enough for their first trials to end.
        while _tree_cpu_seconds(proc.pid) < 22.0:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        start = time.monotonic()
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert time.monotonic() - start < 10
    assert proc.returncode == 130 and "Traceback" not in err
    # What was rolled out so far: the table of the trials played, and how many they were.
    done = re.search(r"backgammon rollout: interrupted after (\d+) trials$", err.strip())
    assert done and 0 < int(done.group(1)) < 1_000_000, err
    assert f"Rollout: {done.group(1)} trials" in _out and "3/" in _out


def test_a_windows_1252_match_file_is_read_with_a_note(tmp_path: Path) -> None:
    """A .mat saved by an old Windows program (a player named Müller in cp1252) is read as
    gnubg imports it, with a note naming the encoding; converting it keeps the name."""
    text = SAMPLE.read_text("utf-8").replace("root", "Müller")
    src, dst = tmp_path / "win.mat", tmp_path / "win.sgf"
    src.write_bytes(text.encode("cp1252"))
    r = run_cli("convert", str(src), str(dst))
    assert r.returncode == 0, r.stderr
    assert "not UTF-8" in r.stderr and "Windows-1252" in r.stderr and str(src) in r.stderr
    assert "Müller" in dst.read_text("utf-8")


def test_a_file_that_never_ends_is_refused_unread(tmp_path: Path) -> None:
    """``analyse /dev/zero`` stops after the size limit instead of reading forever."""
    r = run_cli("analyse", "/dev/zero", "--ply", "0", cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "/dev/zero: over 16 MB: too large for a match file" in r.stderr


def test_the_match_is_saved_after_every_action(tmp_path: Path) -> None:
    """``play --out``, one play, then the terminal is killed (tmux kill-server): the file holds
    the opening roll and the play, written whole (no temporary file left beside it)."""
    term = Terminal("play --length 3 --seed 8 --bot random --out live.mat", tmp_path)
    try:
        seen = 0
        while (found := term.next_prompt(seen)) is not None:
            text, seen = found
            prompt = last_line(text)
            if "your play" in prompt:
                term.keys("1", "Enter")
            elif "Enter to confirm" in prompt:
                term.keys("Enter")
                break
            else:
                term.keys("Enter")
        term.wait(lambda screen: last_line(screen).endswith(">") and "confirm" not in screen[-80:])
    finally:
        term.close()  # the terminal goes away: no quit, no Ctrl-C
    # The hang-up finds the program saving once more (a closed terminal reads as the end of
    # input), and kill-server does not wait for it: give it the seconds a save takes, many
    # on a loaded machine (15 s was once too few).
    deadline = time.monotonic() + 60
    while len(list(tmp_path.iterdir())) > 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    saved = (tmp_path / "live.mat").read_text("utf-8")
    assert " 3 point match" in saved and re.search(r"\s1\) \d\d: \S+", saved), saved
    assert [p.name for p in tmp_path.iterdir()] == ["live.mat"]


NARROW = {"COLUMNS": "80"}
"""An 80-column terminal."""


def _wider_than_80(text: str) -> list[str]:
    """The lines of ``text`` wider than 80 terminal cells (box drawing counts one each)."""
    return [line for line in text.splitlines() if len(line) > 80]


def test_everything_printed_fits_80_columns(analysed: Analysed) -> None:
    """The README promises 80x24: help (every command's), hints (plays and cube) and the
    analysis with its errors list fit 80 columns, cutting no header or play."""
    listing = run_cli("--help", env=NARROW).stdout.split("COMMAND\n")[-1]
    commands = [
        line.split()[0]
        for line in listing.splitlines()
        if line.startswith("    ") and line[4] != " "
    ]
    assert {"play", "hint", "analyse", "rollout", "eval"} <= set(commands)
    for c in ["", *commands]:
        r = run_cli(*([c] if c else []), "--help", env=NARROW)
        assert r.returncode == 0 and _wider_than_80(r.stdout) == [], c
    plays = run_cli("hint", "w741BADvCQAAAA:EQGnAAAAAAAE", "--dice", "61", env=NARROW)
    assert "4/off 1/off" in plays.stdout and _wider_than_80(plays.stdout) == []
    cube = run_cli("hint", "4HPwATDgc/ABMA:MAHgAwAAAAAE", env=NARROW)
    assert "Proper: no double" in cube.stdout and _wider_than_80(cube.stdout) == []
    tables = analysed[0].stderr  # the analysis's tables, on stderr beside its JSON
    assert tables and _wider_than_80(tables) == []
    # Each error with its dice, the whole plays and the ID (no "Pla…" nor "21/…").
    lines = tables.splitlines()
    errors = [
        i for i, line in enumerate(lines) if re.search(r"rolled \d\d, (bad|very bad) \(", line)
    ]
    assert errors and "…" not in tables
    for i in errors:
        assert re.fullmatch(r" +played \S.*, better \S.*", lines[i + 1]), lines[i + 1]
        assert re.fullmatch(r" +gnubg ID [A-Za-z0-9+/]{14}:[A-Za-z0-9+/]{12}", lines[i + 2])


def test_no_table_prints_minus_zero() -> None:
    """A value that rounds to zero is +0.000, never -0.000."""
    from backgammon.cli.render import signed

    assert [signed(v) for v in (-0.0004, 0.0, -0.0, 0.0004)] == ["+0.000"] * 4
    assert signed(-0.0006) == "-0.001" and signed(-0.04, 1) == "+0.0"


def test_the_html_report_graph_has_axes_and_fits_a_phone(
    analysed: Analysed,
) -> None:
    """The report's graph says whose chance it shows, has its axes, the 50% line and the
    games' boundaries, and scales to the page (no fixed 720 px); each error shows its dice."""
    r, folder = analysed
    page = (folder / "r.html").read_text("utf-8")
    graph = page[page.index("<svg") : page.index("</svg>")]
    assert 'viewBox="0 0 720 240"' in graph and "width:100%" in graph
    assert " width=" not in graph.split(">", 1)[0]  # the <svg> tag: no fixed width
    assert all(f">{t}%</text>" in graph for t in (0, 50, 100))
    assert "game 2</text>" in graph and "game 3</text>" in graph
    assert "gnubg's match winning chance after each decision</text>" in graph
    analysis = json.loads(r.stdout)
    marked = [
        d
        for d in analysis["decisions"]
        if d["kind"] == "checker" and d["mark"] in ("bad", "very bad")
    ]
    assert marked
    for d in marked:
        who = analysis["players"][d["player"]]["name"]
        dice = "".join(str(x) for x in d["dice"])
        assert f"{who} rolled {dice} ({d['mark']}, {1000 * d['error_emg']:.0f} mEMG)" in page
    assert "name='viewport'" in page and "svg{max-width:100%" in page


def test_analysis_json_has_the_issue_shape(
    analysed: Analysed,
) -> None:
    r, folder = analysed
    assert "Overall error rate" in r.stderr
    data = json.loads(r.stdout)
    record = mat.read_record(SAMPLE.read_text())
    assert [p["name"] for p in data["players"]] == list(record.players)  # left column first
    for p in data["players"]:
        assert set(p) >= {"name", "checker", "cube", "overall", "luck"}
        assert set(p["checker"]) >= {"unforced", "error_emg", "rate_memg"}
        assert set(p["cube"]) >= {"decisions", "error_emg", "rate_memg"}
        assert set(p["overall"]) >= {"rate_memg", "pr"}
        assert "total_emg" in p["luck"]
        assert p["checker"]["error_emg"] >= 0 and p["cube"]["error_emg"] >= 0
        assert p["overall"]["pr"] == pytest.approx(p["overall"]["rate_memg"] / 2)
    rows = {g[0].game: {r for _, r in mat.rows(g)} for g in record.games if mat.rows(g)}
    checker = [0, 0]
    for d in data["decisions"]:
        assert set(d) >= {"game", "move", "player", "kind", "played", "best", "error_emg", "mark"}
        assert d["kind"] in ("checker", "double", "take") and d["player"] in (0, 1)
        assert d["move"] in rows[d["game"]]  # the .mat's row numbers
        assert d["mark"] == mark(d["error_emg"]) and d["error_emg"] >= 0
        assert d["played"] != d["best"] or d["error_emg"] == 0
        checker[d["player"]] += d["kind"] == "checker"
    assert checker == [p["checker"]["unforced"] for p in data["players"]]
    html = (folder / "r.html").read_text()
    assert html.startswith("<!doctype html>") and "<svg" in html and "polyline" in html


def test_analyse_text_is_a_move_by_move_review(
    analysed: Analysed,
) -> None:
    text = (analysed[1] / "review.txt").read_text()
    lines = text.splitlines()
    assert lines[0].startswith("Review at 0-ply: gnubg against root")
    assert all(len(line) <= 80 for line in lines)
    assert re.search(r"^ +1\. gnubg 31: 8/5 6/5 +\[best, luck [+-]\d\.\d{3}\]$", text, re.M)
    assert re.search(r"^ +\*1\. 8/5 6/5 +[+-]\d\.\d{3}", text, re.M)  # the played one, marked
    assert "proper: double, take" in text and "(bad)" in text
    # Plays 0-ply marks very bad are rolled out (PLAY_ROLLOUT) and show where figures come from.
    assert f"  rollout {PLAY_ROLLOUT.trials}" in text
    assert text.count("\nGame ") == 3


def test_a_path_in_an_error_is_never_shortened(tmp_path: Path) -> None:
    """Issue 68, item 13: ``convert`` to a folder that does not exist cut the path with "…"."""
    target = tmp_path / ("a-long-folder-name-" * 5) / ("and-another-one-" * 5) / "x.sgf"
    r = run_cli("convert", str(SAMPLE), str(target))
    assert r.returncode == 2 and "…" not in r.stderr
    assert f"cannot write {target}: no folder {target.parent}" in r.stderr


def test_a_saved_match_file_follows_the_umask(tmp_path: Path) -> None:
    """Issue 68, item 19: saved .mat files were made 0600 whatever the umask."""
    from backgammon.cli.records import write_mat
    from backgammon.play.match import Match

    old = os.umask(0o022)
    try:
        path = tmp_path / "m.mat"
        write_mat(Match(length=3), path, ("A", "B"))
        assert path.stat().st_mode & 0o777 == 0o644
        path.chmod(0o640)  # a file written again keeps its mode
        write_mat(Match(length=3), path, ("A", "B"))
        assert path.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4HPwATDgc/ABMA:zzzz", "a Match ID has 12 characters, got 4"),
        ("4HPwATDgc/ABMA:", "a Match ID has 12 characters, got 0"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAA", "a Match ID has 12 characters, got 11"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:0:0:10", "dice '77'"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10:1", "got 11"),
    ],
)
def test_a_malformed_match_part_is_an_error_not_a_money_game(text: str, message: str) -> None:
    """Issue 68, item 14: a malformed Match ID or XGID field was read silently as a money
    game (or as no dice)."""
    from backgammon.cli.errors import UsageError
    from backgammon.cli.positions import position_from_text

    with pytest.raises(UsageError, match=re.escape(message)):
        position_from_text(text)
    r = run_cli("show", text)
    assert r.returncode == 2 and message in r.stderr and "Money game" not in r.stdout


def test_a_well_formed_id_still_reads() -> None:
    from backgammon.cli.positions import position_from_text

    pos, match = position_from_text("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert match is not None and pos.position_id() == "4HPwATDgc/ABMA"
    pos, match = position_from_text("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10")
    assert match is not None and match.dice == (5, 2)


def test_a_bare_position_names_its_sides_alike_with_or_without_dice() -> None:
    """Issue 68, item 18: ``hint ID --dice 31`` said "on roll"/"opponent", without dice
    "Player 0"/"Player 1"."""
    for extra in ([], ["--dice", "31"]):
        r = run_cli("hint", "4HPwATDgc/ABMA", *extra)
        assert r.returncode == 0, r.stderr
        assert "on roll" in r.stdout and "opponent" in r.stdout and "Player 0" not in r.stdout


def test_one_match_is_one_match(tmp_path: Path) -> None:
    """Issue 68, item 18: ``selfplay --games 1`` said "1 matches"."""
    r = run_cli(
        "selfplay", "--games", "1", "--length", "1", "--bot", "random", "--out", "g", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    assert "1 match to 1:" in r.stdout and "matches" not in r.stdout
