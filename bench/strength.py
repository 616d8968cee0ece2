"""Playing strength: cubeless money duels with duplicate dice.

    python bench/strength.py --games 10000 --opponent pubeval [--player neural] [--plies 0]
    python bench/strength.py --games 2000 --opponent gnubg
    python bench/strength.py --games 10000 --opponent gnubg --gnubg-plays contact race
    python bench/strength.py --games 20000 --opponent gnubg --seed 1201 --compare OLD.npz
    python bench/strength.py --speed

Each dice sequence is played twice with the seats swapped, so luck mostly cancels; the
standard error is computed over these pairs.  Prints points per game (ppg) of the player
against the opponent.  ``--opponent gnubg`` is GNU Backgammon's 0-ply net from the PyPI
package gnubg-nn (a benchmark-only dependency).  ``--gnubg-plays`` hands the player's plays in
positions of those classes (contact, crashed, race: gnubg's classes) to gnubg's 0-ply: against
gnubg the games then part only where the player plays the other classes, so the figure is
what the player's plays there cost, with a small error.  ``--compare`` plays the nets of
other weights files on the same dice and prints each one's difference from the first with
the standard error of the paired sequences: the duel a net passes before it ships.
``--speed`` prints the network's plays per second and training games per second.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence

import numpy as np

from backgammon.core.position import Position
from backgammon.core.values import Move
from backgammon.evaluation.encode import CLASSES, class_masks
from backgammon.players import get
from backgammon.training.duel import Chooser, duplicate_pairs, mean_and_error


class GnubgPlayer:
    """gnubg's net (gnubg-nn) as a player at ``plies`` (0 as an opponent), for benchmarks
    only: ``--player gnubg --plies 1`` measures what gnubg's own lookahead gains."""

    def __init__(self, plies: int = 0) -> None:
        import gnubg_nn

        self._g = gnubg_nn
        self.plies = plies
        self.name = f"gnubg-{plies}ply"

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: object = None
    ) -> Move | None:
        moves = position.legal_moves(dice)
        if len(moves) <= 1:
            return moves[0] if moves else None
        not_on_roll, on_roll = position.arrays()
        steps = self._g.best_move([list(not_on_roll), list(on_roll)], dice[0], dice[1], self.plies)
        target = position.play([(s, t, False) for s, t in steps])
        for m in moves:
            if position.play(m) == target:
                return m
        raise RuntimeError(f"gnubg's play {steps} is not one of ours")


class Handover:
    """``player`` except in positions of the classes ``gnubg_plays``
    (:func:`~backgammon.evaluation.encode.class_masks`), where gnubg's 0-ply plays for it."""

    def __init__(self, player: Chooser, gnubg_plays: Sequence[str]) -> None:
        self.player, self.gnubg, self.classes = player, GnubgPlayer(0), tuple(gnubg_plays)

    def choose_move(self, position: Position, dice: tuple[int, int]) -> Move | None:
        masks = class_masks(np.array([position.board], dtype=np.int64))
        if any(masks[c][0] for c in self.classes):
            return self.gnubg.choose_move(position, dice)
        return self.player.choose_move(position, dice)


def make_player(
    name: str, plies: int, weights: str | None, gnubg_plays: Sequence[str] = ()
) -> Chooser:
    """A player by name for the duel."""
    if gnubg_plays:
        return Handover(make_player(name, plies, weights), gnubg_plays)
    if name == "gnubg":
        return GnubgPlayer(plies)
    if name == "neural":
        return get("neural", plies=plies, weights=weights)
    return get(name)


def _pairs(args: tuple[str, str, int, str | None, int, int, tuple[str, ...]]) -> list[float]:
    player_name, opp_name, plies, weights, start, count, gnubg_plays = args
    player = make_player(player_name, plies, weights, gnubg_plays)
    return duplicate_pairs(player, make_player(opp_name, 0, None), start, count)


def duel(
    player: str,
    opponent: str,
    games: int,
    plies: int = 0,
    weights: str | None = None,
    jobs: int = 1,
    seed: int = 0,
    gnubg_plays: Sequence[str] = (),
) -> tuple[float, float, int]:
    """(ppg, standard error, games) of ``player`` (with gnubg playing for it in the classes
    ``gnubg_plays``) against ``opponent``."""
    results = pair_results(player, opponent, games, plies, weights, jobs, seed, gnubg_plays)
    mean, error = mean_and_error(results)
    return mean, error, 2 * len(results)


def pair_results(
    player: str,
    opponent: str,
    games: int,
    plies: int = 0,
    weights: str | None = None,
    jobs: int = 1,
    seed: int = 0,
    gnubg_plays: Sequence[str] = (),
) -> list[float]:
    """The points per game of each dice sequence of :func:`duel`, in the order of the
    sequences (so two players' lists on one seed pair up)."""
    pairs = max(1, games // 2)
    chunk = math.ceil(pairs / jobs)
    tasks = [
        (
            player,
            opponent,
            plies,
            weights,
            seed * 10_000_000 + i,
            min(chunk, pairs - i),
            tuple(gnubg_plays),
        )
        for i in range(0, pairs, chunk)
    ]
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = [x for part in pool.map(_pairs, tasks) for x in part]
    else:
        results = _pairs(tasks[0])
    return results


class _Clock:
    """Wall-clock and CPU time of a block (the machine may be shared: CPU time shows the
    speed on an idle core)."""

    def __enter__(self) -> _Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu

    def rates(self, n: int, unit: str) -> str:
        return f"{n / self.cpu:.1f} {unit}/s of CPU time ({n / self.wall:.1f} by the wall clock)"


def speed(weights: str | None = None) -> None:
    """Plays per second of the net (the shipped one or ``weights``) at 0-2 ply beside
    gnubg's 0-ply on the same positions, and self-play training games per second (one game
    at a time, and 64 side by side)."""
    import gnubg_nn

    from backgammon.evaluation.net import DEFAULT_WEIGHTS, NetPair
    from backgammon.training.td import play_training_games

    bot = get("neural", plies=0, weights=weights)
    rng = random.Random(1)
    cases: list[tuple[Position, tuple[int, int]]] = []
    pos = Position.initial()
    while len(cases) < 2000:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        cases.append((pos, dice))
        move = bot.choose_move(pos, dice)
        pos = pos.flip() if move is None else pos.play(move)
        if pos.is_game_over():
            pos = Position.initial()
    theirs = [([list(a) for a in p.arrays()], d) for p, d in cases]
    # Chunks of 200 timed back to back (the machine is shared), each timed once: gnubg
    # keeps an evaluation cache, so a position it has seen is no measure of its speed.
    ours_cpu = gnubg_cpu = 0.0
    for lo in range(0, len(cases), 200):
        with _Clock() as c:
            for p, d in cases[lo : lo + 200]:
                bot.choose_move(p, d)
        ours_cpu += c.cpu
        with _Clock() as c:
            for board, (d1, d2) in theirs[lo : lo + 200]:
                gnubg_nn.best_move(board, d1, d2)
        gnubg_cpu += c.cpu
    n = len(cases)
    print(f"neural 0-ply: {n / ours_cpu:.0f} plays/s of CPU time over {n} positions")
    print(f"gnubg 0-ply:  {n / gnubg_cpu:.0f} plays/s of CPU time on the same positions")
    print(f"ratio of time per play, ours/gnubg: {ours_cpu / gnubg_cpu:.2f}x")
    for plies, count in ((1, 40), (2, 5)):
        deeper = get("neural", plies=plies, weights=weights)
        with _Clock() as c:
            for p, d in cases[:count]:
                deeper.choose_move(p, d)
        print(f"neural {plies}-ply: {c.rates(count, 'plays')} over {count} positions")
    ev = NetPair.load(weights or DEFAULT_WEIGHTS)
    for side_by_side, games in ((1, 50), (64, 128)):
        r = random.Random(2)
        with _Clock() as c:
            for _ in range(games // side_by_side):
                play_training_games(ev, r, 0.0, 0.7, side_by_side)
        print(f"training, {side_by_side} game(s) side by side (alpha 0): {c.rates(games, 'games')}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="games (two per dice sequence)")
    ap.add_argument("--player", default="neural")
    ap.add_argument("--opponent", default="pubeval", help="pubeval, gnubg or random")
    ap.add_argument("--plies", type=int, default=0)
    ap.add_argument("--weights", default=None, help="a .npz other than the shipped one")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--gnubg-plays",
        nargs="+",
        default=(),
        choices=CLASSES,
        help="gnubg 0-ply plays the player's turns in positions of these classes",
    )
    ap.add_argument(
        "--compare",
        nargs="+",
        default=None,
        metavar="W",
        help="also play the nets in these files on the same dice, each paired with the first",
    )
    ap.add_argument("--speed", action="store_true")
    args = ap.parse_args(argv)
    if args.speed:
        speed(args.weights)
        return 0
    label = args.player + (f" {args.plies}-ply" if args.player in ("neural", "gnubg") else "")
    if args.gnubg_plays:
        label += f" (gnubg plays {' '.join(args.gnubg_plays)})"
    digits = 4 if args.gnubg_plays else 3
    runs = [args.weights] if args.compare is None else [args.weights, *args.compare]
    results = []
    for weights in runs:
        t = time.perf_counter()
        results.append(
            pair_results(
                args.player,
                args.opponent,
                args.games,
                args.plies,
                weights,
                args.jobs,
                args.seed,
                args.gnubg_plays,
            )
        )
        dt = time.perf_counter() - t
        ppg, se = mean_and_error(results[-1])
        n = 2 * len(results[-1])
        named = label if args.compare is None else f"{label} [{weights or 'shipped'}]"
        print(
            f"{named} vs {args.opponent}: {ppg:+.{digits}f} ppg ± {se:.{digits}f} (1 s.e.) "
            f"over {n} games with duplicate dice, {n / dt:.1f} games/s"
        )
    for other, theirs in zip(runs[1:], results[1:], strict=True):
        diff, se = mean_and_error([a - b for a, b in zip(results[0], theirs, strict=True)])
        print(
            f"paired difference, {args.weights or 'shipped'} minus {other}: "
            f"{diff:+.{digits}f} ppg ± {se:.{digits}f} (1 s.e.)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
