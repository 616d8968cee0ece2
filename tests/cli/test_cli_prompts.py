"""The terminal's prompts: what each typed line does, and that nothing typed is lost or
misread."""

from __future__ import annotations

import re
from pathlib import Path

from clihelp import Terminal, _data_home, last_line, run_cli  # noqa: F401 (a fixture)

from backgammon.cli.session import HELP


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


def _play_21(tmp_path: Path, after_play: str) -> tuple[str, str]:
    """Seed 3: the bot opens, we roll 21, type play 1, then ``after_play`` at the question."""
    script = "\n1\n" + after_play
    r = run_cli(
        "play",
        "--seed",
        "3",
        "--bot",
        "random",
        "--confirm",
        "--out",
        "c.mat",
        stdin=script,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout, (tmp_path / "c.mat").read_text()


def test_commands_at_the_confirmation_keep_the_play(tmp_path: Path) -> None:
    out, saved = _play_21(tmp_path, "hint\npips\nboard\nhelp\nfoo\n\nquit\n")
    asked = "Enter to confirm, or undo > "
    assert "Taken back." not in out
    assert out.count(asked) == 6  # asked again after each command and after "foo"
    after = out.split(asked + "hint\n", 1)[1]
    assert "would play" in after.split(asked)[0] or "equity" in after.split(asked)[0]
    assert "Pips: You" in out.split(asked + "pips\n", 1)[1].split(asked)[0]
    assert "Commands" in out.split(asked + "help\n", 1)[1].split(asked)[0]
    assert "'foo' is not an answer here" in out.split(asked + "foo\n", 1)[1].split(asked)[0]
    assert re.search(r"21: \d+/", saved)  # the play was confirmed and made


def test_quit_at_the_confirmation_stops_without_taking_the_play_back(tmp_path: Path) -> None:
    out, saved = _play_21(tmp_path, "quit\n")
    assert "Taken back." not in out
    assert "Stopped. The match is saved in c.mat" in out
    assert "21: " in saved and not re.search(r"21: \d+/", saved)  # rolled, not played


def test_undo_at_the_confirmation_takes_the_play_back(tmp_path: Path) -> None:
    out, _ = _play_21(tmp_path, "undo\nquit\n")
    assert "Enter to confirm, or undo > undo\nTaken back." in out
    assert out.rstrip().endswith("backgammon play --load c.mat")


def test_an_empty_enter_in_a_terminal_starts_a_new_line(tmp_path: Path) -> None:
    """Each prompt starts its own line, also after Enter on an empty line (readline is told
    the prompt, or it does not end the line)."""
    term = Terminal("play --seed 3 --bot random --out e.mat", tmp_path)
    try:
        term.wait(lambda s: last_line(s).endswith("roll or double? [Enter = roll] >"))
        term.keys("Enter")
        prompt = "You: your play (21) >"
        term.wait(lambda s: last_line(s).endswith(prompt))
        for n in (2, 3):
            term.keys("Enter")
            screen = term.wait(lambda s, n=n: s.count(prompt) == n)
        rows = [ln.rstrip() for ln in screen.splitlines()]
        assert sum(row == prompt for row in rows) == 3, screen
    finally:
        term.close()


def test_a_long_line_is_not_echoed_whole(tmp_path: Path) -> None:
    """A pasted page gets a message that quotes 40 characters of it, at every prompt."""
    long = "x" * 10_000
    lines = [
        long,  # roll or double?
        "",  # roll: 21
        "13/8" + "z" * 10_000,  # the play prompt, read as a play
        "13/8 " + long,
        long,
        f"save {long}.mat",
        f"resign {long}",
        "1",
        long,  # Enter to confirm, or undo
        "quit",
    ]
    r = run_cli(
        "play",
        "--seed",
        "3",
        "--bot",
        "random",
        "--confirm",
        "--out",
        "l.mat",
        stdin="\n".join(lines) + "\n",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    flat = r.stdout.replace("\n", "")
    for char in "xz":
        assert char * 201 not in flat
    assert flat.count("x" * 200 + "…") == 3  # the script's lines echoed after the prompts
    assert flat.count("'" + "x" * 40 + "…'") >= 4  # and quoted in the messages
    assert "'13/8" + "z" * 20 in flat  # quoted, cut by the core
    assert "Stopped. The match is saved in l.mat" in r.stdout
    r = run_cli("play", "--vs", long, cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr) < 1000
    r = run_cli("hint", "4HPwATDgc/ABMA", "--dice", long, cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr) < 200
    r = run_cli("show", long, cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr) < 200


def test_hint_ranks_the_plays_with_the_match_score(tmp_path: Path) -> None:
    """The default bot ranks plays (players.MoveRanker) and advises on the cube."""
    r = run_cli("play", "--seed", "3", "--out", "h.mat", stdin="hint\n\nhint\nquit\n", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "No double " in r.stdout and "Proper: no double" in r.stdout
    ranked = re.findall(r"^ +\d\. (.+?) +0-ply EMG ([+-]\d\.\d{3})", r.stdout, re.M)
    assert len(ranked) == 5
    equities = [float(e) for _, e in ranked]
    assert equities == sorted(equities, reverse=True)


def test_hints_at_the_depth_asked_while_the_bot_plays_at_its_own(tmp_path: Path) -> None:
    """``--hint-ply 1``: the hints are the best bot's at 1-ply; the bot still plays 0-ply."""
    r = run_cli(
        "play", "--seed", "3", "--ply", "0", "--hint-ply", "1", "--out", "h.mat",
        stdin="hint\n\nhint\nquit\n", cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert re.search(r"^ +1\. .+? +1-ply EMG [+-]\d\.\d{3}", r.stdout, re.M)
    assert not re.search(r"^ +1\. .+? +0-ply EMG", r.stdout, re.M)
    r = run_cli("play", "--hint-ply", "3", stdin="quit\n", cwd=tmp_path)
    assert r.returncode == 2 and "--hint-ply" in r.stderr


def test_hint_n_lists_n_plays_and_refuses_a_bad_count(tmp_path: Path) -> None:
    """``hint 8`` lists eight plays (``hint`` five); ``hint x`` says what it takes."""
    r = run_cli(
        "play", "--seed", "3", "--out", "h.mat", stdin="\nhint 8\nhint x\nquit\n", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    ranked = re.findall(r"^ +(\d)\. .+? +0-ply EMG", r.stdout, re.M)
    assert ranked == [str(i) for i in range(1, 9)]
    assert "hint takes how many plays to list, 1-50, not 'x'" in r.stdout + r.stderr


def test_the_commands_help_fits_80_columns() -> None:
    """``help`` in the game, within the 80 columns the README promises."""
    assert max(len(line) for line in HELP.splitlines()) <= 80
    assert "hint [N]" in HELP
