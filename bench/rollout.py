"""Rollout speed and agreement: our rollouts beside GNU Backgammon's of the same positions at
the same settings, in one run.

    python bench/rollout.py [--trials 144] [--truncate 7] [--no-vr] [--cubeful] [--ply 0]
                            [--no-bearoff-truncation] [--positions 4] [--scaling-trials 576]

For each position (the side on roll's view, no dice) it rolls out at 0 ply (cubeless, or
with ``--cubeful`` cubeful: a centred money cube, no Jacoby rule, both bots doubling) with our
engine in one process and with Debian's ``/usr/games/gnubg`` (``rollout``, one thread, the
same trials, truncation, variance reduction and quasi-random dice; both stop at the bear-off
databases as gnubg does by default, unless ``--no-bearoff-truncation``) and prints both equities
with their standard errors and both speeds in trials per CPU-second, with the ratio (CPU
time, as the machine may be shared: ours in this process, gnubg's its whole run less that of
the same script without the rollout).  Then it times (wall clock) our rollout of the first
position on one and on two worker processes (the scaling).
gnubg prints rollout results only to a terminal, so it runs under ``script`` (a pseudo-tty).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import resource
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from backgammon.core.position import Position
from backgammon.judging.rollout import RolloutSettings, rollout

GNUBG = "/usr/games/gnubg"

# Positions reached by well-known openings (the side to move after them is on roll).
OPENINGS = [
    ["31: 8/5 6/5"],
    ["65: 24/13"],
    ["42: 8/4 6/4", "64: 24/18 13/9"],
    ["31: 8/5 6/5", "52: 13/8 13/11", "33: 8/5(2) 6/3(2)"],
    ["64: 24/14", "21: 13/11 6/5", "55: 8/3(2) 6/1(2)"],
    ["63: 24/18 13/10", "61: 13/7 8/7", "41: 24/23 13/9", "22: 6/4(2) 4/2(2)"],
]


def position_after(plays: list[str]) -> Position:
    pos = Position.initial()
    for text in plays:
        roll, move = text.split(": ")
        dice = (int(roll[0]), int(roll[1]))
        pos = pos.play(pos.parse_move(move, dice))
    return pos


def gnubg_script(
    position_id: str,
    trials: int,
    truncate: int,
    vr: bool,
    roll: bool,
    cubeful: bool = False,
    bearoff: bool = True,
    plies: int = 0,
) -> str:
    lines = [
        "set jacoby off",
        f"set rollout trials {trials}",
        f"set rollout truncation enable {'on' if truncate else 'off'}",
        f"set rollout truncation plies {truncate or 7}",
        f"set rollout cubeful {'on' if cubeful else 'off'}",
        f"set rollout varredn {'on' if vr else 'off'}",
        "set rollout quasirandom on",
        f"set rollout bearofftruncation exact {'on' if bearoff else 'off'}",
        f"set rollout bearofftruncation onesided {'on' if bearoff else 'off'}",
        f"set rollout chequerplay plies {plies}",
        f"set rollout cubedecision plies {plies}",
        "set rollout later enable off",
        "set rollout seed 1",
        "set threads 1",
        "new game",
        "set turn 1",
        f"set board {position_id}",
    ]
    if roll:
        lines.append("rollout")
    return "\n".join(lines) + "\n"


_RESULT = re.compile(
    r"Rollout done.*?Current Position:\s+([\d.]+) ([\d.]+) ([\d.]+) - [\d.]+ ([\d.]+) ([\d.]+)"
    r" CL ([+-][\d.]+)(?: CF ([+-][\d.]+))?\s+\[.*? CL\s+([\d.]+)(?: CF\s+([\d.]+))?\]",
    re.S,
)


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_gnubg(script: str) -> tuple[float, str]:
    """gnubg's CPU seconds (it waits between progress reports, so not the wall time) and
    its output."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(script)
        name = f.name
    start = _children_cpu()
    done = subprocess.run(
        ["script", "-q", "-c", f"{GNUBG} -t -q < {name}", "/dev/null"],
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    elapsed = _children_cpu() - start
    Path(name).unlink()
    return elapsed, done.stdout.replace("\r", "")


def gnubg_rollout(
    pos: Position,
    trials: int,
    truncate: int,
    vr: bool,
    cubeful: bool = False,
    bearoff: bool = True,
    plies: int = 0,
) -> tuple[float, float, float]:
    """gnubg's equity (cubeless, or cubeful), its SE, and the seconds the rollout took."""
    pid = pos.position_id()
    base, _ = run_gnubg(gnubg_script(pid, trials, truncate, vr, False, cubeful, bearoff, plies))
    total, out = run_gnubg(gnubg_script(pid, trials, truncate, vr, True, cubeful, bearoff, plies))
    m = _RESULT.search(out)
    if m is None or (cubeful and m.group(7) is None):
        raise RuntimeError(f"no rollout result in gnubg's output:\n{out[-2000:]}")
    equity, se = (m.group(7), m.group(9)) if cubeful else (m.group(6), m.group(8))
    return float(equity), float(se), max(total - base, 1e-3)


def ours(
    pos: Position, settings: RolloutSettings, workers: int, clock: Callable[[], float]
) -> tuple[float, float, float]:
    """Our equity, its SE and the seconds on ``clock``."""
    start = clock()
    r = rollout(pos, settings=settings, workers=workers)
    elapsed = clock() - start
    c = r.candidates[0]
    return c.equity, c.se, elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=144)
    ap.add_argument("--truncate", type=int, default=7, help="plies (0: to the end)")
    ap.add_argument("--no-vr", dest="vr", action="store_false")
    ap.add_argument("--cubeful", action="store_true", help="cubeful (centred money cube)")
    ap.add_argument(
        "--no-bearoff-truncation",
        dest="bearoff",
        action="store_false",
        help="both play bear-offs out (default: both stop at the databases, gnubg's default)",
    )
    ap.add_argument("--ply", type=int, default=0, help="both bots' lookahead (0, 1, 2)")
    ap.add_argument("--positions", type=int, default=4)
    ap.add_argument("--scaling-trials", type=int, default=576, help="trials of the 1 vs 2 run")
    args = ap.parse_args()
    settings = RolloutSettings(
        trials=args.trials,
        truncate=args.truncate,
        variance_reduction=args.vr,
        cubeful=args.cubeful,
        seed=1,
        bearoff_truncation=args.bearoff,
        plies=args.ply,
    )
    rollout(Position.initial(), settings=RolloutSettings(trials=2, truncate=1))  # warm up
    print(
        f"{'cubeful' if args.cubeful else 'cubeless'} {args.ply}-ply rollouts, "
        f"{args.trials} trials, "
        f"truncated at {args.truncate or 'end'}, "
        f"variance reduction {'on' if args.vr else 'off'}, quasi-random dice, "
        f"bear-off truncation {'on' if args.bearoff else 'off'}"
    )
    print(
        f"{'position':<16} {'ours':>15} {'gnubg':>15} {'diff':>7}"
        f" {'ours t/s':>9} {'gnubg t/s':>9} {'ratio':>6}"
    )
    ratios = []
    for plays in OPENINGS[: args.positions]:
        pos = position_after(plays)
        eq, se, t = ours(pos, settings, 1, time.process_time)
        g_eq, g_se, g_t = gnubg_rollout(
            pos, args.trials, args.truncate, args.vr, args.cubeful, args.bearoff, args.ply
        )
        ratio = (args.trials / t) / (args.trials / g_t)
        ratios.append(ratio)
        print(
            f"{pos.position_id():<16} {eq:+.3f} ± {se:.3f} {g_eq:+.3f} ± {g_se:.3f} "
            f"{eq - g_eq:+.3f} {args.trials / t:9.1f} {args.trials / g_t:9.1f} {ratio:6.2f}"
        )
    print(f"speed ours / gnubg (per core): mean {sum(ratios) / len(ratios):.2f}")
    pos = position_after(OPENINGS[0])
    more = dataclasses.replace(settings, trials=args.scaling_trials)
    _, _, t1 = ours(pos, more, 1, time.perf_counter)
    _, _, t2 = ours(pos, more, 2, time.perf_counter)
    print(
        f"scaling, {more.trials} trials: 1 worker {more.trials / t1:.1f} t/s, "
        f"2 workers {more.trials / t2:.1f} t/s, speed-up {t1 / t2:.2f}x"
    )


if __name__ == "__main__":
    main()
