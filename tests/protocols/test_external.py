"""gnubg's external player: our bot answers gnubg's board lines, and Debian's gnubg plays a
whole 3-point match against it through ``backgammon external``."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fibs_lines import GNUBG_DOUBLED, GNUBG_MOVE, GNUBG_ROLL
from fuzzhelp import texts
from matchhelp import board, match_at
from records_helpers import GNUBG

from backgammon.play.ids import board_line
from backgammon.play.match import Match
from backgammon.play.rules import Rules
from backgammon.players import get
from backgammon.protocols.external import ExternalPlayer, play_gnubg
from backgammon.records import mat


@pytest.fixture(scope="module")
def external() -> ExternalPlayer:
    return ExternalPlayer(get("neural", plies=0))


def test_answers(external: ExternalPlayer) -> None:
    """To roll: roll or double (R21); with dice: one of the legal plays in gnubg notation;
    doubled: take or drop (R22); a line that is not one: gnubg's ``Error:`` answer."""
    assert external.answer(GNUBG_ROLL) in ("roll", "double")
    m = Match.from_board_line(GNUBG_MOVE, gnubg=True)
    assert external.answer(GNUBG_MOVE) in {str(x) for x in m.legal_moves()}
    assert external.answer("\x00" + GNUBG_DOUBLED + "\n") in ("take", "drop")
    assert external.answer("board:nonsense").startswith("Error: ")


def test_dead_cube_is_not_doubled(external: ExternalPlayer) -> None:
    """R28: in the Crawford game the cube is dead, so the bot rolls."""
    base = GNUBG_ROLL.replace("board:gnubg:root:5:1:3:", "board:gnubg:root:3:2:0:")
    crawford = base[: base.rindex(":0:1")] + ":0:0"
    assert external.answer(crawford) == "roll"


def test_gnubg_plays_a_match_against_us(tmp_path: Path) -> None:
    """gnubg 0-ply (player 0) plays a whole 3-point match against ``backgammon external``
    with our 0-ply bot (player 1); the .mat file gnubg exports replays through our Match
    to the score gnubg announced, with a winner."""
    server = subprocess.Popen(
        [sys.executable, "-m", "backgammon", "external", "--port", "0", "--ply", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        found = re.search(r"listening on [\d.]+:(\d+)", first)
        assert found, first
        port = found.group(1)
        out = tmp_path / "match.mat"
        blocks = ["new match 3", f"export match mat {out}"]
        output = play_gnubg(int(port), blocks, plies=0, seed=7, timeout=300, gnubg=GNUBG)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "has won the match" in output, output[-3000:]
    assert "Warning" not in output and "Error" not in output, output[-3000:]
    scores = re.findall(r"The score \(after (\d+) games?\) is: \S+ (\d+), \S+ (\d+)", output)
    games, s0, s1 = (int(x) for x in scores[-1])
    match = mat.read(out.read_text())
    assert match.is_over and match.score == (s0, s1) and max(s0, s1) >= 3
    assert match.game_number == games


def test_fuzz_answers(external: ExternalPlayer) -> None:
    """Random, cut and mutated lines always get an answer (a word, a legal play or an
    ``Error:`` line gnubg shows), in time; nothing raises."""
    rng = random.Random(14)
    for text in texts(rng, [GNUBG_ROLL, GNUBG_MOVE, GNUBG_DOUBLED], 400):
        start = time.process_time()
        reply = external.answer(text)
        assert isinstance(reply, str) and "\n" not in reply
        assert time.process_time() - start < 2.0


@pytest.mark.parametrize("length", [None, 7])
def test_answers_are_from_our_side(external: ExternalPlayer, length: int | None) -> None:
    """R21-R22 from the right seat: doubled by a side about to bear off its last two
    checkers we drop; doubled by a side far behind in the race we take; to roll far behind
    we do not double."""
    rules = Rules.match(length) if length else Rules.money()
    winning = board({1: 2}, {13: 8, 12: 7})  # from the doubler's side: two checkers left
    losing = board({13: 8, 12: 7}, {1: 2})
    for pos, answer in ((winning, "drop"), (losing, "take")):
        m = match_at(pos, on_roll=0, rules=rules)
        m.double()
        line = board_line(m.state, gnubg=True)
        assert external.answer(line) == answer
    m = match_at(losing, on_roll=1, rules=rules)
    assert external.answer(board_line(m.state, gnubg=True)) == "roll"
