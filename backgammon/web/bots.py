"""Bots off the event loop: each decision runs in a pool of worker processes, with a time
limit and retries, so a slow or crashing bot never holds up the server or its other matches.

The pool is shared by every application in one process (tests build many) and started by
:func:`backgammon.workers.start_pool`: spawned, at a lower priority, ending with the server.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from backgammon.web.game import Game, warm_up
from backgammon.web.schemas import DEFAULT_BOT
from backgammon.workers import result_within, start_pool, stop_pool

__all__ = ["BotFailed", "BotPool", "shutdown_bots"]

_log = logging.getLogger("backgammon.web")

NICENESS = 10
"""How much lower than the server a worker's CPU priority is: on a busy machine people's
requests are answered first and the bots think with the time left."""

STARTUP = 120.0
"""Seconds a new worker may take to start and load its bot (not counted as thinking)."""


@dataclass
class _Pool:
    executor: ProcessPoolExecutor
    warming: list[Future[None]]


_pools: dict[int, _Pool] = {}

Decider = Callable[[str, Game], dict[str, Any]]


class BotFailed(RuntimeError):
    """The bot gave no answer after every attempt (it raised, crashed or ran out of time)."""


def _pool(processes: int) -> _Pool:
    """The shared pool of ``processes`` workers, started (and each worker warming up) if new."""
    pool = _pools.get(processes)
    if pool is None:
        executor = start_pool(processes, niceness=NICENESS)
        warming = [executor.submit(warm_up, [DEFAULT_BOT]) for _ in range(processes)]
        pool = _pools[processes] = _Pool(executor, warming)
    return pool


def _discard(processes: int, pool: _Pool) -> None:
    """Stop a pool whose worker hangs or died (a running task cannot be cancelled)."""
    if _pools.get(processes) is pool:
        del _pools[processes]
    stop_pool(pool.executor)


def shutdown_bots() -> None:
    """Stop every bot pool of this process and release its queues (the server is ending)."""
    while _pools:
        _processes, pool = _pools.popitem()
        stop_pool(pool.executor, wait=True)


class BotPool:
    """Bot decisions in ``processes`` worker processes: each attempt has ``timeout``
    seconds, and a failure is tried again up to ``attempts`` times in all."""

    def __init__(self, processes: int = 2, timeout: float = 10.0, attempts: int = 3) -> None:
        if processes < 1 or timeout <= 0 or attempts < 1:
            raise ValueError("a bot pool needs >= 1 process, a positive timeout, >= 1 attempt")
        self.processes, self.timeout, self.attempts = processes, timeout, attempts

    def warm(self) -> None:
        """Start the workers and load the default bot before the first match needs it."""
        _pool(self.processes)

    async def decide(self, decider: Decider, bot: str, game: Game) -> dict[str, Any]:
        """``decider(bot, game)`` run in a worker; :class:`BotFailed` after every attempt."""
        problem = "no attempt"
        for attempt in range(self.attempts):
            pool = _pool(self.processes)
            try:
                if not all(f.done() for f in pool.warming):  # a new worker is not thinking yet
                    warming = [asyncio.wrap_future(f) for f in pool.warming]
                    await asyncio.wait_for(asyncio.gather(*warming), STARTUP)
                future = pool.executor.submit(decider, bot, game.copy(dice=False))
                return await result_within(future, self.timeout)
            except TimeoutError:  # the warm-up's or the decision's (WorkerTimeout)
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
