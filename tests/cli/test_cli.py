"""The terminal game: the board drawing, entering plays, and the real program driven end to end."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

from clihelp import Program, Terminal, _data_home, last_line, listed_plays, run_cli  # noqa: F401 (a fixture)
from hypothesis import given, settings
from hypothesis import strategies as st
from matchhelp import random_position
from reference import SAMPLES

from backgammon.cli import BoardView, render_board
from backgammon.core.position import Position
from backgammon.play.match import Match
from backgammon.play.record import Action, GameEnd, GameStart, Play

# --------------------------------------------------------------------------- the board


def _rows(text: str) -> list[str]:
    return text.splitlines()


def test_board_numbers_points_from_the_humans_side() -> None:
    text = render_board(BoardView(Position.initial()), unicode=False).plain
    rows = _rows(text)
    top_edge = next(r for r in rows if "13" in r and "24" in r)
    bottom_edge = next(r for r in rows if "12" in r and " 1 " in r)
    assert top_edge.split("13")[1].split()[0] == "14"
    assert bottom_edge.index("12") < bottom_edge.index("11") < bottom_edge.rindex(" 1 ")


@given(st.integers(0, 10_000), st.integers(0, 60))
@settings(max_examples=40, deadline=None)
def test_board_shows_every_checker_where_it_is(seed: int, plies: int) -> None:
    """Each point column of the ASCII board holds as many marks as checkers (R1)."""
    pos = random_position(seed, plies)
    rows = _rows(render_board(BoardView(pos), unicode=False).plain)
    top = rows.index(next(r for r in rows if r.strip().startswith("+13")))
    upper = rows[top + 1 : top + 6]
    lower = rows[top + 7 : top + 12]

    def column(point: int) -> int:
        i = point - 13 if point >= 13 else 12 - point
        offset = 2 + 3 * i + (5 if i >= 6 else 0)
        return offset + 1

    for point in range(1, 25):
        rows_here = upper if point >= 13 else lower
        cells = [r[column(point)] if len(r) > column(point) else " " for r in rows_here]
        n = pos.board[point]
        mark = "X" if n > 0 else "O"
        shown = sum(c == mark for c in cells)
        if abs(n) > 5:
            middle = upper[4] if point >= 13 else lower[0]
            assert str(abs(n)) in middle[column(point) - 1 : column(point) + 2]
            assert shown == 4
        else:
            assert shown == abs(n), (point, n, cells)


def test_board_shows_bar_off_cube_score_and_id() -> None:
    board = [-2, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -3, 0, 0, 0, 0, 0, 1]
    pos = Position(board)
    view = BoardView(
        pos,
        bottom_name="Ann",
        top_name="Bot",
        dice=(6, 4),
        cube_value=4,
        cube_owner="top",
        score=(2, 3),
        length=7,
        crawford=True,
        gnubg_id="ID-TO-COPY",
    )
    text = render_board(view, unicode=True).plain
    assert "Match to 7" in text and "Crawford game" in text
    assert "cube 4 owned by Bot" in text
    assert "ID-TO-COPY" in text
    assert "dice 64" in text
    assert "Ann   score 2" in text and "Bot   score 3" in text
    rows = _rows(text)
    upper_bar = [r for r in rows if r.count("│") >= 4 and "○" in r.split("│")[2]]
    lower_bar = [r for r in rows if r.count("│") >= 4 and "●" in r.split("│")[2]]
    assert len(upper_bar) == 2  # the top player's two checkers on the bar
    assert len(lower_bar) == 1
    off_top, off_bottom = (int(r.split("off ")[1].split()[0]) for r in rows if "│  off" in r)
    assert (off_bottom, off_top) == pos.off == (1, 2)
    # the cube sits on its owner's (the top player's) half
    cube_row = next(i for i, r in enumerate(rows) if "[cube 4]" in r)
    bar_row = next(i for i, r in enumerate(rows) if "BAR" in r)
    assert cube_row < bar_row


def test_board_says_post_crawford() -> None:
    view = BoardView(Position.initial(), length=5, score=(4, 2), post_crawford=True)
    assert "Match to 5 · post-Crawford" in render_board(view).plain


def test_ascii_board_is_plain() -> None:
    text = render_board(BoardView(Position.initial(), gnubg_id="x"), unicode=False).plain
    assert text.isascii()


# --------------------------------------------------------------------------- the real program


def test_convert_mat_to_sgf_and_back_gives_gnubgs_file(tmp_path: Path) -> None:
    original = SAMPLES / "gnubg107_5pt_match.mat"
    sgf, mat = tmp_path / "m.sgf", tmp_path / "m.mat"
    first = run_cli("convert", str(original), str(sgf))
    assert first.returncode == 0, first.stderr
    assert sgf.read_text().startswith("(;FF[4]GM[6]")
    second = run_cli("convert", str(sgf), str(mat))
    assert second.returncode == 0, second.stderr
    assert mat.read_text() == original.read_text()


def test_convert_reports_bad_input(tmp_path: Path) -> None:
    missing = run_cli("convert", str(tmp_path / "none.mat"), str(tmp_path / "x.sgf"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    wrong = run_cli("convert", str(SAMPLES / "gnubg107_5pt_match.mat"), str(tmp_path / "x.txt"))
    assert wrong.returncode == 2 and ".mat or .sgf" in wrong.stderr
    broken = tmp_path / "broken.mat"
    broken.write_text(" 3 point match\n\n Game 1\n A : 0     B : 0\n  1) 31: 24/30\n")
    bad = run_cli("convert", str(broken), str(tmp_path / "x.sgf"))
    assert bad.returncode == 2 and "line" in bad.stderr
    assert not (tmp_path / "x.sgf").exists()


def test_scripted_one_point_match_through_stdin(tmp_path: Path) -> None:
    """A whole 1-point match from a script that always picks play number 1 (R27: over at 1)."""
    result = run_cli(
        "play",
        "--length",
        "1",
        "--seed",
        "11",
        "--out",
        "one.mat",
        "--bot",
        "random",
        stdin="1\n" * 400,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "The match is over" in result.stdout
    assert "The match is saved in one.mat" in result.stdout
    from backgammon.records import mat

    record = mat.read_record((tmp_path / "one.mat").read_text())
    assert record.rules.match_length == 1 and len(record.games) == 1
    end = record.games[0][-1]
    assert isinstance(end, GameEnd) and end.points >= 1
    winner_name = record.players[end.winner]
    assert f"The match is over: {winner_name} won" in result.stdout
    # Every play of the human (player 0) that had a choice is the first legal play listed.
    from backgammon.records.walk import Visitor, walk

    class Check(Visitor):
        checked = 0

        def visit_step(self, match: Match, step: Action) -> None:
            if isinstance(step, Play) and step.player == 0:
                legal = match.legal_moves()
                if len(legal) > 1:
                    assert match.position.play(step.move) == match.position.play(legal[0])
                    self.checked += 1

    check = Check()
    walk(record, check)
    assert check.checked >= 5


def drive(program: Program, limit: int = 3000) -> dict[str, int]:
    """Answer every prompt like a careful human until the program ends; count what was done.

    Plays are typed in gnubg notation (the first listed play), in two parts when possible;
    the first play is preceded by an illegal one, the first cube chance is a double.
    """
    done = {"illegal": 0, "parts": 0, "doubles": 0, "takes": 0, "confirm": 0, "undo": 0}
    pending: list[str] = []
    for _ in range(limit):
        text = program.next_prompt()
        if text is None:
            return done
        prompt = text.rsplit("\n", 1)[-1]
        if "roll or double?" in prompt:
            if not done["doubles"]:
                done["doubles"] += 1
                program.send("double")
            else:
                program.send("")
        elif "take, pass" in prompt:
            done["takes"] += 1
            program.send("take")
        elif "accept or reject" in prompt:
            program.send("accept")
        elif "Enter to confirm" in prompt:
            if not done["undo"]:
                done["undo"] += 1
                program.send("undo")
            else:
                done["confirm"] += 1
                program.send("")
        elif "your play" in prompt:
            if "to play]" in prompt:  # the rest of a play typed in parts
                program.send(pending.pop())
                continue
            plays = listed_plays(text)
            assert plays, text[-800:]
            if not done["illegal"]:
                done["illegal"] += 1
                program.send("13/2")
                after = program.next_prompt()
                assert after is not None
                assert "not a legal play" in after or "cannot" in after, after
                assert "Legal plays of" not in after  # the list above is still right
                prompt = after.rsplit("\n", 1)[-1]
                assert "to play]" not in prompt
            first = plays[1]
            parts = first.split(" ")
            if len(parts) == 2 and parts[0] not in plays.values() and "(" not in first:
                done["parts"] += 1
                pending.append(parts[1])
                program.send(parts[0])
            else:
                program.send(first)
        else:
            raise AssertionError(f"unexpected prompt {prompt!r}")
    raise AssertionError("the match did not end")


def test_whole_match_typed_in_notation_with_cube_and_errors(tmp_path: Path) -> None:
    program = Program(
        "play",
        "--length",
        "3",
        "--seed",
        "5",
        "--bot",
        "random",
        "--confirm",
        "--out",
        "three.mat",
        cwd=tmp_path,
    )
    done = drive(program)
    assert program.finish() == 0
    out = program.output
    assert done["illegal"] == 1 and done["doubles"] == 1 and done["parts"] >= 3
    assert done["undo"] == 1 and done["confirm"] >= 5
    assert "You offer the cube at 2." in out and "random takes" in out
    assert "Taken back." in out
    final = re.search(r"The match is over: (\w+) won, (\d+)-(\d+)\.", out)
    assert final is not None
    from backgammon.records import mat

    warnings: list[str] = []
    record = mat.read_record((tmp_path / "three.mat").read_text(), warnings)
    assert warnings == []
    starts = [a for a in record.actions() if isinstance(a, GameStart)]
    last = next(a for a in reversed(list(record.actions())) if isinstance(a, GameEnd))
    total = list(starts[-1].score)  # the match over: no game begun after the last
    total[last.winner] += last.points
    assert (int(final.group(2)), int(final.group(3))) == tuple(total)
    assert max(total) >= 3 and record.players[last.winner] == final.group(1)
    # the first game holds the double and the take, in gnubg's words
    text = (tmp_path / "three.mat").read_text()
    assert " Doubles => 2" in text and " Takes" in text
    # R28: the board says which game is the Crawford game, and later ones post-Crawford
    flags = [a.crawford for a in starts]
    assert ("Crawford game" in out) == any(flags)
    assert ("post-Crawford" in out) == any(flags[: len(flags) - 1])
    # and GNU Backgammon itself reads the saved match to the same final score
    gnubg = subprocess.run(
        ["/usr/games/gnubg", "-t", "-q"],
        input=f"import mat {tmp_path / 'three.mat'}\nshow score\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    names = record.players
    assert f"is: {names[0]} {total[0]}, {names[1]} {total[1]} (match to 3 points" in gnubg.stdout, (
        gnubg.stdout[-1500:]
    )


def test_ctrl_d_saves_and_load_goes_on(tmp_path: Path) -> None:
    first = run_cli(
        "play",
        "--length",
        "3",
        "--seed",
        "21",
        "--bot",
        "random",
        "--out",
        "m.mat",
        stdin="1\n1\n",
        cwd=tmp_path,
    )
    assert first.returncode == 0, first.stderr
    assert "Stopped. The match is saved in m.mat" in first.stdout
    saved = (tmp_path / "m.mat").read_text()
    rows = [r for r in saved.splitlines() if re.match(r"\s+\d+\)", r)]
    assert rows, saved
    program = Program("play", "--load", "m.mat", "--seed", "22", "--bot", "random", cwd=tmp_path)
    drive(program)
    assert program.finish() == 0
    assert "Going on with the match in m.mat" in program.output
    assert "The match is saved in m.mat" in program.output
    final = (tmp_path / "m.mat").read_text()
    game1 = final.split(" Game 2")[0].splitlines()
    for row in rows[:-1]:  # the saved rows come back unchanged (the last may be completed)
        assert row in game1
    assert rows[-1].strip().split(": ")[0] in final


def test_bad_options_and_files_are_reported(tmp_path: Path) -> None:
    r = run_cli("play", "--length", "0", stdin="", cwd=tmp_path)
    assert r.returncode == 2 and "length" in r.stderr.lower()
    r = run_cli("play", "--jacoby", stdin="", cwd=tmp_path)
    assert r.returncode == 2 and "--money" in r.stderr
    r = run_cli("play", "--load", "missing.mat", stdin="", cwd=tmp_path)
    assert r.returncode == 2 and "cannot read missing.mat" in r.stderr
    sample = str(SAMPLES / "gnubg107_5pt_match.mat")  # gnubg's own file, a finished match
    r = run_cli("play", "--load", sample, stdin="", cwd=tmp_path)
    assert r.returncode == 2 and "already over" in r.stderr
    r = run_cli("play", "--bot", "nosuchbot", stdin="", cwd=tmp_path)
    assert r.returncode == 2 and "nosuchbot" in r.stderr


def test_play_with_no_options_starts_a_five_point_match_at_once(tmp_path: Path) -> None:
    r = run_cli("play", stdin="quit\n", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Playing a 5-point match against the bot" in r.stdout
    assert "Match to 5" in r.stdout
    saved = list(Path(os.environ["XDG_DATA_HOME"], "backgammon").glob("backgammon-*.mat"))
    assert len(saved) == 1 and f"saved in {saved[0]}" in r.stdout
    assert " 5 point match" in saved[0].read_text()
    assert not list(tmp_path.glob("*.mat"))  # nothing dropped in the current folder


def test_commands_at_the_prompt_change_nothing(tmp_path: Path) -> None:
    script = "help\npips\nboard\nhint\nundo\nfoo\nsave snap.mat\nquit\n"
    r = run_cli(
        "play", "--seed", "3", "--bot", "random", "--out", "q.mat", stdin=script, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    ids = re.findall(r"gnubg ID (\S+)", r.stdout)
    assert len(set(ids[-3:])) == 1  # the board drawn again is the same position
    assert "Commands" in r.stdout and "Pips: You" in r.stdout
    assert "Saved in snap.mat" in r.stdout and (tmp_path / "snap.mat").exists()
    assert "Stopped. The match is saved in q.mat" in r.stdout
    assert (tmp_path / "snap.mat").read_text() == (tmp_path / "q.mat").read_text()


def test_auditable_dice_are_committed_then_revealed_and_checked(tmp_path: Path) -> None:
    import hashlib

    r = run_cli(
        "play", "--length", "1", "--auditable", "--bot", "random", stdin="1\n" * 400, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    commitment = re.search(
        r"Dice commitment \(SHA-256 of the secret seed\): ([0-9a-f]{64})", r.stdout
    )
    seed = re.search(r"Dice seed: ([0-9a-f]+)", r.stdout)
    assert commitment and seed
    assert (
        r.stdout.index(commitment.group(0)) < r.stdout.index("Opening roll")
        if ("Opening roll" in r.stdout)
        else True
    )
    assert hashlib.sha256(bytes.fromhex(seed.group(1))).hexdigest() == commitment.group(1)
    assert "comes from that seed" in r.stdout


def test_whole_one_point_match_in_a_real_terminal(tmp_path: Path) -> None:
    """tmux gives the program a real terminal: prompts, line editing, colour, confirmation."""
    term = Terminal("play --length 1 --seed 8 --out term.mat", tmp_path, width=100, height=40)
    try:
        answered = {"play": 0, "confirm": 0}
        unicode_board = False
        seen = 0
        while (found := term.next_prompt(seen)) is not None:
            text, seen = found
            unicode_board = unicode_board or ("┌13" in text and "●" in text)
            prompt = last_line(text)
            if "your play" in prompt:
                answered["play"] += 1
                term.keys("1", "Enter")
            elif "Enter to confirm" in prompt:
                answered["confirm"] += 1
                term.keys("Enter")
            elif "roll or double" in prompt:
                term.keys("Enter")
            else:
                raise AssertionError(f"unexpected prompt {prompt!r}\n{text}")
        text = term.screen()
        assert "EXITED 0" in text, text
        assert "The match is over" in text and "saved in term.mat" in text
        assert answered["play"] >= 3 and answered["confirm"] == answered["play"]
        assert unicode_board  # a UTF-8 terminal gets the Unicode board
        assert " 1 point match" in (tmp_path / "term.mat").read_text()
    finally:
        term.close()


def test_show_draws_a_gnubg_id_and_an_xgid() -> None:
    # formats.md §3.4: this XGID is gnubg's 3PaAAQZi25gBMA:8InlAEAAMAAE (7 points, 6-4, Crawford)
    r = run_cli("show", "XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10")
    assert r.returncode == 0, r.stderr
    assert "Match to 7" in r.stdout and "Crawford game" in r.stdout
    assert "gnubg ID 3PaAAQZi25gBMA:8InlAEAAMAAE" in r.stdout
    assert "dice 31" in r.stdout
    r = run_cli("show", "4HPwATDgc/ABMA:cInpAAAAAAAE", "--ascii")  # gnubg: 7 points, 32 rolled
    assert r.returncode == 0, r.stderr
    assert "Match to 7" in r.stdout and "dice 32" in r.stdout and r.stdout.isascii()
    r = run_cli("show", "nonsense!")
    assert r.returncode == 2 and "Position ID" in r.stderr


def test_hint_lists_legal_plays_of_the_roll() -> None:
    r = run_cli("hint", "4HPwATDgc/ABMA", "--dice", "31", "--count", "3")
    assert r.returncode == 0, r.stderr
    pos = Position.initial()
    plays = re.findall(r"^\s+(?:\d+\. +|The bot would play )(.+?)(?:  | \(|$)", r.stdout, re.M)
    assert plays
    for text in plays:
        pos.parse_move(text, (3, 1))  # each one is legal
    bad = run_cli("hint", "4HPwATDgc/ABMA", "--dice", "71")
    assert bad.returncode == 2 and "dice" in bad.stderr


def test_hint_and_analyse_take_a_pruning_width() -> None:
    """``--prune N`` bounds the plays a roll the full net judges inside the lookahead: a
    width above any roll's plays is the unpruned search, to the digit; a negative one is
    refused before anything is judged."""
    args = ("hint", "4HPwATDgc/ABMA", "--dice", "31", "--ply", "1")
    full, wide = run_cli(*args, "--prune", "0"), run_cli(*args, "--prune", "1000")
    assert full.returncode == 0 and wide.returncode == 0, full.stderr + wide.stderr
    assert "1-ply EMG" in full.stdout and full.stdout == wide.stdout
    bad = run_cli(*args, "--prune", "-1")
    assert bad.returncode == 2 and "prune" in bad.stderr and not bad.stdout
    bad = run_cli("analyse", "no-such-file.mat", "--prune", "-2")
    assert bad.returncode == 2 and "--prune" in bad.stderr


def test_selfplay_writes_matches_and_prints_results(tmp_path: Path) -> None:
    r = run_cli(
        "selfplay",
        "--games",
        "3",
        "--out",
        "games",
        "--length",
        "1",
        "--bot",
        "random",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    files = sorted((tmp_path / "games").glob("*.mat"))
    assert len(files) == 3
    from backgammon.records import mat

    winners = [0, 0]
    for f in files:
        m = mat.read(f.read_text())
        assert m.is_over and m.winner is not None
        winners[m.winner] += 1
    found = re.search(r"3 matches to 1: \S+ won (\d+), \S+ won (\d+)", r.stdout)
    assert found and [int(found.group(1)), int(found.group(2))] == winners


def test_ctrl_c_saves_and_says_where(tmp_path: Path) -> None:
    program = Program("play", "--seed", "4", "--bot", "random", "--out", "int.mat", cwd=tmp_path)
    assert program.next_prompt() is not None
    program.proc.send_signal(signal.SIGINT)
    assert program.next_prompt() is None
    assert program.finish() == 130
    assert "Stopped. The match is saved in int.mat" in program.output
    from backgammon.records import mat

    m = mat.read((tmp_path / "int.mat").read_text())
    assert not m.is_over and m.rules.match_length == 5


def test_money_session_double_take_resign_gammon_then_quit(tmp_path: Path) -> None:
    """R21: a resigned gammon with the cube at 2 scores 4 (after a double and a take, R24)."""
    program = Program(
        "play",
        "--money",
        "--jacoby",
        "--beavers",
        "--seed",
        "3",
        "--bot",
        "random",
        "--out",
        "money.mat",
        cwd=tmp_path,
    )
    stage = "double"
    while True:
        text = program.next_prompt()
        assert text is not None, program.output[-2000:]
        prompt = text.rsplit("\n", 1)[-1]
        if stage == "double" and "roll or double?" in prompt:
            program.send("double")
            stage = "resign"
        elif stage == "resign" and "random takes" in program.output:
            program.send("resign gammon")
            stage = "quit"
        elif stage == "quit" and "Score:" in program.output:
            program.send("quit")
            break
        elif "your play" in prompt:
            program.send("1")
        else:
            program.send("")
    assert program.next_prompt() is None
    assert program.finish() == 0
    out = program.output
    assert "You offer the cube at 2." in out
    assert "You offer to resign a gammon game." in out
    assert "random won 4 points (a gammon resigned). Score: You 0, random 4" in out
    text = (tmp_path / "money.mat").read_text()
    assert " 0 point match" in text and " Doubles => 2" in text and "Wins 4 points" in text


def test_two_humans_take_turns_at_one_keyboard(tmp_path: Path) -> None:
    """The board is drawn from the side to move, but Player 1 is always X and Player 2 O."""
    r = run_cli(
        "play",
        "--vs",
        "human",
        "--length",
        "1",
        "--seed",
        "9",
        "--ascii",
        "--out",
        "h.mat",
        stdin="1\n" * 400,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert "Player 1: your play" in r.stdout and "Player 2: your play" in r.stdout
    assert "The match is over: Player " in r.stdout
    text = (tmp_path / "h.mat").read_text()
    assert "Player 1 : 0" in text and "Player 2 : 0" in text
    marks = re.findall(r"^ ([XO]) (Player \d)   score", r.stdout, re.M)
    assert {name for _, name in marks} == {"Player 1", "Player 2"}
    assert set(marks) == {("X", "Player 1"), ("O", "Player 2")}
    bottoms = re.findall(r"^ [XO] (Player \d)   score.*on roll", r.stdout, re.M)
    assert {"Player 1", "Player 2"} <= set(bottoms)  # each was drawn at the bottom


def test_a_terminal_without_unicode_gets_a_plain_ascii_board(tmp_path: Path) -> None:
    r = run_cli("--help", cwd=tmp_path)
    assert r.returncode == 0 and "play" in r.stdout
    r = run_cli("play", "--bot", "random", stdin="board\nquit\n", cwd=tmp_path, encoding="ascii")
    assert r.returncode == 0, r.stderr
    assert r.stdout.isascii() and "+13 14 15" in r.stdout and "Match to 5" in r.stdout
    r = run_cli(stdin="quit\n", cwd=tmp_path)  # no command at all: a match at once
    assert r.returncode == 0 and "Playing a 5-point match" in r.stdout
