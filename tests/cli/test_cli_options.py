"""The command line: options that cannot go together, help for every option."""

from __future__ import annotations

import argparse
from pathlib import Path

from clihelp import _data_home, run_cli  # noqa: F401 (a fixture)

from backgammon.cli import build_parser


def test_money_and_a_match_length_are_refused_together(tmp_path: Path) -> None:
    r = run_cli("play", "--money", "--length", "3", stdin="quit\n", cwd=tmp_path)
    assert r.returncode == 2
    assert "--money" in r.stderr and "--length" in r.stderr
    assert r.stdout == ""  # nothing was played


def test_a_loaded_match_keeps_its_own_rules(tmp_path: Path) -> None:
    first = run_cli(
        "play", "--seed", "1", "--bot", "random", "--out", "m.mat", stdin="quit\n", cwd=tmp_path
    )
    assert first.returncode == 0, first.stderr
    for extra in (["--length", "7"], ["--money"], ["--jacoby", "--money"]):
        r = run_cli("play", "--load", "m.mat", *extra, stdin="quit\n", cwd=tmp_path)
        assert r.returncode == 2 and "--load" in r.stderr and extra[0] in r.stderr, r.stderr


def test_every_option_of_every_command_has_help() -> None:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    commands = subparsers.choices
    assert set(commands) >= {
        "play",
        "show",
        "hint",
        "moves",
        "convert",
        "selfplay",
        "train",
        "distill",
        "serve",
        "verify",
    }
    helped = {a.dest for a in subparsers._choices_actions if a.help}
    assert helped == set(commands)
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, sub in commands.items()
        for action in sub._actions
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert missing == []


def test_matches_are_saved_in_the_users_data_folder(tmp_path: Path) -> None:
    """Without --out a match goes to $XDG_DATA_HOME/backgammon, else ~/.local/share/backgammon
    (made when needed), and the program says where at the start and the end."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    for env, folder in (
        ({"XDG_DATA_HOME": str(tmp_path / "xdg")}, tmp_path / "xdg" / "backgammon"),
        ({"XDG_DATA_HOME": "", "HOME": str(home)}, home / ".local" / "share" / "backgammon"),
    ):
        r = run_cli("play", "--bot", "random", stdin="quit\n", cwd=work, env=env)
        assert r.returncode == 0, r.stderr
        saved = list(folder.glob("backgammon-*.mat"))
        assert len(saved) == 1, (r.stdout, list(tmp_path.rglob("*.mat")))
        assert f"The match is saved in {saved[0]}" in r.stdout
        assert r.stdout.index(f"Saving to {saved[0]}") < r.stdout.index("Stopped.")
    assert list(work.iterdir()) == []
    r = run_cli("play", "--bot", "random", "--out", "mine.mat", stdin="quit\n", cwd=work)
    assert r.returncode == 0 and (work / "mine.mat").exists()
