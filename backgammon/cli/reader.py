"""Lines typed by the user, from the terminal or from a script."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from typing import TextIO

from rich.console import Console
from rich.text import Text

from backgammon.core.values import clip

__all__ = ["SCRIPT_ECHO_LIMIT", "Reader"]

SCRIPT_ECHO_LIMIT = 200
"""How much of a script's line is echoed after its prompt (a typed line shows whole)."""

_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


class Reader:
    """Lines typed by the user: from the terminal (with line editing) or from a script."""

    def __init__(self, console: Console, stream: TextIO | None = None) -> None:
        """Read from ``stream`` (standard input by default), echoing lines that are not typed."""
        self.console = console
        self.stream = stream if stream is not None else sys.stdin
        if isinstance(self.stream, io.TextIOWrapper):
            # bytes that are not text become "�" and get a message, not a crash
            self.stream.reconfigure(errors="replace")
        self.interactive = self.stream.isatty()
        self._readline = False
        if self.interactive:
            with contextlib.suppress(ImportError):  # not on every platform
                import readline  # noqa: F401  (line editing and history for input())

                self._readline = True

    def read(self, prompt: str) -> str:
        """One line without its newline (a script's line is echoed, cut if long); EOFError at
        the end of the input."""
        if self.interactive:
            return input(self._terminal_prompt(prompt))
        self.console.print(Text(prompt, style="bold green"), end="")
        self.console.file.flush()
        line = self.stream.readline()
        if not line:
            self.console.print()
            raise EOFError
        line = line.rstrip("\r\n")
        self.console.print(clip(line, SCRIPT_ECHO_LIMIT), markup=False, highlight=False)
        return line

    def _terminal_prompt(self, prompt: str) -> str:
        """The prompt with its colour codes, for input() to print: readline must be told the
        prompt, or Enter on an empty line leaves the next prompt on the same line."""
        with self.console.capture() as captured:
            self.console.print(Text(prompt, style="bold green"), end="")
        text = captured.get()
        if self._readline:  # colour codes take no room on the line: readline must know
            text = _ESCAPE.sub(lambda m: f"\001{m.group(0)}\002", text)
        return text
