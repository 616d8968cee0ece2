"""Another engine named on the command line: gnubg's verdicts through ``hint``, ``eval``
and ``play --bot gnubg``, a UBGI engine where it can answer, one clear line where not."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from clihelp import run_cli

from backgammon import Match, Position
from backgammon.engine import SimpleEngine
from backgammon.evaluation.cube import CubeState
from backgammon.play.record import Action, Play
from backgammon.records import mat
from backgammon.records.walk import Visitor, walk

OPENING = "4HPwATDgc/ABMA:cAkAAAAAAAAA"  # money, player 0 on roll, no dice
UBGI = f"ubgi:{sys.executable} -m backgammon ubgi"


def test_hint_with_gnubg_lists_gnubgs_plays() -> None:
    r = run_cli("hint", "4HPwATDgc/ABMA", "--dice", "64", "--engine", "gnubg:0", "--count", "3")
    assert r.returncode == 0, r.stderr
    with SimpleEngine.popen_gnubg(plies=0) as g:
        best = g.candidates(Position.initial(), (6, 4), CubeState())[:3]
    listed = re.findall(r"^\s+(\d)\. (\S+(?: \S+)*?)\s+0-ply EMG ([+-]\d\.\d+)", r.stdout, re.M)
    assert [m[1] for m in listed] == [str(b.move) for b in best]
    assert [float(m[2]) for m in listed] == [round(b.equity, 3) for b in best]


def test_cube_hint_with_gnubg() -> None:
    r = run_cli("hint", OPENING, "--engine", "gnubg:0")
    assert r.returncode == 0, r.stderr
    assert "proper cube action: no double" in r.stdout


def test_eval_with_gnubg_as_json(tmp_path: Path) -> None:
    out = tmp_path / "e.json"
    r = run_cli("eval", OPENING, "--engine", "gnubg", "--ply", "1", "--json", str(out))
    assert r.returncode == 0, r.stderr
    e = json.loads(out.read_text())
    with SimpleEngine.popen_gnubg(plies=1) as g:
        theirs = g.evaluate(Position.initial(), CubeState.from_match(Match.from_gnubg_id(OPENING)))
    assert e["ply"] == 1 and e["probabilities"] == list(theirs.probabilities)
    assert e["cube"]["no_double"] == theirs.no_double
    assert e["cube"]["proper"] == theirs.proper


def test_engines_that_cannot_say_so_in_a_line() -> None:
    r = run_cli("eval", OPENING, "--engine", UBGI)
    assert r.returncode == 2 and "gives no evaluations" in r.stderr
    r = run_cli("rollout", OPENING, "--engine", "gnubg", "--trials", "36")
    assert r.returncode == 2 and "rollout --engine gnubg:" in r.stderr
    r = run_cli("analyse", "x.mat", "--engine", UBGI)
    assert r.returncode == 2 and "UBGI engine gives decisions" in r.stderr
    r = run_cli("eval", OPENING, "--engine", "stockfish")
    assert r.returncode == 2 and "unknown engine 'stockfish'" in r.stderr
    r = run_cli("hint", "4HPwATDgc/ABMA", "--dice", "31", "--engine", "ubgi:/no/such/program")
    assert r.returncode == 2 and "cannot start" in r.stderr


def test_hint_with_our_own_bot_named_as_engine() -> None:
    ours = run_cli("hint", "4HPwATDgc/ABMA", "--dice", "31", "--engine", "neural:0")
    plain = run_cli("hint", "4HPwATDgc/ABMA", "--dice", "31", "--ply", "0")
    assert ours.returncode == 0 and plain.returncode == 0, ours.stderr + plain.stderr
    assert ours.stdout.split("Best plays")[1] == plain.stdout.split("Best plays")[1]


def test_play_against_gnubg_in_the_terminal(tmp_path: Path) -> None:
    """A 1-point match against gnubg from a script that picks play number 1: it ends, and
    gnubg's plays in the file are the ones gnubg chooses."""
    r = run_cli(
        "play",
        *("--length", "1", "--seed", "7", "--bot", "gnubg:0", "--out", "g.mat"),
        stdin="1\n" * 400,
        cwd=tmp_path,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "The match is over" in r.stdout
    record = mat.read_record((tmp_path / "g.mat").read_text())
    assert record.players[1] == "gnubg:0"
    with SimpleEngine.popen_gnubg(plies=0) as g:

        class Check(Visitor):
            checked = 0

            def visit_step(self, match: Match, step: Action) -> None:
                if isinstance(step, Play) and step.player == 1 and match.dice is not None:
                    pos, dice = match.position, match.dice
                    if len(pos.legal_moves(dice)) > 1:
                        chosen = g.choose(pos, dice, CubeState.from_match(match))
                        assert chosen is not None
                        assert pos.play(chosen) == pos.play(step.move)
                        self.checked += 1

        check = Check()
        walk(record, check)
    assert check.checked >= 3
