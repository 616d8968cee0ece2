"""An engine's child process: started in its own session (a Ctrl-C at the terminal reaches
only us), killed when we die however we die (Linux's parent-death signal, and an exit
handler elsewhere), read line by line with a deadline.

Every driver talks to its program through one :class:`Child`; a child that stops answering
in time is killed, and one that ends is reported, each as its own :class:`EngineError`.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Callable, Sequence

from backgammon.engine.base import EngineProtocol, Limit

__all__ = [
    "Child",
    "EngineError",
    "EngineOutputError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "ProcessProtocol",
    "live_children",
]

_MAX_LINE = 1 << 16
_PR_SET_PDEATHSIG = 1
_LIVE: set[int] = set()


class EngineError(RuntimeError):
    """An engine failed to answer; the engine restarts itself on the next call."""


class EngineTerminatedError(EngineError):
    """The engine's process ended (crashed, killed or quit) before it answered."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The engine gave no answer within its time limit; it was killed."""


class EngineOutputError(EngineError):
    """The engine printed something its driver cannot read."""


def live_children() -> set[int]:
    """The process ids of the engines this process has started and not yet ended."""
    return set(_LIVE)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """In the child, before its program starts: ask Linux to kill it when its parent dies."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


@atexit.register
def _kill_all() -> None:
    """At exit (a Ctrl-C included), end every engine still running."""
    for pid in list(_LIVE):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _LIVE.clear()


class Child:
    """One run of an engine's program: lines in on its standard input, lines out of its
    standard output (its errors merged in, in the order written)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.pid = process.pid

    @classmethod
    async def start(cls, argv: Sequence[str], merge_errors: bool = False) -> Child:
        """Start ``argv`` (no shell) as a child that dies with us; its standard error is
        read with its output if ``merge_errors``, else thrown away."""
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT if merge_errors else asyncio.subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=_die_with_parent,
                limit=_MAX_LINE,
            )
        except OSError as exc:
            raise EngineTerminatedError(f"cannot start {argv[0]!r}: {exc.strerror}") from exc
        _LIVE.add(process.pid)
        return cls(process)

    @property
    def alive(self) -> bool:
        """True while the program runs."""
        return self.process.returncode is None

    async def send(self, lines: Sequence[str]) -> None:
        """Write ``lines`` to the engine."""
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write("".join(line + "\n" for line in lines).encode())
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            await self.kill()
            raise EngineTerminatedError("the engine's process has ended") from exc

    async def readline(self, timeout: float | None) -> str:
        """The engine's next line (without its end); the engine is killed and an error
        raised if none comes within ``timeout`` seconds or the process ends."""
        stdout = self.process.stdout
        assert stdout is not None
        try:
            raw = await asyncio.wait_for(stdout.readline(), timeout)
        except TimeoutError as exc:
            await self.kill()
            raise EngineTimeoutError(f"the engine gave no answer within {timeout} s") from exc
        except (ValueError, asyncio.LimitOverrunError) as exc:
            await self.kill()
            raise EngineOutputError("the engine wrote a line too long to read") from exc
        if not raw:
            await self.kill()
            raise EngineTerminatedError("the engine's process has ended")
        return raw.decode("utf-8", "replace").rstrip("\r\n")

    async def kill(self) -> None:
        """End the process now and reap it."""
        if self.alive:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        with contextlib.suppress(ProcessLookupError):
            await self.process.wait()
        _LIVE.discard(self.pid)

    async def close(self, lines: Sequence[str], grace: float = 2.0) -> None:
        """Ask the engine to quit with ``lines``; kill it if it has not within ``grace``."""
        if self.alive:
            with contextlib.suppress(EngineError, OSError):
                await self.send(lines)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), grace)
        await self.kill()


class ProcessProtocol(EngineProtocol):
    """An engine that is a long-lived child process: started on the first question, its
    ``hello`` lines sent first; killed and restarted (on the next question) when it ends or
    hangs, the question that met it raising :class:`EngineTerminatedError` or
    :class:`EngineTimeoutError`."""

    quit_lines: tuple[str, ...] = ("quit",)
    merge_errors = False

    def __init__(self, argv: Sequence[str], timeout: float | None = 60.0) -> None:
        super().__init__()
        self.argv = list(argv)
        self.timeout = timeout
        self.child: Child | None = None
        self.starts = 0

    async def hello(self, child: Child) -> None:
        """Bring a fresh process to where it answers questions (subclasses)."""

    async def running(self) -> Child:
        """The engine's live process, started (again) if need be."""
        if self.child is None or not self.child.alive:
            if self.child is not None:
                await self.child.kill()
            child = await Child.start(self.argv, self.merge_errors)
            self.child, self.starts = child, self.starts + 1
            try:
                await self.hello(child)
            except BaseException:
                await child.kill()
                raise
        return self.child

    def seconds(self, limit: Limit) -> float | None:
        """The seconds a question may take under ``limit``."""
        return limit.time if limit.time is not None else self.timeout

    async def exchange(
        self, lines: Sequence[str], limit: Limit, done: Callable[[str], bool]
    ) -> list[str]:
        """Send ``lines`` and read the answer up to and with the line ``done`` accepts,
        all within the limit's time (one question at a time)."""
        async with self.lock:
            child = await self.running()
            seconds = self.seconds(limit)
            loop = asyncio.get_running_loop()
            deadline = None if seconds is None else loop.time() + seconds
            try:
                await child.send(lines)
                out = []
                while True:
                    left = None if deadline is None else max(deadline - loop.time(), 0.001)
                    line = await child.readline(left)
                    out.append(line)
                    if done(line):
                        return out
            except asyncio.CancelledError:
                await child.kill()  # an answer half read would confuse the next question
                raise

    async def quit(self) -> None:
        if self.child is not None:
            await self.child.close(self.quit_lines)
            self.child = None
