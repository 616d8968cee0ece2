"""The terminal's prompts: what each typed line does, and that nothing typed is lost or
misread."""

from __future__ import annotations

from pathlib import Path

from clihelp import _data_home, run_cli  # noqa: F401 (a fixture)


def test_save_into_a_folder_during_a_play_is_a_command(tmp_path: Path) -> None:
    """A line is a command when its first word is one, even if it holds a slash."""
    folder = tmp_path / "some" / "dir"
    folder.mkdir(parents=True)
    target = folder / "x.mat"
    # seed 3: the bot opens, we roll (Enter) and are asked for our play
    script = f"\nsave {target}\nquit\n"
    r = run_cli(
        "play", "--seed", "3", "--bot", "random", "--out", "q.mat", stdin=script, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    assert f"your play (21) > save {target}" in r.stdout
    assert f"Saved in {target}" in r.stdout
    assert target.read_text() == (tmp_path / "q.mat").read_text()


def test_b_slash_is_still_the_bar() -> None:
    """``b / 22`` spells bar/22 with spaces, so the first word "b" is not the board command."""
    from backgammon.cli.session import _command

    assert _command("b", "/ 22") is None
    assert _command("b", "") == "board"
    assert _command("SAVE", "/some/dir/x.mat") == "save"
