"""The FIBS board line (formats.md §6): fields both ways, match states both ways, the lines
gnubg really sends to its external players, and fuzzing of the readers."""

from __future__ import annotations

import random
import socketserver
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fibs_lines import FIBS_EXAMPLE, GNUBG_DOUBLED, GNUBG_MOVE, GNUBG_ROLL
from fuzzhelp import check, texts
from matchhelp import act
from records_helpers import GNUBG

from backgammon import Position
from backgammon.ids.fibs import InvalidBoardLineError, format_board_line, parse_board_line
from backgammon.ids.gnubg import encode_match_id
from backgammon.play.dice import SeededDice
from backgammon.play.ids import board_line, gnubg_id, match_id_fields, state_from_board_line
from backgammon.play.match import Match, Phase
from backgammon.play.rules import Rules
from backgammon.play.state import MatchState


def test_fibs_example_fields() -> None:
    """The protocol's own example: names, length, the 26 numbers as the starting position
    from your side (R1), your dice, a centred cube both may turn."""
    line = parse_board_line(FIBS_EXAMPLE)
    assert (line.player, line.opponent, line.match_length) == ("You", "someplayer", 3)
    assert line.position_of_player() == Position.initial()
    assert line.dice == (6, 2) and line.opponent_dice == (0, 0)
    assert line.may_double and line.opponent_may_double and line.cube == 1
    assert format_board_line(line) == FIBS_EXAMPLE
    s = state_from_board_line(FIBS_EXAMPLE)
    assert (s.phase, s.on_roll, s.dice, s.cube_owner) == (Phase.MOVE, 1, (6, 2), None)


def test_gnubg_lines_as_gnubg_ids() -> None:
    """gnubg's order of names and scores (player 0 first unless doubled); the Match IDs are
    the ones gnubg printed for the same states (cube R21-R24, score)."""
    roll = state_from_board_line(GNUBG_ROLL, gnubg=True)
    assert (roll.score, roll.phase, roll.on_roll) == ((1, 3), Phase.ROLL, 1)
    move = state_from_board_line(GNUBG_MOVE, gnubg=True)
    assert gnubg_id(move) == "4HPwATDgc/ABMA:UYmlABAAGAAE"
    doubled = state_from_board_line(GNUBG_DOUBLED, gnubg=True)
    assert gnubg_id(doubled) == "4HPwATDgc/ABMA:ARmgABAAGAAE"
    assert doubled.turn == 1 and doubled.phase is Phase.DOUBLED
    for text, s in ((GNUBG_ROLL, roll), (GNUBG_MOVE, move), (GNUBG_DOUBLED, doubled)):
        assert board_line(s, names=("gnubg", "root"), gnubg=True) == text
    # Read as plain FIBS, the first score is the player's: the scores swap.
    assert state_from_board_line(GNUBG_ROLL).score == (3, 1)


def test_crawford_flags() -> None:
    """R28-R29: a player 1-away with the last two fields 0 is the Crawford game; gnubg
    writes 1 in the last field otherwise, and post-Crawford in the one before."""
    base = GNUBG_ROLL.replace("board:gnubg:root:5:1:3:", "board:gnubg:root:3:2:0:")
    crawford = base[: base.rindex(":0:1")] + ":0:0"
    post = base[: base.rindex(":0:1")] + ":1:1"
    assert state_from_board_line(crawford, gnubg=True).crawford_game
    s = state_from_board_line(post, gnubg=True)
    assert not s.crawford_game and s.post_crawford


def _states(seed: int, n: int) -> Iterator[MatchState]:
    """States of random matches (3, 5, 7 points, money) where a board line can be sent:
    rolling, moving, or a double (not a beaver) awaiting an answer."""
    rng = random.Random(seed)
    lengths = [3, 5, 7, None]
    found = 0
    while found < n:
        length = rng.choice(lengths)
        rules = Rules(match_length=length) if length else Rules.money()
        m = Match(rules=rules, dice=SeededDice(rng.randrange(2**32)))  # the same states each run
        for _ in range(rng.randint(1, 400)):
            if m.is_over:
                break
            act(m, rng, resign_weight=0.01)
        s = m.state
        if s.phase in (Phase.ROLL, Phase.MOVE, Phase.DOUBLED) and not s.beavers:
            found += 1
            yield s


def _same(a: MatchState, b: MatchState, *, dice: bool = True, ordered: bool = True) -> None:
    assert a.position == b.position and a.on_roll == b.on_roll
    assert (a.cube_value, a.cube_owner, a.score) == (b.cube_value, b.cube_owner, b.score)
    assert (a.crawford_game, a.post_crawford) == (b.crawford_game, b.post_crawford)
    if dice:
        assert a.phase == b.phase
        assert a.dice == b.dice if ordered else sorted(a.dice or ()) == sorted(b.dice or ())


@pytest.mark.parametrize("gnubg", [False, True])
def test_round_trip(gnubg: bool) -> None:
    """A state written for either player and read back is the same state, seen from the
    line's player as player 1; the text reads back to the same text."""
    for s in _states(11, 150):
        for player in (0, 1):
            text = board_line(s, player=player, names=("a", "b"), gnubg=gnubg)
            assert format_board_line(parse_board_line(text)) == text
            back = state_from_board_line(text, gnubg=gnubg)
            if player == 1:
                _same(back, s)
            else:  # player 0 reads as player 1: the same game with the seats swapped
                assert s.on_roll is not None
                assert back.on_roll == 1 - s.on_roll and back.score == s.score[::-1]
                assert back.position == s.position and back.dice == s.dice


BAD = [
    "",
    "board:",
    FIBS_EXAMPLE.replace("board:", "bored:"),
    FIBS_EXAMPLE + ":0",
    FIBS_EXAMPLE.replace(":1:-1:0:25:", ":1:-1:25:0:"),  # direction against home and bar
    FIBS_EXAMPLE.replace(":6:2:", ":7:2:"),  # a die of 7
    FIBS_EXAMPLE.replace(":6:2:", ":6:0:"),  # one die
    FIBS_EXAMPLE.replace("3:0:0:0:-2:", "3:0:0:0:-3:"),  # 16 checkers
    FIBS_EXAMPLE.replace(":1:1:1:0:1:", ":1:3:1:0:1:"),  # cube 3
    FIBS_EXAMPLE.replace("3:0:0:0:-2:", "3:x:0:0:-2:"),
    FIBS_EXAMPLE.replace("board:You:someplayer:3:0:0", "board:You:someplayer:3:3:0"),  # won
    FIBS_EXAMPLE.replace(":0:1:6:2:", ":0:0:6:2:"),  # turn 0: the game is over
    FIBS_EXAMPLE.replace(":6:2:0:0:1:1:1:0:", ":6:2:0:0:1:1:1:1:"),  # doubled with dice
]


@pytest.mark.parametrize("text", BAD)
def test_malformed_lines_are_refused(text: str) -> None:
    """Each malformed line is refused with the board line's own error and a message."""
    with pytest.raises(InvalidBoardLineError, match=r"\w"):
        state_from_board_line(text)


@pytest.mark.parametrize("gnubg", [False, True])
def test_fuzz(gnubg: bool) -> None:
    """Random, cut and mutated lines are read or refused with a specific ValueError in
    time (linear: a line is refused past 1000 characters before it is split)."""
    seeds = [FIBS_EXAMPLE, GNUBG_ROLL, GNUBG_MOVE, GNUBG_DOUBLED] + [
        board_line(s, gnubg=gnubg) for s in _states(5, 20)
    ]
    rng = random.Random(2024 + gnubg)
    for text in texts(rng, seeds, 3000):
        check(lambda t: state_from_board_line(t, gnubg=gnubg), text)
    check(parse_board_line, FIBS_EXAMPLE * 10000)
    check(parse_board_line, b"board:")


# ----------------------------------------------------------------------------- gnubg


class _Recorder(socketserver.StreamRequestHandler):
    """Keeps each board line gnubg sends and answers with an error, so gnubg stops."""

    lines: list[str]

    def handle(self) -> None:
        while raw := self.rfile.readline():
            line = raw.decode().strip("\x00\r\n")
            if line:
                self.server.lines.append(line)  # type: ignore[attr-defined]
                self.wfile.write(b"Error: recorded\n")


def test_lines_gnubg_sends() -> None:
    """gnubg 1.07 is set to states of random matches by gnubg ID, with both seats external,
    and asked to play: the line it sends reads as the same state (gnubg rolls first for a
    player who cannot double, so the dice may be new)."""
    states = list(_states(3, 60))
    assert {Phase.ROLL, Phase.MOVE, Phase.DOUBLED} <= {s.phase for s in states}
    assert any(s.rules.is_money for s in states) and any(s.crawford_game for s in states)

    class Server(socketserver.ThreadingTCPServer):
        allow_reuse_address = True
        daemon_threads = True

    with Server(("127.0.0.1", 0), _Recorder) as server:
        server.lines = []  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_address[1]
        commands = [
            "set display off",
            f"set player 0 external localhost:{port}",
            f"set player 1 external localhost:{port}",
            "set jacoby off",
        ]
        for s in states:
            if s.phase is Phase.DOUBLED:
                # gnubg drops the double of a GNUbg ID: the doubler's seat doubles by hand.
                doubler = s.on_roll
                assert doubler is not None
                before = replace(match_id_fields(s), doubled=False, turn=doubler)
                commands += [
                    f"set player {doubler} human",
                    f"set gnubgid {s.position.position_id()}:{encode_match_id(before)}",
                    "double",
                    f"set player {doubler} external localhost:{port}",
                ]
            else:
                commands += [f"set gnubgid {gnubg_id(s)}", "play"]
        run = subprocess.run(
            [GNUBG, "-t", "-q"],
            input="\n".join([*commands, "quit", "y", ""]),
            capture_output=True,
            text=True,
            timeout=120,
        )
        server.shutdown()
        lines = server.lines  # type: ignore[attr-defined]
    assert len(lines) == len(states), run.stdout[-2000:]
    rolled = 0
    for s, line in zip(states, lines, strict=True):
        back = state_from_board_line(line, gnubg=True)
        if s.phase is Phase.ROLL and back.phase is Phase.MOVE:
            rolled += 1
            _same(back, s, dice=False)
        else:  # gnubg writes the larger die first
            _same(back, s, ordered=False)
        assert back.turn == s.turn
    assert rolled < len(states)


def test_a_centred_cube_of_2_in_a_match_is_refused() -> None:
    """Both may-double flags say the cube is centred, and a centred cube in a match is at 1:
    the line is refused where it is read, not by the bot later (a traceback in external)."""
    line = GNUBG_ROLL.replace(":0:0:0:0:1:1:1:0:", ":0:0:0:0:2:1:1:0:")
    assert line != GNUBG_ROLL
    with pytest.raises(InvalidBoardLineError, match="a centred cube is at 1 in a match, not 2"):
        Match.from_board_line(line)
