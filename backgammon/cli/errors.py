"""Reporting input that cannot be used, without repeating more of it than a reader needs."""

from __future__ import annotations

import re

from backgammon.core.values import ECHO_LIMIT, clip

__all__ = ["UsageError", "bound"]

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
