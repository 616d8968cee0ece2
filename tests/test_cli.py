"""The terminal game: the board drawing, entering plays, and the real program driven end to end."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.board import Move, Position
from backgammon.cli import BoardView, EntryError, TurnEntry, render_board

# --------------------------------------------------------------------------- the board


def _random_position(seed: int, plies: int) -> Position:
    rng = random.Random(seed)
    pos = Position.initial()
    for _ in range(plies):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        moves = pos.legal_moves(dice)
        nxt = pos.play(rng.choice(moves)) if moves else pos.play(Move())
        if nxt.is_game_over():
            break
        pos = nxt
    return pos


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
    pos = _random_position(seed, plies)
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


def test_ascii_board_is_plain() -> None:
    text = render_board(BoardView(Position.initial(), gnubg_id="x"), unicode=False).plain
    assert text.isascii()


# --------------------------------------------------------------------------- entering a play


def test_whole_play_in_any_spelling() -> None:
    entry = TurnEntry(Position.initial(), (6, 5))
    assert str(entry.enter("24-13")) == "24/13"


def test_play_in_steps_then_undo() -> None:
    entry = TurnEntry(Position.initial(), (6, 5))
    assert entry.enter("24/18") is None
    assert entry.dice_left == (5,)
    assert entry.current.board[18] == 1 and entry.current.board[24] == 1
    entry.undo()
    assert entry.steps == [] and entry.dice_left == (6, 5)
    assert entry.enter("13/8") is None
    assert str(entry.enter("13/7")) == "13/8 13/7"


def test_illegal_text_changes_nothing() -> None:
    entry = TurnEntry(Position.initial(), (6, 5))
    entry.enter("24/18")
    before = (list(entry.steps), entry.dice_left)
    for text in ("13/10", "18/12", "zz", "6/off", "9"):
        with pytest.raises(EntryError):
            entry.enter(text)
        assert (entry.steps, entry.dice_left) == before


def test_larger_die_rule_refuses_the_smaller_step() -> None:
    """R9: when either die alone can be played but not both, the larger must be played."""
    board = [0] * 26
    board[20] = 1
    board[1] = 14
    board[9] = -2  # 20/14/9 and 20/15/9 both blocked
    board[24] = -13
    pos = Position(board)
    assert [str(m) for m in pos.legal_moves((6, 5))] == ["20/14"]
    entry = TurnEntry(pos, (6, 5))
    with pytest.raises(EntryError):
        entry.enter("20/15")
    assert entry.steps == []
    assert str(entry.enter("20/14")) == "20/14"


def test_choose_by_number() -> None:
    entry = TurnEntry(Position.initial(), (3, 1))
    move = entry.enter("2")
    assert move == entry.legal[1]
    with pytest.raises(EntryError):
        entry.enter("0")


@given(st.integers(0, 100_000), st.integers(0, 80), st.integers(1, 6), st.integers(1, 6))
@settings(max_examples=150, deadline=None)
def test_every_legal_play_can_be_entered_step_by_step(
    seed: int, plies: int, d1: int, d2: int
) -> None:
    """Entering the single steps of any legal play, one at a time, completes exactly it."""
    pos = _random_position(seed, plies)
    legal = pos.legal_moves((d1, d2))
    for move in legal[:8]:
        entry = TurnEntry(pos, (d1, d2))
        result: Move | None = None
        for src, dst, _ in move:
            name = {25: "bar", 0: "off"}
            if result is not None:
                # a first step such as "3/off" is also a whole legal play: it is read as one
                assert result in legal and result != move
                break
            result = entry.enter(f"{name.get(src, src)}/{name.get(dst, dst)}")
        else:
            assert result is not None
            assert pos.play(result) == pos.play(move)


# --------------------------------------------------------------------------- the real program

SAMPLES = Path("/work/shared/reference/samples")
if not SAMPLES.exists():  # the reference samples next to the repository
    SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "reference" / "samples"


def run_cli(*args: str, stdin: str = "", cwd: Path | None = None, timeout: float = 60) -> Any:
    """Run ``python -m backgammon`` as a separate program."""
    return subprocess.run(
        [sys.executable, "-m", "backgammon", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"},
    )


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
