"""Whole matches and money games with the cube against GNU Backgammon.

    python bench/gnubg_matches.py --matches 20 --money 100 [--length 7] [--gnubg-plies 0]

gnubg's own match engine (Debian's /usr/games/gnubg, no terminal) plays them: gnubg is
player 0 (``set player 0 gnubg`` at --gnubg-plies), our best bot at its default settings
is player 1 (``set player 1 external``, served in this process by the same code as
``backgammon external``).  Every match and game is exported as .mat and replayed through
our ``Match`` to count the result and the cube actions.  Prints our match-winning rate
with its 95% Wilson interval beside gnubg's, points per game in money play with its 95%
interval, and the doubles, takes and drops of each side.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from backgammon.play.match import Match
from backgammon.play.record import Beaver, Double, Drop, Take
from backgammon.players import get
from backgammon.protocols.external import ExternalPlayer, play_gnubg, serve_external
from backgammon.records import mat

US, GNU = 1, 0


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def start_server(plies: int | None) -> int:
    """Our bot behind gnubg's external-player protocol on a free port (a daemon thread)."""
    player = get("neural") if plies is None else get("neural", plies=plies)
    external = ExternalPlayer(player)
    ready = threading.Event()
    port: list[int] = []

    def on_ready(address: tuple[str, int]) -> None:
        port.append(address[1])
        ready.set()

    threading.Thread(
        target=serve_external, args=(external, 0), kwargs={"ready": on_ready}, daemon=True
    ).start()
    if not ready.wait(120):
        raise SystemExit("the external player did not start")
    return port[0]


def cube_actions(match: Match) -> Counter[str]:
    """Doubles, takes, drops and beavers of each side in a replayed match."""
    seen: Counter[str] = Counter()
    for a in match.record.actions():
        if isinstance(a, Double | Take | Drop | Beaver):
            who = "ours" if a.player == US else "gnubg"
            seen[f"{who} {type(a).__name__.lower()}"] += 1
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20, help="matches to play (20)")
    parser.add_argument("--length", type=int, default=7, help="match length (7)")
    parser.add_argument("--money", type=int, default=100, help="money games to play (100)")
    parser.add_argument("--gnubg-plies", type=int, default=0, help="gnubg's plies (0)")
    parser.add_argument("--plies", type=int, default=None, help="our plies (default: ours)")
    parser.add_argument("--seed", type=int, default=1, help="gnubg's dice seed (1)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds at most (3600)")
    args = parser.parse_args()
    port = start_server(args.plies)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        blocks = [
            f"new match {args.length}\nexport match mat {folder}/m{i}.mat"
            for i in range(args.matches)
        ]
        blocks += ["set automatic game off"]
        blocks += [f"new session\nexport match mat {folder}/g{i}.mat" for i in range(args.money)]
        out = play_gnubg(port, blocks, plies=args.gnubg_plies, seed=args.seed, timeout=args.timeout)
        if "Error" in out or "Warning" in out:
            print(out[-3000:], file=sys.stderr)
            return 1
        matches = [mat.read((folder / f"m{i}.mat").read_text()) for i in range(args.matches)]
        games = [mat.read((folder / f"g{i}.mat").read_text()) for i in range(args.money)]
    took = time.perf_counter() - started
    cubes: Counter[str] = Counter()
    wins = 0
    for m in matches:
        assert m.is_over, "a match did not finish"
        wins += m.winner == US
        cubes += cube_actions(m)
    n = len(matches)
    print(
        f"{n} {args.length}-point matches, ours (neural, default plies) against gnubg "
        f"{args.gnubg_plies}-ply, played by gnubg through the external player ({took:.0f} s)"
    )
    if n:
        lo, hi = wilson(wins, n)
        ours, theirs = wins / n, (n - wins) / n
        ratio = f"{ours / theirs:.2f}" if theirs else "inf"
        print(
            f"  match wins: ours {wins}/{n} = {ours:.1%} (95% CI {lo:.1%}-{hi:.1%}), "
            f"gnubg {n - wins}/{n} = {theirs:.1%}; ratio ours/gnubg {ratio}"
        )
    points = []
    for g in games:
        score = g.score
        points.append(score[US] - score[GNU])
        cubes += cube_actions(g)
    if points:
        k = len(points)
        mean = sum(points) / k
        sd = math.sqrt(sum((p - mean) ** 2 for p in points) / max(1, k - 1))
        half = 1.96 * sd / math.sqrt(k)
        print(
            f"  money with the cube: {k} games, ours {mean:+.3f} ppg "
            f"(95% CI {mean - half:+.3f} to {mean + half:+.3f}), gnubg {-mean:+.3f} ppg"
        )
    print("  cube actions seen: " + ", ".join(f"{k} {v}" for k, v in sorted(cubes.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
