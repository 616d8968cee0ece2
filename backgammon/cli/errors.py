"""Reporting input that cannot be used, without repeating more of it than a reader needs."""

from __future__ import annotations

import re

__all__ = ["ECHO_LIMIT", "UsageError", "bound", "clip", "cut"]

ECHO_LIMIT = 40
"""How many characters of a typed line a message repeats."""

# A quoted string as repr() writes it, starting and ending where a quotation can (so that
# the apostrophe of "player's" does not open one).
_QUOTED = re.compile(
    r"""(?<![^\s(\[:=,])(?P<q>['"])(?P<body>(?:\\.|(?!(?P=q)).)*?)(?P=q)(?=$|[\s,.:;)\]])"""
)


class UsageError(ValueError):
    """A command-line option, file or typed command that cannot be used."""


def cut(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters plus "…"."""
    return text[:limit] + "…" if len(text) > limit else text


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` quoted for a message (control characters escaped) and cut: a pasted page
    must not be echoed whole."""
    return repr(cut(text, limit))


def bound(message: str, limit: int = ECHO_LIMIT) -> str:
    """``message`` with every quoted string in it cut to ``limit`` characters (messages of
    the core and argparse quote what was typed, whatever its length)."""

    def shorten(m: re.Match[str]) -> str:
        body = m.group("body")
        if len(body) <= limit:
            return m.group(0)
        return f"{m.group('q')}{body[:limit]}…{m.group('q')}"

    return _QUOTED.sub(shorten, message)
