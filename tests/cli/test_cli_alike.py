"""The terminal's commands agree with each other and with the files they read: one board,
the dice as the .mat writes them, a loaded match with its names and opening roll."""

from __future__ import annotations

import re
from pathlib import Path

from clihelp import _data_home, run_cli  # noqa: F401 (an autouse fixture)

GNUBG_ID = "4HPwATDgc/ABMA:cInpAAAAAAAE"  # gnubg: a 7-point match, 32 rolled


def _board(text: str) -> list[str]:
    """The drawn board's frame and points: the lines from the top name to the bottom edge."""
    lines = text.splitlines()
    return lines[: next(i for i, line in enumerate(lines) if "pips" in line and i > 0)]


def test_moves_draws_the_board_that_show_draws() -> None:
    for ascii_only in ([], ["--ascii"]):
        shown = run_cli("show", GNUBG_ID, *ascii_only)
        listed = run_cli("moves", GNUBG_ID, "--dice", "32", *ascii_only)
        assert shown.returncode == 0 and listed.returncode == 0, listed.stderr
        assert _board(listed.stdout) == _board(shown.stdout)
        assert listed.stdout.isascii() == bool(ascii_only)
        assert "legal plays of 32:" in listed.stdout


def test_the_text_review_writes_the_dice_as_the_mat_does(tmp_path: Path) -> None:
    """The second player's opening 6-2 is "62" in the .mat and in the review (it was "26")."""
    (tmp_path / "m.mat").write_text(
        " 1 point match\n\n Game 1\n Ann : 0                             Bob : 0\n"
        "  1)                                 62: 24/18 13/11\n  2) 31: 8/5 6/5\n"
    )
    r = run_cli("analyse", "m.mat", "--ply", "0", "--quiet", "--text", "r.txt", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    review = (tmp_path / "r.txt").read_text()
    assert re.search(r"^ +1\. Bob 62: 24/18 13/11 ", review, re.M), review
    assert re.search(r"^ +2\. Ann 31: 8/5 6/5 ", review, re.M), review
