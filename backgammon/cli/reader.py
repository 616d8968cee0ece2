"""Lines typed by the user, from the terminal or from a script."""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

from rich.console import Console
from rich.text import Text

__all__ = ["Reader"]


class Reader:
    """Lines typed by the user: from the terminal (with line editing) or from a script."""

    def __init__(self, console: Console, stream: TextIO | None = None) -> None:
        """Read from ``stream`` (standard input by default), echoing lines that are not typed."""
        self.console = console
        self.stream = stream if stream is not None else sys.stdin
        self.interactive = self.stream.isatty()
        if self.interactive:
            with contextlib.suppress(ImportError):  # not on every platform
                import readline  # noqa: F401  (line editing and history for input())

    def read(self, prompt: str) -> str:
        """One line without its newline; EOFError at the end of the input."""
        if self.interactive:
            return self.console.input(Text(prompt, style="bold green"))
        self.console.print(Text(prompt, style="bold green"), end="")
        self.console.file.flush()
        line = self.stream.readline()
        if not line:
            self.console.print()
            raise EOFError
        line = line.rstrip("\r\n")
        self.console.print(line, markup=False, highlight=False)
        return line
