"""How rollouts scale: trials 144 -> 1,296 -> 10,000 beside gnubg's, workers 1 -> 2, and a
Ray cluster of two local nodes, the numbers identical everywhere.

    python bench/rollout_scaling.py [--trials 144 1296 10000] [--truncate 7] [--no-vr]
                                    [--workers-trials 1296] [--no-ray] [--gnubg-max N]

Position: after the opening 3-1 (8/5 6/5), cubeless 0-ply, quasi-random dice, seed 1, as
``bench/rollout.py``.  Speeds are trials per CPU-second (ours: this process and its workers;
gnubg: its run less that of the same script without the rollout) and, for the workers and
Ray, trials per wall-clock second.
"""

from __future__ import annotations

import argparse
import resource
import time

from rollout import OPENINGS, gnubg_rollout, position_after

from backgammon.core.position import Position
from backgammon.judging.rollout import RolloutSettings, rollout


def cpu() -> float:
    """CPU seconds of this process and of its finished children (the worker processes)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, nargs="+", default=[144, 1296, 10000])
    ap.add_argument("--truncate", type=int, default=7, help="plies (0: to the end)")
    ap.add_argument("--no-vr", dest="vr", action="store_false")
    ap.add_argument("--workers-trials", type=int, default=1296)
    ap.add_argument("--no-ray", dest="ray", action="store_false")
    ap.add_argument("--gnubg-max", type=int, default=10000, help="gnubg only up to these trials")
    args = ap.parse_args()
    pos = position_after(OPENINGS[0])
    rollout(Position.initial(), settings=RolloutSettings(trials=2, truncate=1))  # warm up

    def settings(trials: int) -> RolloutSettings:
        return RolloutSettings(
            trials=trials, truncate=args.truncate, variance_reduction=args.vr, seed=1
        )

    print(
        f"{pos.position_id()} cubeless 0-ply, truncated at {args.truncate or 'end'}, "
        f"VR {'on' if args.vr else 'off'}"
    )
    print(f"{'trials':>7} {'ours':>16} {'gnubg':>16} {'ours t/s':>9} {'gnubg t/s':>9} {'ratio':>6}")
    for trials in args.trials:
        c0 = cpu()
        c = rollout(pos, settings=settings(trials), workers=1).candidates[0]
        t = cpu() - c0
        if trials > args.gnubg_max:
            print(f"{trials:>7} {c.equity:+.4f} ± {c.se:.4f} {'':>16} {trials / t:9.1f}")
            continue
        g_eq, g_se, g_t = gnubg_rollout(pos, trials, args.truncate, args.vr)
        print(
            f"{trials:>7} {c.equity:+.4f} ± {c.se:.4f} {g_eq:+.4f} ± {g_se:.4f} "
            f"{trials / t:9.1f} {trials / g_t:9.1f} {(trials / t) / (trials / g_t):6.2f}"
        )
    n = args.workers_trials
    runs: list[tuple[str, float, float, float]] = []
    for label, kw in (("1 worker", {"workers": 1}), ("2 workers", {"workers": 2})):
        c0, w0 = cpu(), time.perf_counter()
        c = rollout(pos, settings=settings(n), **kw).candidates[0]  # type: ignore[arg-type]
        runs.append((label, c.equity, time.perf_counter() - w0, cpu() - c0))
    if args.ray:
        import ray
        from ray.cluster_utils import Cluster

        from backgammon.judging.rollout.ray_backend import RayBackend

        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False)
        backend = RayBackend()
        rollout(pos, settings=RolloutSettings(trials=4, truncate=1), backend=backend)  # warm up
        w0 = time.perf_counter()
        c = rollout(pos, settings=settings(n), backend=backend).candidates[0]
        runs.append(("Ray, 2 local nodes", c.equity, time.perf_counter() - w0, float("nan")))
        ray.shutdown()
        cluster.shutdown()
    base = runs[0][2]
    print(f"\n{n} trials: {'':<18} {'equity':>10} {'wall t/s':>9} {'CPU t/s':>8} {'speed-up':>8}")
    for label, eq, wall, used in runs:
        print(
            f"{'':>13}{label:<19} {eq:+.6f} {n / wall:9.1f} {n / used:8.1f} {base / wall:7.2f}x"
            f"  {'same' if eq == runs[0][1] else 'DIFFERENT'}"
        )


if __name__ == "__main__":
    main()
