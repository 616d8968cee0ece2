"""Start-up: ``backgammon --help`` and a first hint, each a whole new process, beside GNU
Backgammon's ``gnubg --help`` and its start-up with one hint, in one run.

    python bench/startup.py [--runs 5] [--ply 0] [--id 4HPwATDgc/ABMA] [--dice 31]

Ours is ``python -m backgammon`` from this interpreter; gnubg's is Debian
``/usr/games/gnubg`` (``--help``; and ``-t -q`` reading a script that sets the board and
dice and asks ``hint 5`` at the same plies, then quits).  Each is run ``--runs`` times and
the best wall time and the best CPU time (user + system of the process) are printed, with
the ratio ours / gnubg.  The best of several runs, because the machine is shared.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

GNUBG = "/usr/games/gnubg"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(command: list[str], runs: int, stdin: str = "") -> tuple[float, float, str]:
    """Best wall and best CPU seconds of ``runs`` runs of ``command``, and its last output."""
    walls, cpus, out = [], [], ""
    for _ in range(runs):
        cpu, wall = _children_cpu(), time.perf_counter()
        done = subprocess.run(
            command, input=stdin, capture_output=True, text=True, timeout=600, check=True
        )
        walls.append(time.perf_counter() - wall)
        cpus.append(_children_cpu() - cpu)
        out = done.stdout
    return min(walls), min(cpus), out


def gnubg_hint_script(position_id: str, dice: str, ply: int) -> str:
    """gnubg's commands for one hint of ``dice`` in ``position_id`` at ``ply`` plies."""
    return "\n".join(
        [
            "set threads 1",
            "set player 0 human",
            "set player 1 human",
            f"set evaluation chequerplay evaluation plies {ply}",
            "new game",
            "set turn 1",
            f"set board {position_id}",
            f"set dice {dice[0]} {dice[1]}",
            "hint 5",
            "quit",
            "",
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ply", type=int, default=0)
    ap.add_argument("--id", default="4HPwATDgc/ABMA", help="a Position ID")
    ap.add_argument("--dice", default="31")
    args = ap.parse_args()
    ours = [sys.executable, "-m", "backgammon"]
    hint = [*ours, "hint", args.id, "--dice", args.dice, "--ply", str(args.ply)]
    script = gnubg_hint_script(args.id, args.dice, args.ply)
    rows = [
        ("--help", timed([*ours, "--help"], args.runs), timed([GNUBG, "--help"], args.runs)),
        (
            f"first {args.ply}-ply hint",
            timed(hint, args.runs),
            timed([GNUBG, "-t", "-q"], args.runs, script),
        ),
    ]
    if f"Cubeful {args.ply}-ply" not in rows[1][2][2]:
        raise RuntimeError(f"no {args.ply}-ply hint in gnubg's output:\n{rows[1][2][2][-2000:]}")
    print(f"best of {args.runs} runs, each a new process; seconds (ratio ours / gnubg)")
    print(
        f"{'':18} {'ours wall':>10} {'gnubg wall':>11} {'ratio':>6}   {'ours CPU':>9} "
        f"{'gnubg CPU':>10} {'ratio':>6}"
    )
    for name, (wall, cpu, _), (g_wall, g_cpu, _) in rows:
        print(
            f"{name:18} {wall:10.3f} {g_wall:11.3f} {wall / g_wall:6.1f}   {cpu:9.3f} "
            f"{g_cpu:10.3f} {cpu / g_cpu:6.1f}"
        )


if __name__ == "__main__":
    main()
