"""Saving and loading the terminal's matches (.mat, or SGF by the file's name)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import platformdirs

from backgammon.cli.errors import UsageError
from backgammon.play.dice import DiceSource
from backgammon.play.match import Match
from backgammon.play.record import MatchRecord
from backgammon.records.convert import (
    detect_format,
    format_of_name,
    read_file_text,
    read_record_text,
    write_text,
)
from backgammon.records.errors import MatchFileError
from backgammon.records.walk import walk
from backgammon.records.written import as_written

__all__ = [
    "data_folder",
    "default_save_path",
    "read_file",
    "read_mat",
    "read_record_file",
    "write_mat",
]


def data_folder() -> Path:
    """The user's folder for saved matches, by the platform's convention (on Linux
    ``$XDG_DATA_HOME/backgammon``, else ``~/.local/share/backgammon``)."""
    return platformdirs.user_data_path("backgammon")


def default_save_path() -> Path:
    """Where a match is saved when no ``--out`` is given: a new file in :func:`data_folder`,
    which is made when needed (every run used to leave a file in the current folder)."""
    folder = data_folder()
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"backgammon-{stamp}.mat"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"backgammon-{stamp}-{n}.mat"
    return path


def write_mat(m: Match, path: Path, names: tuple[str, str], comment: str = "") -> None:
    """Save the match as a .mat file (gnubg's layout), or SGF if the name ends in .sgf, with
    ``comment`` as the match comment (both formats keep one)."""
    record = as_written(m, names)
    if comment:
        record = dataclasses.replace(record, comment=comment)
    text = write_text(record, format_of_name(path) or "mat")
    # A new file renamed over the old one: a kill or power cut leaves one or the other whole.
    # A hang-up, terminate or interrupt (a closed terminal) waits until the rename is done,
    # so it leaves no temporary file behind either.
    with _signals_held():
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            os.fchmod(fd, _file_mode(path))  # mkstemp makes it 0600 whatever the umask
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _file_mode(path: Path) -> int:
    """The mode a file written at ``path`` gets: the old file's, else what the umask
    leaves of 0666 (as ``open`` would make it)."""
    with contextlib.suppress(OSError):
        return stat.S_IMODE(path.stat().st_mode)
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGHUP, SIGTERM and SIGINT held back while the block runs, delivered after it.  A
    handler notes them (any thread may receive a signal sent to the process, so masking the
    main thread alone is not enough); the first one noted is sent again once the old
    handlers are back."""
    held = [signal.SIGINT, signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    old = {s: signal.signal(s, lambda sig, _frame: noted.append(sig)) for s in held}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if noted:
            os.kill(os.getpid(), noted[0])


def read_record_file(path: Path) -> MatchRecord:
    """A saved .mat (or SGF, by the name) file read into its match record (the rules check
    every action).  Anything unreadable raises :class:`UsageError` naming the file."""
    try:
        text, notes = read_file_text(path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except MatchFileError as exc:
        raise UsageError(f"{path}: {exc}") from exc
    for note in notes:
        print(f"{path}: note: {note}", file=sys.stderr)
    try:
        return read_record_text(text, detect_format(text, path))
    except MatchFileError as exc:
        raise UsageError(f"{path}: {exc}") from exc


def read_file(path: Path) -> tuple[MatchRecord, Match]:
    """A saved .mat (or SGF, by the name) file: its record, and the match it plays to (one
    walk of it).  Anything unreadable raises :class:`UsageError` naming the file."""
    record = read_record_file(path)
    return record, walk(record)


def read_mat(path: Path, dice: DiceSource) -> tuple[Match, tuple[str, str]]:
    """A match read from a .mat (or SGF) file, to be continued, and its players' names."""
    record, match = read_file(path)
    if match.is_over:
        raise UsageError(f"{path}: the match is already over")
    match.dice_source = dice
    return match, record.players
