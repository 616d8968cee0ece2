"""``backgammon ubgi`` driven as a UBGI front end drives an engine: one process, commands on
its standard input, answers read line by line."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from fibs_lines import FIBS_EXAMPLE
from fuzzhelp import texts
from matchhelp import board

from backgammon.play.match import Match
from backgammon.players import get
from backgammon.protocols.answer import plain_move
from backgammon.protocols.ubgi import UbgiEngine

OPENING_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"
TO_ROLL = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10"
# A race at 0-0 in a 5-point match, the side on roll has doubled (the XGID's D).
DOUBLED = "XGID=-a----------------------C-:0:0:1:D:0:0:0:5:10"
# On the bar against a closed board.
CLOSED = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
DANCE = f"XGID={CLOSED.xgid_position()}:0:0:1:66:0:0:0:5:10"


class Engine:
    """The engine process and a line reader with a time limit."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "backgammon", "ubgi"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().rstrip("\n")

    def ask(self, line: str) -> str:
        self.send(line)
        return self.read()


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    e = Engine()
    yield e
    if e.proc.poll() is None:
        e.proc.kill()
    e.proc.wait(timeout=10)


def test_session(engine: Engine) -> None:
    """Identification and readiness, best plays by XGID and by FIBS board line (the
    engine's play as UBGI's from/to steps, equal to the 0-ply bot's choice), the cube
    before the roll, an answer to a double, a blank line for a roll that cannot be
    played (R10), ``sorry`` for what it does not know, the ply option, then quit."""
    e = engine
    e.send("ubgi")
    hello = [e.read() for _ in range(5)]
    assert hello[0].startswith("id name ") and hello[1].startswith("id author ")
    assert hello[2].startswith("id version ") and hello[3].startswith("option name plies")
    assert hello[4] == "readyok"
    assert e.ask("isready") == "readyok"

    bot = get("neural", plies=0)
    for text, make in ((OPENING_52, Match.from_xgid), (FIBS_EXAMPLE, Match.from_board_line)):
        m = make(text)
        assert m.dice is not None
        best = bot.choose_move(m.position, m.dice)
        assert best is not None
        assert e.ask(text) == plain_move(best)
    assert e.ask(TO_ROLL) == "roll"  # no reason to double at the start
    assert e.ask(DOUBLED) in ("take", "drop")
    assert e.ask(DANCE) == ""
    assert e.ask("what now") == "sorry"
    assert e.ask("board:broken") == "sorry"
    assert e.ask("setoption name plies value 7") == "sorry"
    e.send("setoption name plies value 1")
    assert e.ask("isready") == "readyok"
    assert e.ask(OPENING_52) in {plain_move(x) for x in Match.from_xgid(OPENING_52).legal_moves()}
    e.send("quit")
    assert e.proc.wait(timeout=30) == 0


def test_fuzz_commands() -> None:
    """Random, cut and mutated commands and positions get answer lines (or none), never an
    exception, in time; the engine keeps running."""
    engine = UbgiEngine(lambda plies: get("neural", plies=plies))
    rng = random.Random(15)
    for text in texts(rng, ["ubgi", "isready", OPENING_52, FIBS_EXAMPLE, DOUBLED], 400):
        if text.strip().strip("\x00").strip().partition(" ")[0] == "quit":
            continue
        start = time.process_time()
        out = engine.handle(text)
        assert all(isinstance(x, str) and "\n" not in x for x in out)
        assert time.process_time() - start < 2.0
    assert not engine.done
