"""Reporting input that cannot be used."""

from __future__ import annotations

__all__ = ["UsageError"]


class UsageError(ValueError):
    """A command-line option, file or typed command that cannot be used."""
