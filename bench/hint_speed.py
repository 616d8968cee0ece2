"""2-ply hint time: ours beside GNU Backgammon's ``hint`` on the same positions and rolls, in
one run.

    python bench/hint_speed.py [--positions 40] [--ply 2] [--seed 1] [--prune N] [--compare]

Positions with their rolls come from self-play of our 0-ply bot (only rolls with more than
one legal play).  Ours is what ``backgammon hint ID --dice DD --ply N`` computes (the five
best plays, cubeful, money cube centred), timed in this process in CPU seconds after one
hint to warm up; gnubg's is Debian ``/usr/games/gnubg -t -q`` setting each board and roll
and asking ``hint 5`` at the same plies (its default filters and pruning nets), its CPU
time less that of the same script without the hints (its start-up).  Prints both per hint
and the ratio ours / gnubg.  ``--prune N`` sets the plays a roll our lookahead judges with
the full net (the player's default otherwise; 0: all); ``--compare`` also prints how often
the pruned hint's best play is the full search's, and how far its equities are from it.
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import time

from backgammon import Position
from backgammon.cli.advice import hint_lines
from backgammon.evaluation.cube import CubeState
from backgammon.judging.evaluate import best_plays
from backgammon.players import get

GNUBG = "/usr/games/gnubg"


def cases(n: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """``n`` positions with a roll that has a choice, from self-play (every third kept, so
    consecutive ones are less alike)."""
    rng = random.Random(seed)
    bot = get("neural", plies=0)
    out: list[tuple[Position, tuple[int, int]]] = []
    pos, k = Position.initial(), 0
    while len(out) < n:
        if pos.is_game_over():
            pos = Position.initial()
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        moves = pos.legal_moves(dice)
        k += 1
        if len(moves) > 1 and k % 3 == 0:
            out.append((pos, dice))
        move = bot.choose_move(pos, dice)
        pos = pos.flip() if move is None else pos.play(move)
    return out


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_gnubg(lines: list[str]) -> tuple[float, str]:
    """gnubg's CPU seconds for a script, and its output."""
    start = _children_cpu()
    done = subprocess.run(
        [GNUBG, "-t", "-q"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=3600,
        check=True,
    )
    return _children_cpu() - start, done.stdout


def gnubg(todo: list[tuple[Position, tuple[int, int]]], ply: int) -> float:
    """gnubg's CPU seconds for the hints alone."""
    head = [
        "set threads 1",
        "set player 0 human",
        "set player 1 human",
        f"set evaluation chequerplay evaluation plies {ply}",
        "new game",
        "set turn 1",
    ]

    def script(hint: bool) -> list[str]:
        lines = list(head)
        for pos, (d1, d2) in todo:
            lines += [f"set board {pos.position_id()}", f"set dice {d1} {d2}"]
            if hint:
                lines.append("hint 5")
        return lines

    base, _ = run_gnubg(script(False))
    total, out = run_gnubg(script(True))
    found = out.count(f"Cubeful {ply}-ply")
    if not found:
        raise RuntimeError(f"no {ply}-ply hint in gnubg's output:\n{out[-2000:]}")
    return total - base


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--prune", type=int, default=None, help="plays a roll (0: all)")
    ap.add_argument("--compare", action="store_true", help="against the unpruned search")
    args = ap.parse_args()
    todo = cases(args.positions + 1, args.seed)
    options = {} if args.prune is None else {"prune": args.prune}
    bot = get("neural", plies=args.ply, **options)
    warm, todo = todo[0], todo[1:]
    hint_lines(bot, warm[0], warm[1], cube=CubeState())
    start = time.process_time()
    for pos, dice in todo:
        hint_lines(bot, pos, dice, cube=CubeState())
    ours = time.process_time() - start
    theirs = gnubg(todo, args.ply)
    n = len(todo)
    print(f"{n} positions with a choice (seed {args.seed}), {args.ply}-ply hint, 5 plays")
    print(f"ours:  {1000 * ours / n:8.1f} ms CPU per hint")
    print(f"gnubg: {1000 * theirs / n:8.1f} ms CPU per hint")
    print(f"ratio ours/gnubg: {ours / theirs:.2f}x")
    if args.compare:
        full = get("neural", plies=args.ply, prune=0)
        same, gaps = 0, []
        for pos, dice in todo:
            mine = best_plays(bot, pos, dice, CubeState())
            exact = {r.move: r.equity for r in best_plays(full, pos, dice, CubeState())}
            same += mine[0].move == max(exact, key=lambda m: exact[m])
            gaps += [abs(r.equity - exact[r.move]) for r in mine if r.move in exact]
        print(
            f"best play as the full search's: {same}/{n}; listed equities from it: "
            f"{sum(gaps) / len(gaps):.4f} on average, at most {max(gaps):.4f}"
        )


if __name__ == "__main__":
    main()
