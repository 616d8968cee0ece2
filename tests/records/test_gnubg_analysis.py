"""gnubg's own analysis read from the SGF files it writes (nothing recomputed), and
``analyse --engine gnubg``: both against the statistics gnubg prints for the same matches."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clihelp import run_cli
from records_helpers import run_gnubg

from backgammon import Position
from backgammon.engine import EngineCapabilityError, Limit, SimpleEngine, open_engine
from backgammon.records.errors import MatchFileError
from backgammon.records.gnubg_analysis import read_gnubg_analysis

SAMPLES = Path(__file__).parent.parent / "data" / "samples"
_TOTAL = re.compile(r"^Error total EMG \(MWC\)\s+(-?[\d.]+)\s+\([^)]*\)\s+(-?[\d.]+)")
_RATE = re.compile(r"^Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\([^)]*\)\s+(-?[\d.]+)")
_UNFORCED = re.compile(r"^Unforced moves\s+(\d+)\s+(\d+)")
_CLOSE = re.compile(r"^Close or actual cube decisions\s+(\d+)\s+(\d+)")


class Printed:
    """What gnubg printed with ``show statistics match``: per player (0, 1)."""

    def __init__(self, text: str) -> None:
        lines = text.splitlines()
        totals = [m for m in map(_TOTAL.match, lines) if m][-3:]  # checker, cube, overall
        rates = [m for m in map(_RATE.match, lines) if m][-3:]
        unforced = [m for m in map(_UNFORCED.match, lines) if m][-1]
        close = [m for m in map(_CLOSE.match, lines) if m][-1]
        self.checker = [-float(totals[0].group(i)) for i in (1, 2)]
        self.cube = [-float(totals[1].group(i)) for i in (1, 2)]
        self.checker_rate = [-float(rates[0].group(i)) for i in (1, 2)]
        self.rate = [-float(rates[2].group(i)) for i in (1, 2)]
        self.unforced = [int(unforced.group(i)) for i in (1, 2)]
        self.close = [int(close.group(i)) for i in (1, 2)]


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, Printed]]:
    """Three 3-point matches gnubg played with noise (so there are errors and doubles),
    analysed at 0-ply, saved as SGF and exported as .mat, with its printed statistics."""
    folder = tmp_path_factory.mktemp("gnubg-analysed")
    out = []
    for i, (seed, noise) in enumerate(((3, 0.06), (8, 0.03), (21, 0.1))):
        path = folder / f"m{i}.sgf"
        cmds = [f"set seed {seed}", "set automatic game on", "set automatic roll on"]
        for p in (0, 1):
            cmds += [f"set player {p} gnubg"]
            for kind in ("chequerplay", "cubedecision"):
                cmds += [
                    f"set player {p} {kind} evaluation plies 0",
                    f"set player {p} {kind} evaluation noise {noise / (p + 1)}",
                ]
        cmds += [
            "set output digits 5",
            "new match 3",
            "set analysis chequerplay evaluation plies 0",
            "set analysis cubedecision evaluation plies 0",
            "analyse match",
            "show statistics match",
            f"save match {path}",
            f"export match mat {path.with_suffix('.mat')}",
        ]
        text = run_gnubg(cmds, timeout=600)
        assert path.exists(), text[-2000:]
        out.append((path, Printed(text)))
    return out


def test_the_reader_gives_gnubgs_figures(matches: list[tuple[Path, Printed]]) -> None:
    """Per player: unforced plays, checker and cube errors as gnubg printed them; the plays'
    own errors add up to the game statistics; the rates agree to gnubg's printed digits."""
    for path, printed in matches:
        a = read_gnubg_analysis(path.read_text("utf-8"))
        assert (a.analysed and a.players == ("gnubg", "gnubg")) or a.analysed
        for p in (0, 1):
            assert a.unforced(p) == printed.unforced[p]
            assert a.checker_error(p) == pytest.approx(printed.checker[p], abs=6e-4)
            assert a.cube_error(p) == pytest.approx(printed.cube[p], abs=6e-4)
            plays = sum(m.error for g in a.games for m in g.moves if m.player == p)
            assert plays == pytest.approx(a.checker_error(p), abs=1e-4)
            assert a.checker_rate(p) == pytest.approx(printed.checker_rate[p], abs=6e-3)
            assert a.error_rate(p, printed.close[p]) == pytest.approx(printed.rate[p], abs=6e-3)


def test_every_play_is_a_legal_one(matches: list[tuple[Path, Printed]]) -> None:
    """gnubg's candidates are written from the mover's side: the first play of the file
    read as ours is legal from the starting position."""
    a = read_gnubg_analysis(matches[0][0].read_text("utf-8"))
    first = a.games[0].moves[0]
    start = Position.initial()
    legal = {start.play(m) for m in start.legal_moves(first.dice)}
    ranked = [start.play(start.parse_move(str(c), first.dice)) for c in first.candidates]
    assert len(set(ranked)) == len(ranked) and set(ranked) <= legal
    marks = {m.mark for g in a.games for m in g.moves}
    assert marks <= {"", "doubtful", "bad", "very bad", "interesting"}


def test_a_file_gnubg_did_not_analyse() -> None:
    a = read_gnubg_analysis((SAMPLES / "gnubg107_game2_no_analysis.sgf").read_text("utf-8"))
    assert not a.analysed and not any(g.moves for g in a.games)
    with pytest.raises(MatchFileError):
        a.checker_rate(0)


def test_the_engine_analyses_as_gnubg_does(matches: list[tuple[Path, Printed]]) -> None:
    """gnubg through the engine analyses the exported .mat files at 0-ply and finds the
    error rates gnubg printed when it analysed them itself."""
    with SimpleEngine.popen_gnubg() as g:
        for path, printed in matches:
            report = g.analyse_file(path.with_suffix(".mat"), Limit(plies=0))
            assert list(report.close_cube) == printed.close
            for p in (0, 1):
                assert report.error_rate(p) == pytest.approx(printed.rate[p], abs=6e-3)
                assert report.printed_rates[p] == pytest.approx(printed.rate[p], abs=1e-3)
    with open_engine("neural") as ours, pytest.raises(EngineCapabilityError):
        ours.analyse_file(matches[0][0])


def test_analyse_with_gnubg_on_the_command_line(
    matches: list[tuple[Path, Printed]], tmp_path: Path
) -> None:
    path, printed = matches[1]
    out = tmp_path / "a.json"
    r = run_cli("analyse", str(path), "--engine", "gnubg:0", "--json", str(out), timeout=300)
    assert r.returncode == 0, r.stderr
    assert "gnubg's analysis at 0-ply" in r.stdout
    report = json.loads(out.read_text())
    assert report["plies"] == 0 and report["close_cube"] == printed.close
    assert report["error_rate"] == pytest.approx(printed.rate, abs=6e-3)
    assert len(report["plays"]) > 20
    r = run_cli("analyse", str(path), "--engine", "gnubg", "--html", str(tmp_path / "a.html"))
    assert r.returncode == 2 and "--html" in r.stderr
