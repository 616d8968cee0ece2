"""Running the real ``backgammon`` program in tests of the terminal face."""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Matches saved without --out go to a fresh data folder, never the user's own."""
    home = tmp_path / "data-home"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def run_cli(
    *args: str,
    stdin: str = "",
    cwd: Path | None = None,
    timeout: float = 60,
    encoding: str = "utf-8",
    env: dict[str, str] | None = None,
) -> Any:
    """Run ``python -m backgammon`` as a separate program (``env`` replaces the environment's
    variables it names)."""
    return subprocess.run(
        [sys.executable, "-m", "backgammon", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": encoding, **(env or {})},
    )


_DEFAULT_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, '-m', 'backgammon', *sys.argv[1:]])"
)


class Program:
    """``python -m backgammon ...`` on pipes, answered prompt by prompt like a person would."""

    def __init__(self, *args: str, cwd: Path) -> None:
        # Ctrl-C reaches the program as from a terminal even when the tests run in the
        # background, where the shell ignores SIGINT and children inherit that (Python then
        # never raises KeyboardInterrupt): reset it to the default, then become the program.
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _DEFAULT_SIGINT, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"},
        )
        self.output = ""
        self.seen = 0
        self._chunks: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        while chunk := self.proc.stdout.read1(65536):  # type: ignore[attr-defined]
            self._chunks.put(chunk)
        self._chunks.put(b"")

    def next_prompt(self, timeout: float = 30) -> str | None:
        """The text since the last prompt, up to and including the next one (None at exit)."""
        deadline = time.monotonic() + timeout
        raw = b""
        while True:
            text = (raw).decode("utf-8", "replace")
            if text.endswith("> "):
                self.output += text
                return text
            left = deadline - time.monotonic()
            assert left > 0, f"no prompt after: {text[-500:]!r}"
            try:
                chunk = self._chunks.get(timeout=left)
            except queue.Empty:
                continue
            if chunk == b"":
                self.output += text
                return None
            raw += chunk

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def finish(self) -> int:
        return self.proc.wait(timeout=30)


def listed_plays(text: str) -> dict[int, str]:
    """The numbered legal plays printed in ``text`` (the last list printed)."""
    out: dict[int, str] = {}
    block = text.rsplit("Legal plays of", 1)[-1]
    for line in block.splitlines()[1:]:
        for m in re.finditer(r"(\d+)\. (.+?)(?=\s{2,}\d+\. |\s*$)", line):
            out[int(m.group(1))] = m.group(2).strip()
    return out


_SOCKETS = count()
PROMPT = re.compile(r" >( |$)")
"""A prompt of the terminal game, answered or waiting (no other line holds " >")."""


class Terminal:
    """``python -m backgammon ...`` in a real terminal: a tmux pane of the given size."""

    def __init__(self, args: str, cwd: Path, width: int = 80, height: int = 24) -> None:
        tmux = shutil.which("tmux")
        assert tmux, "tmux is needed (.ci/run installs it)"
        self.base = [tmux, "-L", f"bgtest{os.getpid()}-{next(_SOCKETS)}"]
        command = f"cd {cwd} && {sys.executable} -m backgammon {args}; echo EXITED $?; sleep 600"
        env = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        subprocess.run(
            [*self.base, "new-session", "-d", "-x", str(width), "-y", str(height), command],
            check=True,
            env=env,
        )

    def screen(self) -> str:
        """What the pane shows now, one text line per row."""
        return subprocess.run(
            [*self.base, "capture-pane", "-p"], capture_output=True, text=True, check=True
        ).stdout

    def history(self) -> str:
        """Everything the pane has shown, the scrolled-off lines first."""
        return subprocess.run(
            [*self.base, "capture-pane", "-p", "-S", "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def next_prompt(self, seen: int, timeout: float = 30) -> tuple[str, int] | None:
        """Once more than ``seen`` prompts were shown and the program waits at the last one:
        the screen and how many prompts were shown; None once the program has ended."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.history()
            if "EXITED" in text:
                return None
            shown = sum(bool(PROMPT.search(line)) for line in text.splitlines())
            if shown > seen and last_line(text).endswith(">"):
                return self.screen(), shown
            assert time.monotonic() < deadline, f"no prompt; the screen:\n{self.screen()}"
            time.sleep(0.05)

    def keys(self, *keys: str) -> None:
        """Type ``keys`` (tmux names such as Enter)."""
        subprocess.run([*self.base, "send-keys", *keys], check=True)

    def wait(self, done: Callable[[str], bool], timeout: float = 30) -> str:
        """The screen once ``done`` holds for it."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if done(text):
                return text
            assert time.monotonic() < deadline, f"timed out; the screen:\n{text}"
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True)


def last_line(screen: str) -> str:
    """The last line of ``screen`` that is not blank (where the cursor waits for input)."""
    lines = [ln for ln in screen.splitlines() if ln.strip()]
    return lines[-1].rstrip() if lines else ""


def play_through(program: Program, limit: int = 3000) -> str:
    """Answer every prompt simply (roll, take, accept, play 1, confirm) until the program
    ends; the whole output."""
    for _ in range(limit):
        text = program.next_prompt()
        if text is None:
            return program.output
        prompt = text.rsplit("\n", 1)[-1]
        if "take, pass" in prompt:
            program.send("take")
        elif "accept or reject" in prompt:
            program.send("accept")
        elif "your play" in prompt:
            program.send("1")
        else:
            program.send("")
    raise AssertionError("the match did not end")
