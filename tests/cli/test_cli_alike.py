"""The terminal's commands agree with each other and with the files they read: one board,
the dice as the .mat writes them, a loaded match with its names and opening roll."""

from __future__ import annotations

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
