"""Train a small agent with backgammon.env, then measure it against the random bot.

    pip install 'backgammon[rl]'
    python examples/train_agent.py [--games 2000] [--hidden 40] [--eval-games 500] [--seed 1]

The agent is TD-Gammon in miniature: a numpy network (198 Tesauro inputs, one hidden layer
of sigmoids, one sigmoid output) estimates the chance that the side on roll wins.  It learns
by playing itself in the two-agent PettingZoo environment: at each roll it looks at the
position every legal play leaves (the environment's ``plays``, by the actions that make
each), takes the one worst for the opponent (now and then a random one, to explore), and
moves each position's estimate towards the next one's by TD(lambda); a game's end, given by
the environment's reward, is the last target.  Then it plays ``--eval-games`` games against
``random`` in the Gymnasium environment (seeded) and prints its win rate.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import numpy.typing as npt

import backgammon.env
from backgammon.env.observation import board_blocks
from backgammon.env.row import RowTable
from backgammon.env.table import Table
from backgammon.evaluation.encode import after_boards

Array = npt.NDArray[np.float64]
RATE = 0.1
LAMBDA = 0.7
EXPLORE = 0.02


class ValueNet:
    """P(the side on roll wins) from Tesauro's inputs of the board seen from that side."""

    def __init__(self, hidden: int, rng: np.random.Generator) -> None:
        self.params = [
            rng.normal(0, 0.1, (198, hidden)),  # input to hidden weights
            np.zeros(hidden),
            rng.normal(0, 0.1, hidden),  # hidden to output weights
            np.zeros(1),
        ]

    def values(self, x: Array) -> Array:
        """The estimate of each row of ``x``."""
        w1, b1, w2, b2 = self.params
        h = 1 / (1 + np.exp(-(x @ w1 + b1)))
        out: Array = 1 / (1 + np.exp(-(h @ w2 + b2)))
        return out

    def gradient(self, x: Array) -> tuple[float, list[Array]]:
        """The estimate of one input row and its gradient, one array per parameter."""
        w1, b1, w2, b2 = self.params
        h = 1 / (1 + np.exp(-(x @ w1 + b1)))
        v = float(1 / (1 + np.exp(-(h @ w2 + b2[0]))))
        dv = v * (1 - v)
        back = dv * w2 * h * (1 - h)
        return v, [np.outer(x, back), back, dv * h, np.array([dv])]


def after_positions(table: Table | RowTable) -> tuple[list[tuple[int, ...]], Array]:
    """The actions of each legal play and the inputs of the position it leaves, seen from
    the opponent, who is on roll there."""
    plays = table.plays
    boards = after_boards(table.position.board, list(plays.values()))
    return list(plays), board_blocks("tesauro", boards, True).astype(np.float64)


def choose(
    net: ValueNet, table: Table | RowTable, explore: float, rng: np.random.Generator
) -> tuple:
    """The actions of the play whose position is worst for the opponent, and its inputs."""
    actions, x = after_positions(table)
    explores = rng.random() < explore
    i = int(rng.integers(len(actions))) if explores else int(np.argmin(net.values(x)))
    return actions[i], x[i]


def train(net: ValueNet, games: int, rng: np.random.Generator) -> None:
    """``games`` games of self-play in the PettingZoo environment.

    TD(lambda) on ``u``, the estimate that player_0 wins: the net's value of each position
    left, or one minus it when player_1 is on roll there; the game's end gives 1 or 0.
    """
    env = backgammon.env.raw_env()
    for _ in range(games):
        env.reset(seed=int(rng.integers(2**31)))
        table = env.table
        u_before: float | None = None
        traces = [np.zeros_like(p) for p in net.params]
        pending: list[int] = []
        for agent in env.agent_iter():
            _obs, reward, terminated, _truncated, _info = env.last(observe=False)
            if terminated:
                if u_before is not None:
                    won = (reward > 0) == (agent == "player_0")
                    _learn(net, traces, float(won) - u_before)
                    u_before = None
                env.step(None)
                continue
            if pending:  # the second action of a double of 3-4 steps
                env.step(pending.pop(0))
                continue
            actions, x = choose(net, table, EXPLORE, rng)
            v, grad = net.gradient(x)
            sign = 1.0 if env.agent_selection == "player_1" else -1.0  # player_0 on roll
            u = v if sign > 0 else 1 - v
            if u_before is not None:
                _learn(net, traces, u - u_before)
            for t, g in zip(traces, grad, strict=True):
                t *= LAMBDA
                t += sign * g
            u_before = u
            pending = list(actions[1:])
            env.step(actions[0])


def _learn(net: ValueNet, traces: list[Array], error: float) -> None:
    for p, t in zip(net.params, traces, strict=True):
        p += RATE * error * t


def evaluate(net: ValueNet, games: int, seed: int) -> tuple[float, float]:
    """Win rate and points per game against the random bot (no exploring)."""
    env = gymnasium.make("backgammon/Backgammon-v0", opponent="random")
    table: Table | RowTable = env.unwrapped.table  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    wins, points = 0, 0.0
    for g in range(games):
        env.reset(seed=seed + g)
        done, reward = False, 0.0
        while not done:
            actions, _x = choose(net, table, 0.0, rng)
            for a in actions:
                _obs, reward, done, _trunc, _info = env.step(a)
        wins += reward > 0
        points += reward
    return wins / games, points / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--hidden", type=int, default=40)
    parser.add_argument("--eval-games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    net = ValueNet(args.hidden, rng)
    before, _ = evaluate(net, min(args.eval_games, 200), 10**6)
    print(f"untrained: wins {before:.1%} of {min(args.eval_games, 200)} games against random")
    start = time.monotonic()
    train(net, args.games, rng)
    print(f"trained on {args.games} games of self-play in {time.monotonic() - start:.0f} s")
    rate, ppg = evaluate(net, args.eval_games, 10**6)
    print(
        f"trained: wins {rate:.1%} of {args.eval_games} games against random "
        f"({ppg:+.2f} points a game; seed {10**6})"
    )


if __name__ == "__main__":
    main()
