"""Reporting input that cannot be used."""

from __future__ import annotations

__all__ = ["UsageError", "clip"]

ECHO_LIMIT = 40
"""How many characters of a typed line a message repeats."""


class UsageError(ValueError):
    """A command-line option, file or typed command that cannot be used."""


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` quoted for a message, cut to ``limit`` characters plus "…" (a pasted page
    must not be echoed whole; control characters are shown escaped)."""
    if len(text) > limit:
        return repr(text[:limit] + "…")
    return repr(text)
