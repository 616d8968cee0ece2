"""Worker processes, started one way for every part that thinks off the main process (the
web's bots, analyses and hints, local rollouts): spawned (a worker imports only what its task
needs and inherits no sockets or threads), at a lower CPU priority if asked, ended with their
parent however it ends (``kill -9`` included), and waited for within a time limit.

Built on :mod:`concurrent.futures`; it imports nothing else of the package.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

__all__ = ["WorkerTimeout", "result_within", "start_pool", "stop_pool", "wait_within"]

T = TypeVar("T")

WATCH_INTERVAL = 0.5
"""Seconds between a worker's looks at whether its parent is still there."""


class WorkerTimeout(TimeoutError):
    """A worker gave no answer within its time limit."""


def start_pool(
    workers: int, *, niceness: int = 0, initializer: Callable[[], object] | None = None
) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes, each ``niceness`` below this one's CPU
    priority and ending when this process ends; ``initializer`` (a module-level function)
    runs first in each."""
    if workers < 1:
        raise ValueError(f"a pool needs at least one worker, not {workers}")
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start,
        initargs=(os.getpid(), niceness, initializer),
    )


def _start(parent: int, niceness: int, initializer: Callable[[], object] | None) -> None:
    """In a new worker: lower its priority, watch its parent, then run ``initializer``."""
    if niceness:
        os.nice(niceness)
    threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    if initializer is not None:
        initializer()


def _watch(parent: int) -> None:
    """Exit the worker as soon as ``parent`` is no longer its parent (it died)."""
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL)
    os._exit(0)


def stop_pool(pool: ProcessPoolExecutor, *, wait: bool = False) -> None:
    """Stop ``pool`` now, killing its workers: a task already running cannot be cancelled,
    and a stuck or broken pool must not keep its processes.  With ``wait`` (at shutdown),
    wait for its manager thread to close its queues and let go of them (their semaphores
    are then removed; the executor itself forgets them at once):
    a process ended by a signal runs no exit handlers, which would have removed them, and
    the resource tracker warns of them as leaked."""
    handles = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in handles:
        process.kill()
    if wait:
        for process in handles:
            process.join(5)
        if manager is not None:  # it closes the queues once it sees the workers gone
            manager.join(5)


async def result_within(future: Future[T], seconds: float) -> T:
    """The result of a worker's ``future``, or :class:`WorkerTimeout` after ``seconds`` (the
    work goes on: stop the pool to end it)."""
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), seconds)
    except TimeoutError as exc:
        raise WorkerTimeout(f"no answer within {seconds:g} s") from exc


def wait_within(future: Future[T], seconds: float) -> T:
    """:func:`result_within` for a caller that is not a coroutine."""
    try:
        return future.result(timeout=seconds)
    except TimeoutError as exc:
        raise WorkerTimeout(f"no answer within {seconds:g} s") from exc
