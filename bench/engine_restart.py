"""1,000 consecutive engine calls with a ``kill -9`` of the engine in the middle: every call
answers or raises the documented error, and no child process is left.

    python bench/engine_restart.py [--calls 1000] [--engine gnubg:0]

Each call evaluates a position (or, for an engine without evaluations, chooses a play of
31); at half way the engine's process is killed with SIGKILL.  Printed: calls answered,
calls that raised :class:`~backgammon.engine.EngineTerminatedError` (or timed out), any
other error, the processes the engine was started in, and whether any is still alive
after closing.
"""

from __future__ import annotations

import argparse
import os
import signal
import time

from backgammon import Position
from backgammon.engine import (
    EngineCapabilityError,
    EngineTerminatedError,
    EngineTimeoutError,
    open_engine,
)
from backgammon.engine.process import ProcessProtocol, live_children


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--engine", default="gnubg:0")
    args = ap.parse_args()
    answered = raised = other = 0
    pids: set[int] = set()
    start = time.perf_counter()
    engine = open_engine(args.engine)
    protocol = engine.protocol
    if not isinstance(protocol, ProcessProtocol):
        raise SystemExit(f"{args.engine} is not a child process")
    pos = Position.initial()
    try:
        evaluates = True
        for i in range(args.calls):
            if protocol.child is not None:
                pids.add(protocol.child.pid)
            if i == args.calls // 2 and protocol.child is not None:
                os.kill(protocol.child.pid, signal.SIGKILL)
            try:
                if evaluates:
                    try:
                        engine.evaluate(pos)
                    except EngineCapabilityError:
                        evaluates = False
                        engine.choose(pos, (3, 1))
                else:
                    engine.choose(pos, (3, 1))
                answered += 1
            except (EngineTerminatedError, EngineTimeoutError):
                raised += 1
            except Exception as exc:  # counted: the bench reports any other error
                other += 1
                print(f"call {i}: {type(exc).__name__}: {exc}")
    finally:
        engine.close()
    time.sleep(0.5)
    left = sorted(p for p in pids if _alive(p)) + sorted(live_children())
    print(
        f"{args.calls} calls to {args.engine} in {time.perf_counter() - start:.1f} s: "
        f"{answered} answered, {raised} raised EngineTerminatedError, {other} other errors; "
        f"{len(pids)} engine processes started, {len(left)} left alive"
    )


if __name__ == "__main__":
    main()
