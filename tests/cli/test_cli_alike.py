"""The terminal's commands agree with each other and with the files they read: one board,
the dice as the .mat writes them, a loaded match with its names and opening roll."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from clihelp import _data_home, run_cli  # noqa: F401 (an autouse fixture)

from backgammon.ids.gnubg import MatchIdFields, encode_match_id

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


def test_hint_writes_its_plays_and_cube_decision_as_json() -> None:
    """``hint --json -``: the ranked plays with the mover's probabilities and EMG, the same
    numbers the text prints; with no dice the cube decision exactly as ``eval --json``."""
    r = run_cli("hint", GNUBG_ID, "--dice", "31", "--ply", "0", "--count", "3", "--json", "-")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)  # nothing but the JSON on standard output
    plays = data["plays"]
    assert data["dice"] == [3, 1] and len(plays) == 3
    assert plays[0]["move"] == "8/5 6/5" and all(p["ply"] == 0 for p in plays)
    assert [p["equity"] for p in plays] == sorted((p["equity"] for p in plays), reverse=True)
    assert all(len(p["probabilities"]) == 5 and 0 < p["mwc"] < 1 for p in plays)
    text = run_cli("hint", GNUBG_ID, "--dice", "31", "--ply", "0", "--count", "3")
    assert f"8/5 6/5                0-ply EMG {plays[0]['equity']:+.3f}" in text.stdout
    match = MatchIdFields(match_length=7, score=(2, 4), cube_value=2, cube_owner=0)
    pending = dataclasses.replace(match, doubled=True, turn=1)
    for position in (
        "4HPwATDgc/ABMA",
        *(f"4HPwATDgc/ABMA:{encode_match_id(m)}" for m in (match, pending)),
    ):
        hinted = run_cli("hint", position, "--ply", "0", "--json", "-")
        judged = run_cli("eval", position, "--ply", "0", "--json", "-")
        assert hinted.returncode == 0, hinted.stderr
        assert json.loads(hinted.stdout) == json.loads(judged.stdout)


def test_a_match_quit_at_the_opening_roll_goes_on_with_its_names_and_roll(
    tmp_path: Path,
) -> None:
    """Quitting before the first play used to save no names and no roll: the loaded match
    had "Player 0"/"Player 1" and threw the opening again (a way to a better opening)."""
    first = run_cli(
        "play", "--seed", "1", "--name", "Ann", "--bot", "random", "--out", "f.mat",
        stdin="quit\n", cwd=tmp_path,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    opening = re.search(
        r"Opening roll: Ann (\d), random (\d): (\w+) to play (\d\d)\.", first.stdout
    )
    assert opening, first.stdout
    saved = (tmp_path / "f.mat").read_text()
    assert "Ann : 0" in saved and "random : 0" in saved, saved
    assert f"1) {opening[4]}: " in saved or f"{opening[4]}: \n" in saved, saved
    again = run_cli("play", "--load", "f.mat", stdin="quit\n", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "Player 0" not in again.stdout and "Opening roll" not in again.stdout
    assert f"{opening[3]}: your play ({opening[4]}) >" in again.stdout, again.stdout
