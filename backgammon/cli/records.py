"""Saving and loading the terminal's matches (.mat, or SGF by the file's name)."""

from __future__ import annotations

import time
from pathlib import Path

from backgammon import matchfile
from backgammon.cli.errors import UsageError
from backgammon.dice import DiceSource
from backgammon.match import Match

__all__ = ["default_save_path", "read_mat", "write_mat"]


def default_save_path() -> Path:
    """Where a match is saved when no ``--out`` is given."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(f"backgammon-{stamp}.mat")


def write_mat(m: Match, path: Path, names: tuple[str, str]) -> None:
    """Save the match as a .mat file (gnubg's layout), or SGF if the name ends in .sgf."""
    from backgammon import mat, sgf

    writer = sgf if path.suffix.lower() == ".sgf" else mat
    path.write_text(writer.write(m, names), encoding="utf-8")


def read_mat(path: Path, dice: DiceSource) -> tuple[Match, tuple[str, str]]:
    """A match read from a .mat (or SGF) file, to be continued, and its players' names."""
    from backgammon import mat, sgf

    reader = sgf if path.suffix.lower() == ".sgf" else mat
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        record = reader.read_record(text)
        match = matchfile.to_match(record)
    except matchfile.MatchFileError as exc:
        raise UsageError(f"{path}: {exc}") from exc
    if match.is_over:
        raise UsageError(f"{path}: the match is already over")
    match.dice_source = dice
    return match, record.players
