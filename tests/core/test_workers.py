"""The one way worker processes start: at the priority asked, running their initializer,
ending with their parent however it ends, and waited for within a time limit."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from backgammon.workers import WorkerTimeout, result_within, start_pool, stop_pool, wait_within

_MARK = "BACKGAMMON_TEST_INITIALIZED"


def _niceness() -> int:
    return os.nice(0)


def _pid() -> int:
    return os.getpid()


def _initialized() -> str | None:
    return os.environ.get(_MARK)


def _set_mark() -> None:
    os.environ[_MARK] = "yes"


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_a_worker_runs_at_the_priority_asked_and_after_its_initializer() -> None:
    pool = start_pool(1, niceness=5, initializer=_set_mark)
    try:
        assert wait_within(pool.submit(_niceness), 60) == os.nice(0) + 5
        assert wait_within(pool.submit(_initialized), 60) == "yes"
        assert wait_within(pool.submit(_pid), 60) != os.getpid()
    finally:
        stop_pool(pool)
    assert _initialized() is None  # the initializer ran in the worker only


def test_a_pool_has_at_least_one_worker() -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        start_pool(0)


def test_a_time_limit_raises_and_stopping_ends_the_stuck_worker() -> None:
    pool = start_pool(1)
    pid = wait_within(pool.submit(_pid), 60)
    with pytest.raises(WorkerTimeout, match=r"no answer within 0\.2 s"):
        wait_within(pool.submit(_sleep, 30), 0.2)
    with pytest.raises(WorkerTimeout):
        asyncio.run(result_within(pool.submit(_sleep, 30), 0.2))
    stop_pool(pool)
    assert _gone(pid, within=10)


def test_workers_end_when_their_parent_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import os, time
                from pathlib import Path
                from backgammon.workers import start_pool, wait_within
                from test_workers import _pid
                pool = start_pool(2)
                pids = {{wait_within(pool.submit(_pid), 60) for _ in range(8)}}
                Path({str(pid_file)!r}).write_text(" ".join(map(str, pids)))
                time.sleep(600)
                """
            ),
        ],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)},
    )
    try:
        deadline = time.monotonic() + 90
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the workers never answered"
            assert parent.poll() is None, "the parent process ended early"
            time.sleep(0.1)
        workers = [int(p) for p in pid_file.read_text().split()]
        assert workers and all(_alive(p) for p in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert all(_gone(p, within=10) for p in workers)
    finally:
        if parent.poll() is None:
            parent.kill()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (ended, not yet reaped by init) counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False
