"""The board in the terminal: each player keeps one mark, and the screen fits 80x24."""

from __future__ import annotations

import re
from pathlib import Path

from clihelp import _data_home, run_cli  # noqa: F401 (a fixture)

from backgammon.board import Position
from backgammon.cli import BoardView, render_board


def test_two_humans_keep_their_marks_when_the_board_turns(tmp_path: Path) -> None:
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
    marks = re.findall(r"^ ([XO]) (Player \d)   score", r.stdout, re.M)
    assert {name for _, name in marks} == {"Player 1", "Player 2"}
    assert set(marks) == {("X", "Player 1"), ("O", "Player 2")}
    bottoms = re.findall(r"^ [XO] (Player \d)   score.*on roll", r.stdout, re.M)
    assert {"Player 1", "Player 2"} <= set(bottoms)  # each was drawn at the bottom


def test_the_second_players_checkers_keep_their_mark_at_the_bottom() -> None:
    """Drawn from the second player's side, their checkers are still O and the first's X."""
    view = BoardView(Position.initial(), bottom_name="Two", top_name="One", bottom_mark=1)
    rows = render_board(view, unicode=False).plain.splitlines()
    edge = next(i for i, r in enumerate(rows) if r.strip().startswith("+12"))
    cells = rows[edge - 1].split("|")
    assert cells[1].split() == ["X", ".", ".", ".", "O", "."]  # 12: One's, 8: Two's
    assert cells[3].split() == ["O", ".", ".", ".", ".", "X"]  # 6: Two's, 1: One's
    assert rows[edge + 1].startswith(" O Two") and rows[0].startswith(" X One")
