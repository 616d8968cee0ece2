"""Reporting input that cannot be used, without repeating more of it than a reader needs."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from backgammon.core.values import ECHO_LIMIT, clip

__all__ = ["UsageError", "bound", "output_path", "port", "positive"]

# A quoted string as repr() writes it, starting and ending where a quotation can (so that
# the apostrophe of "player's" does not open one).
_QUOTED = re.compile(
    r"""(?<![^\s(\[:=,])(?P<q>['"])(?P<body>(?:\\.|(?!(?P=q)).)*?)(?P=q)(?=$|[\s,.:;)\]])"""
)


class UsageError(ValueError):
    """A command-line option, file or typed command that cannot be used."""


def bound(message: str, limit: int = ECHO_LIMIT) -> str:
    """``message`` with every quoted string in it cut to ``limit`` characters (messages of
    the core and argparse quote what was typed, whatever its length)."""

    def shorten(m: re.Match[str]) -> str:
        return f"{m.group('q')}{clip(m.group('body'), limit)}{m.group('q')}"

    return _QUOTED.sub(shorten, message)


MAX_COUNT = 10_000_000
"""The largest count an option takes (trials, games): beyond it the work would not end."""


def positive(text: str) -> int:
    """An argparse type: a whole number from 1 to :data:`MAX_COUNT`."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {clip(text)!r}") from None
    if not 1 <= n <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_COUNT:,}, not {n}")
    return n


def dice_seed(text: str) -> int:
    """An argparse type: a seed of the dice, a whole number from 0."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {clip(text)!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"a seed is a whole number from 0, not {n}")
    return n


def port(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free one) to 65535."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {clip(text)!r}") from None
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, not {n}")
    return n


def output_path(text: str) -> str:
    """An argparse type: ``-`` (standard output) or a file that can be written, checked
    before any work is done so that none is lost at the end (the path is said whole: one
    cut short names no folder)."""
    if text == "-":
        return text
    path = Path(text)
    folder = path.parent
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: it is a folder")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: no folder {folder}")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write {text}: permission denied")
    return text
