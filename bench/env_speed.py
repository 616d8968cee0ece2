"""Environment steps per second: ours (batched, PettingZoo, Gymnasium) beside OpenSpiel's.

    pip install -e '.[bench]'     # OpenSpiel, the peer; not a dependency of the package
    python bench/env_speed.py [--games N] [--repeat R] [--batch B]

All play whole games of random masked actions, money play without the cube, and at every
decision the agent to act reads its observation and its legal actions (our ``last()``;
OpenSpiel's ``observation_tensor`` and ``legal_actions``), then acts.  The batched
environment steps ``B`` games (1,024) at once in this one process, its observations and
masks written into arrays at every step and a random allowed action drawn for every game;
it plays until each game has ended at least once (so every stage of a game and the resets
are in the figure, not only the openings) and about ``N`` games' worth of steps are done,
and a step is one game's decision.  The
Gymnasium environment plays against the random bot, whose turns are inside ``step`` and
not counted.  A step is one agent
decision: ours asks one per roll (two for a double of 3-4 steps), OpenSpiel one per pair of
checker moves (two for any double), so games per second is printed too.  The chance nodes
of OpenSpiel (the dice) are sampled and not counted as steps; ours roll inside ``step``.
Times are CPU time of this thread, best of R runs, the two interleaved (the machine is
shared and noisy).  ``RowTable`` is the environments' core without PettingZoo's wrapper
(the batched kernel with one row); ``Table`` the Match-based reference it falls back to
(a ``gnubg_id`` start, other bots).
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

import gymnasium

import backgammon.env
from backgammon.env import env as make_env
from backgammon.env.batch import BatchEnv
from backgammon.env.row import RowTable
from backgammon.env.table import Table

BATCH = 1024


def ours_aec(games: int, seed: int) -> tuple[int, int]:
    """Steps and games of ``games`` games through the wrapped PettingZoo environment."""
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
    return steps, games


def ours_table(games: int, seed: int, kind: type[Table | RowTable] = Table) -> tuple[int, int]:
    """Steps and games of ``games`` games through :class:`Table`, reading each observation."""
    table = kind()
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
    return steps, games


def ours_row(games: int, seed: int) -> tuple[int, int]:
    """Steps and games of ``games`` games through :class:`RowTable` (the environments' core)."""
    return ours_table(games, seed, RowTable)


def ours_batch(games: int, seed: int) -> tuple[int, int]:
    """Steps and ended games of ``BATCH`` games in lockstep until every one has played a
    whole game and about ``games`` games' worth are done (100 steps each): every stage of a
    game and the resets counted, as OpenSpiel's whole games are."""
    env = BatchEnv()
    rng = np.random.default_rng(seed)
    env.reset(BATCH, seed=seed)
    ended = np.zeros(BATCH, dtype=bool)
    steps = played = 0
    while not ended.all() or steps < games * 100:
        dones = env.step(env.sample(rng))[2]
        ended |= dones
        played += int(dones.sum())
        steps += BATCH
    return steps, played


def ours_gym(games: int, seed: int) -> tuple[int, int]:
    """The agent's steps, and the games, of ``games`` Gymnasium games against random."""
    g = gymnasium.make(backgammon.env.ENV_ID, opponent="random")
    rng = np.random.default_rng(seed)
    steps = 0
    for k in range(games):
        obs, _info = g.reset(seed=seed + k)
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _reward, done, _trunc, _info = g.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps, games


def openspiel(games: int, seed: int) -> tuple[int, int]:
    """Steps and games of ``games`` games of OpenSpiel's backgammon."""
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
    return steps, games


Run = Callable[[int, int], tuple[int, int]]


def timed(run: Run, games: int, seed: int) -> tuple[float, int, int]:
    start = time.thread_time()
    steps, played = run(games, seed)
    return time.thread_time() - start, steps, played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel is not installed (pip install -e '.[bench]'): our figures only")
        peers: dict[str, Run] = {}
    else:
        peers = {PEER: openspiel}
    runs: dict[str, Run] = {
        f"ours, batched ({BATCH:,})": ours_batch,
        "ours, PettingZoo AEC": ours_aec,
        "ours, Gymnasium": ours_gym,
        "ours, RowTable": ours_row,
        "ours, Table (Match)": ours_table,
        **peers,
    }
    ours_batch(10, 0)  # the compiled code loaded before any timing
    best: dict[str, tuple[float, int, int]] = {}
    for r in range(args.repeat):
        for name, run in runs.items():
            measured = timed(run, args.games, 1000 * r)
            if name not in best or measured[0] < best[name][0]:
                best[name] = measured
    steps = {name: n / seconds for name, (seconds, n, _) in best.items()}
    games = {name: g / seconds for name, (seconds, _, g) in best.items()}
    print(
        f"{args.games} games of random masked actions, best of {args.repeat} (CPU time, one core)"
    )
    for name in best:
        ratio = f"{steps[name] / steps[PEER]:>7.2f}x" if peers else ""
        by_games = f"{games[name] / games[PEER]:>7.2f}x" if peers else ""
        print(
            f"  {name:<26} {steps[name]:>11,.0f} steps/s {ratio}"
            f" {games[name]:>9,.0f} games/s {by_games} OpenSpiel"
        )


PEER = "OpenSpiel backgammon"

if __name__ == "__main__":
    main()
