"""Running trial batches: in this process, or on a pool of processes (one BLAS thread each).

A backend maps :func:`~backgammon.judging.rollout.engine.play_trials` over the batches and
yields the results in batch order, keeping only a few batches in flight so that a rollout
stopped at a target standard error wastes little work.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from typing import Protocol

from backgammon.judging.rollout.engine import RolloutJob, TrialResults, play_trials
from backgammon.players.neural import limit_blas_threads
from backgammon.workers import start_pool, stop_pool

__all__ = ["Backend", "InProcess", "ProcessPool", "local_backend"]

Batch = tuple[int, int]


class Backend(Protocol):
    """Plays batches ``(first trial, count)`` of a job and yields their results in order."""

    def run(self, job: RolloutJob, batches: Iterable[Batch]) -> Iterator[TrialResults]: ...


class InProcess:
    """Every batch in this process, one after the other."""

    def run(self, job: RolloutJob, batches: Iterable[Batch]) -> Iterator[TrialResults]:
        for first, count in batches:
            yield play_trials(job, first, count)


class ProcessPool:
    """Batches spread over ``workers`` processes."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers

    def run(self, job: RolloutJob, batches: Iterable[Batch]) -> Iterator[TrialResults]:
        pool = start_pool(self.workers, initializer=limit_blas_threads)
        pending: deque[Future[TrialResults]] = deque()
        finished = False
        try:
            todo = iter(batches)
            for first, count in todo:
                pending.append(pool.submit(play_trials, job, first, count))
                if len(pending) >= 2 * self.workers:
                    break
            while pending:
                yield pending.popleft().result()
                for first, count in todo:
                    pending.append(pool.submit(play_trials, job, first, count))
                    break
            finished = True
        finally:
            if finished:
                pool.shutdown()
            else:  # stopped early (a target reached, Ctrl-C, an error): no waiting on batches
                # Waiting for the pool's manager thread to let go of its pipes (a second or
                # less once the workers are killed) keeps the interpreter's exit handler
                # from waking it through a pipe it is closing (EBADF at exit on Ctrl-C).
                stop_pool(pool, wait=True)


def local_backend(workers: int | None = None) -> Backend:
    """In process for one worker, else a pool (default: one process per core)."""
    n = workers if workers is not None else (os.cpu_count() or 1)
    return InProcess() if n <= 1 else ProcessPool(n)
