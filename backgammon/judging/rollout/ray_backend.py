"""The same trial batches as Ray tasks, on an existing Ray cluster (``pip install
'backgammon[cluster]'``).

Each task plays one batch with :func:`~backgammon.judging.rollout.engine.play_trials`; the
batches and their order are those of the local pool, so the numbers are identical.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from backgammon.judging.rollout.engine import RolloutJob, TrialResults, play_trials

__all__ = ["RayBackend", "RayUnavailableError"]

Batch = tuple[int, int]


class RayUnavailableError(ValueError):
    """Ray is not installed (``pip install 'backgammon[cluster]'``)."""


def _play(job: RolloutJob, first: int, count: int) -> TrialResults:
    from backgammon.players.neural import limit_blas_threads

    limit_blas_threads()
    return play_trials(job, first, count)


class RayBackend:
    """Batches as Ray tasks.  ``address`` is a cluster's address (``auto`` for the one this
    machine belongs to); None uses a Ray already initialised in this process."""

    def __init__(self, address: str | None = None, in_flight: int | None = None) -> None:
        try:
            import ray
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise RayUnavailableError(
                "the Ray backend needs ray: pip install 'backgammon[cluster]'"
            ) from exc
        self._ray: Any = ray
        if not ray.is_initialized():
            ray.init(address=address, log_to_driver=False)
        self._remote = ray.remote(num_cpus=1)(_play)
        cpus = int(self._ray.cluster_resources().get("CPU", 1))
        self.in_flight = in_flight or 2 * max(1, cpus)

    def run(self, job: RolloutJob, batches: Iterable[Batch]) -> Iterator[TrialResults]:
        ray = self._ray
        job_ref = ray.put(job)
        pending: deque[Any] = deque()
        todo = iter(batches)
        try:
            for first, count in todo:
                pending.append(self._remote.remote(job_ref, first, count))
                if len(pending) >= self.in_flight:
                    break
            while pending:
                result: TrialResults = ray.get(pending.popleft())
                yield result
                for first, count in todo:
                    pending.append(self._remote.remote(job_ref, first, count))
                    break
        finally:
            for ref in pending:
                ray.cancel(ref)
