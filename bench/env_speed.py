"""Environment steps per second: our PettingZoo environment beside OpenSpiel's backgammon.

    pip install open_spiel        # the peer; not a dependency of the package
    python bench/env_speed.py [--games N] [--repeat R]

Both play whole games of random masked actions, money play without the cube, and at every
decision the agent to act reads its observation and its legal actions (our ``last()``;
OpenSpiel's ``observation_tensor`` and ``legal_actions``), then acts.  A step is one agent
decision: ours asks one per roll (two for a double of 3-4 steps), OpenSpiel one per pair of
checker moves (two for any double), so games per second is printed too.  The chance nodes
of OpenSpiel (the dice) are sampled and not counted as steps; ours roll inside ``step``.
Times are CPU time of this thread, best of R runs, the two interleaved (the machine is
shared and noisy).  ``Table`` is our environment's core without PettingZoo's wrapper.
Without OpenSpiel installed, only our figures are printed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backgammon.env import env as make_env
from backgammon.env.table import Table


def ours_aec(games: int, seed: int) -> int:
    """Steps of ``games`` games through the wrapped PettingZoo environment."""
    e = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    for g in range(games):
        e.reset(seed=seed + g)
        for _agent in e.agent_iter():
            obs, _reward, terminated, truncated, _info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps


def ours_table(games: int, seed: int) -> int:
    """Steps of ``games`` games through :class:`Table`, reading each observation."""
    table = Table()
    rng = random.Random(seed)
    steps = 0
    for g in range(games):
        table.reset(seed + g)
        while not table.done:
            player = table.to_act
            assert player is not None
            table.observe(player)
            legal = table.legal_actions()
            table.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps


def openspiel(games: int, seed: int) -> int:
    """Steps of ``games`` games of OpenSpiel's backgammon."""
    import pyspiel

    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)
    steps = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
    return steps


def timed(run: Callable[[int, int], int], games: int, seed: int) -> tuple[float, int]:
    start = time.thread_time()
    steps = run(games, seed)
    return time.thread_time() - start, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel is not installed (pip install open_spiel): our figures only")
        peers: dict[str, Callable[[int, int], int]] = {}
    else:
        peers = {"OpenSpiel backgammon": openspiel}
    runs = {"ours, PettingZoo AEC": ours_aec, "ours, Table": ours_table, **peers}
    best: dict[str, tuple[float, int]] = {}
    for r in range(args.repeat):
        for name, run in runs.items():
            seconds, steps = timed(run, args.games, 1000 * r)
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, steps)
    rates = {}
    print(f"{args.games} games of random masked actions, best of {args.repeat} (CPU time)")
    for name, (seconds, steps) in best.items():
        rates[name] = steps / seconds
        print(
            f"  {name:<22} {steps / seconds:>9,.0f} steps/s {args.games / seconds:>7,.1f} games/s"
            f"  ({steps / args.games:.1f} steps a game)"
        )
    if peers:
        peer = rates["OpenSpiel backgammon"]
        ours = rates["ours, PettingZoo AEC"]
        print(f"  OpenSpiel / ours (AEC): {peer / ours:.1f}x the steps per second")
        games_ratio = (best["ours, PettingZoo AEC"][0]) / best["OpenSpiel backgammon"][0]
        print(f"  OpenSpiel / ours (AEC): {games_ratio:.1f}x the games per second")


if __name__ == "__main__":
    main()
