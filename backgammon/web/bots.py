"""Bots off the event loop: each decision runs in a pool of worker processes, with a time
limit and retries, so a slow or crashing bot never holds up the server or its other matches.

The pool is shared by every application in one process (tests build many) and started with
``spawn``: a worker imports only what the bot needs and never inherits the server's sockets.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from backgammon.web.game import Game, warm_up

__all__ = ["BotFailed", "BotPool"]

_log = logging.getLogger("backgammon.web")

_executors: dict[int, ProcessPoolExecutor] = {}

Decider = Callable[[str, Game], dict[str, Any]]


class BotFailed(RuntimeError):
    """The bot gave no answer after every attempt (it raised, crashed or ran out of time)."""


def _executor(processes: int) -> ProcessPoolExecutor:
    pool = _executors.get(processes)
    if pool is None:
        context = multiprocessing.get_context("spawn")
        pool = _executors[processes] = ProcessPoolExecutor(processes, mp_context=context)
    return pool


def _discard(processes: int, pool: ProcessPoolExecutor) -> None:
    """Stop a pool whose worker hangs or died (a running task cannot be cancelled)."""
    if _executors.get(processes) is pool:
        del _executors[processes]
    workers = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.kill()


class BotPool:
    """Bot decisions in ``processes`` worker processes: each attempt has ``timeout``
    seconds, and a failure is tried again up to ``attempts`` times in all."""

    def __init__(self, processes: int = 2, timeout: float = 10.0, attempts: int = 3) -> None:
        if processes < 1 or timeout <= 0 or attempts < 1:
            raise ValueError("a bot pool needs >= 1 process, a positive timeout, >= 1 attempt")
        self.processes, self.timeout, self.attempts = processes, timeout, attempts

    def warm(self, bots: list[str]) -> None:
        """Start the workers and load the bots' networks before the first match needs them."""
        pool = _executor(self.processes)
        for _ in range(self.processes):
            pool.submit(warm_up, bots)

    async def decide(self, decider: Decider, bot: str, game: Game) -> dict[str, Any]:
        """``decider(bot, game)`` run in a worker; :class:`BotFailed` after every attempt."""
        problem = "no attempt"
        for attempt in range(self.attempts):
            pool = _executor(self.processes)
            try:
                future = pool.submit(decider, bot, game.copy(dice=False))
                return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout)
            except TimeoutError:
                problem = f"no answer within {self.timeout:g} s"
                _discard(self.processes, pool)
            except BrokenProcessPool:
                problem = "its worker process died"
                _discard(self.processes, pool)
            except Exception as exc:  # the bot's own error, raised in the worker
                problem = f"{type(exc).__name__}: {exc}"
            _log.warning("bot %s, attempt %d: %s", bot, attempt + 1, problem)
            await asyncio.sleep(0.05 * 2**attempt)
        raise BotFailed(f"the {bot} bot failed {self.attempts} times ({problem})")
