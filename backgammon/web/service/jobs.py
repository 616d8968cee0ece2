"""The one pool of worker processes the web thinks in (bots, analyses, hints, rollouts): each
kind of job has its own :class:`WorkerPool`, but every pool lives the same way: started on
first use by :func:`backgammon.workers.start_pool` at a lower priority, replaced when a worker
dies or hangs, and stopped with the server (:func:`shutdown`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from backgammon.workers import start_pool, stop_pool

__all__ = ["NICENESS", "WorkerPool", "shared", "shutdown"]

T = TypeVar("T")

NICENESS = 10
"""How much lower than the server a worker's CPU priority is: on a busy machine people's
requests are answered first and the workers think with the time left."""

_lock = threading.RLock()
_open: list[WorkerPool] = []
"""Every pool of this process that may hold workers, for :func:`shutdown`."""
_shared: dict[str, WorkerPool] = {}

Warm = tuple[Callable[..., Any], tuple[Any, ...]]
"""A function run once in each new worker, and its arguments."""


class WorkerPool:
    """``processes`` worker processes started when first needed, ``niceness`` below the
    server's priority; ``warm`` (a module-level function and its arguments) runs once in each
    new worker before it takes jobs."""

    def __init__(
        self, processes: int = 1, warm: Warm | None = None, niceness: int = NICENESS
    ) -> None:
        if processes < 1:
            raise ValueError(f"a worker pool needs at least one process, not {processes}")
        self.processes, self.warm, self.niceness = processes, warm, niceness
        self._executor: ProcessPoolExecutor | None = None
        self.warming: list[Future[Any]] = []
        self._submitted: list[Future[Any]] = []

    def executor(self) -> ProcessPoolExecutor:
        """The running executor, started (each worker warming up) if there is none."""
        with _lock:
            if self._executor is None:
                self._executor = start_pool(self.processes, niceness=self.niceness)
                if self.warm is not None:
                    fn, args = self.warm
                    self.warming = [self._executor.submit(fn, *args) for _ in range(self.processes)]
                if self not in _open:
                    _open.append(self)
            return self._executor

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """``fn(*args)`` in a worker; a pool whose worker died is replaced once."""
        executor = self.executor()
        try:
            future = executor.submit(fn, *args)
        except BrokenProcessPool:
            self.discard(executor)
            future = self.executor().submit(fn, *args)
        with _lock:
            self._submitted = [f for f in self._submitted if not f.done()]
            self._submitted.append(future)
        return future

    def ahead(self, future: Future[Any]) -> int:
        """How many jobs submitted here before ``future`` are still unfinished (0: it is
        next or running: its place in the queue)."""
        with _lock:
            if future not in self._submitted:
                return 0
            before = self._submitted[: self._submitted.index(future)]
            return sum(not f.done() for f in before)

    def discard(self, executor: ProcessPoolExecutor | None = None, *, wait: bool = False) -> None:
        """Stop the workers (of ``executor`` if it is still this pool's): a worker that hangs,
        died or runs a job no longer wanted cannot be stopped otherwise."""
        with _lock:
            current = self._executor
            if current is None or (executor is not None and executor is not current):
                if executor is not None:
                    stop_pool(executor, wait=wait)
                return
            self._executor, self.warming = None, []
        stop_pool(current, wait=wait)

    def close(self) -> None:
        """Stop the workers and wait for them (the server is ending)."""
        self.discard(wait=True)


def shared(
    name: str, processes: int = 1, warm: Warm | None = None, niceness: int = NICENESS
) -> WorkerPool:
    """The pool ``name`` of this process, shared by every application in it (tests build
    many), made on first use."""
    with _lock:
        pool = _shared.get(name)
        if pool is None:
            pool = _shared[name] = WorkerPool(processes, warm, niceness)
        return pool


def shutdown() -> None:
    """Stop every pool of this process (the server is ending)."""
    with _lock:
        pools = list(_open)
        _open.clear()
    for pool in pools:
        pool.close()
