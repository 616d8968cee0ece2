"""The board in the terminal: each player keeps one mark, and the screen fits 80x24 (two
humans at one keyboard are in test_cli.py)."""

from __future__ import annotations

import re
from pathlib import Path

from clihelp import (
    Program,
    Terminal,
    _data_home,  # noqa: F401 (an autouse fixture: saves go to a test folder)
    last_line,
    listed_plays,
)

from backgammon.cli import BoardView, render_board
from backgammon.core.position import Position


def test_the_second_players_checkers_keep_their_mark_at_the_bottom() -> None:
    """Drawn from the second player's side, their checkers are still O and the first's X."""
    view = BoardView(Position.initial(), bottom_name="Two", top_name="One", bottom_mark=1)
    rows = render_board(view, unicode=False).plain.splitlines()
    edge = next(i for i, r in enumerate(rows) if r.strip().startswith("+12"))
    cells = rows[edge - 1].split("|")
    assert cells[1].split() == ["X", ".", ".", ".", "O", "."]  # 12: One's, 8: Two's
    assert cells[3].split() == ["O", ".", ".", ".", ".", "X"]  # 6: Two's, 1: One's
    assert rows[edge + 1].startswith(" O Two") and rows[0].startswith(" X One")


def test_board_plays_and_prompt_fit_an_80x24_terminal(tmp_path: Path) -> None:
    """At every prompt of a match the whole board, the listed plays and the prompt are on an
    80x24 screen; a roll with many plays lists the first few and says how to see all."""
    term = Terminal("play --length 1 --seed 1 --bot random --out fit.mat", tmp_path, 80, 24)
    try:
        seen, plays, long_lists = 0, 0, 0
        while (found := term.next_prompt(seen)) is not None:
            screen, seen = found
            rows = screen.splitlines()
            assert len(rows) <= 24 and all(len(row) <= 80 for row in rows)
            top = max(i for i, row in enumerate(rows) if "┌13" in row)  # the last board drawn
            assert top >= 1 and "   score " in rows[top - 1], screen
            assert "└12" in rows[top + 12] and "   score " in rows[top + 13], screen
            assert "Match to 1" in rows[top + 14], screen
            prompt = last_line(screen)
            if "your play" in prompt:
                plays += 1
                assert "Legal plays of" in screen
                long_lists += "list shows all" in screen
                term.keys("1", "Enter")
            elif "Enter to confirm" in prompt or "roll or double" in prompt:
                term.keys("Enter")
            else:
                raise AssertionError(f"unexpected prompt {prompt!r}\n{screen}")
        assert "EXITED 0" in term.screen()
        assert plays >= 5 and long_lists >= 3
    finally:
        term.close()


def test_list_shows_every_legal_play(tmp_path: Path) -> None:
    program = Program("play", "--length", "1", "--seed", "1", "--bot", "random", cwd=tmp_path)
    listed = 0
    while (text := program.next_prompt()) is not None:
        prompt = text.rsplit("\n", 1)[-1]
        if "your play" in prompt and "list shows all" in text and not listed:
            total = int(re.findall(r"the first \d+ of (\d+)", text)[-1])
            program.send("list")
            after = program.next_prompt()
            assert after is not None
            assert sorted(listed_plays(after)) == list(range(1, total + 1))
            listed += 1
            program.send("1")
        elif "your play" in prompt:
            program.send("1")
        else:
            program.send("")
    assert program.finish() == 0 and listed == 1
